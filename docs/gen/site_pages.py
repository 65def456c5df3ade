"""Every generated page of the site: its path under ``docs/`` and what writes its text.

The build (``main.py``) writes them all; the docs tests read the paths to know which links
lead to pages that exist only in a build.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import api_ref
import cli_ref
import errors_ref
import http_ref
import schemas_ref


def _api_page(slug: str) -> str:
    return api_ref.page(slug, api_ref.pages()[slug])


def generated() -> dict[str, Callable[[], str]]:
    """Path under docs/ -> a function that returns the page's text."""
    pages: dict[str, Callable[[], str]] = {
        "reference/cli.md": cli_ref.page,
        "reference/schemas.md": schemas_ref.page,
        "reference/errors.md": errors_ref.page,
        "reference/http.md": lambda: http_ref.page(http_ref.spec()),
        "reference/openapi.json": lambda: http_ref.spec_json(http_ref.spec()),
        "reference/api/index.md": lambda: api_ref.index(api_ref.pages()),
    }
    for slug in api_ref.pages():
        pages[f"reference/api/{slug}.md"] = partial(_api_page, slug)
    return pages
