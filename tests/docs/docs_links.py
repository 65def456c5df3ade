"""Checks a relative link of a page: the file it names exists in the repository, or is one of
the reference pages the build generates (``docs/gen/site_pages.py``). Anchors within the site
are checked by the strict build itself (``validation.anchors``)."""

from __future__ import annotations

import re
import sys
from functools import cache

from docs_pages import DOCS, GENERATED, Snippet

EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:")  # http:, https:, mailto:


@cache
def generated_pages() -> frozenset[str]:
    sys.path.insert(0, str(GENERATED))
    from site_pages import generated

    return frozenset(generated())


def problem(link: Snippet) -> str | None:
    """Why ``link`` is dead, or None."""
    url = link.text
    if EXTERNAL.match(url) or url.startswith("#"):
        return None
    path = url.partition("#")[0]
    target = (link.page.parent / path).resolve()
    if target.exists():
        return None
    if target.is_relative_to(DOCS) and target.relative_to(DOCS).as_posix() in generated_pages():
        return None
    return f"links to {path}, which does not exist"
