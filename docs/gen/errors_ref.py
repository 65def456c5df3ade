"""The error codes page, walked from the error tree in ``webdojo.errors``: one table per family
(the classes right under ``WebdojoError``), parents before children."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

from md_text import cell

import webdojo.errors
from webdojo.errors import WebdojoError
from webdojo.server.api.http_errors import status_for

# A line of the tree drawn in the package docstring: "├── StaleElement   stale_element (why)"
TREE_LINE = re.compile(r"(\w+)\s+\w+\s+\((.+)\)\s*$")


def tree(cls: type[WebdojoError], depth: int = 0) -> Iterator[tuple[int, type[WebdojoError]]]:
    """``cls`` and every class under it with its depth, parents before children."""
    yield depth, cls
    for sub in cls.__subclasses__():
        yield from tree(sub, depth + 1)


def tree_notes() -> dict[str, str]:
    """Class name -> the note in parentheses beside it in the drawn tree."""
    doc = webdojo.errors.__doc__ or ""
    return {m.group(1): m.group(2) for m in map(TREE_LINE.search, doc.splitlines()) if m}


def meaning(cls: type, notes: dict[str, str]) -> str:
    """The class's own docstring (not an inherited one), else its note in the drawn tree."""
    own = cls.__dict__.get("__doc__")
    if own:
        return inspect.cleandoc(own).split("\n\n")[0]
    return notes.get(cls.__name__, "")


def _status(cls: type[WebdojoError]) -> int:
    # status_for reads only the class; a bare instance avoids each class's own constructor
    return status_for(Exception.__new__(cls))


def _family(root: type[WebdojoError], notes: dict[str, str]) -> list[str]:
    about = meaning(root, notes)
    out = [
        f"## {root.__name__} (`{root.fault.value}`)",
        "",
        *([cell(about), ""] if about else []),
        "| code | class | kind of | retryable | HTTP | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for depth, cls in tree(root):
        parent = cls.__mro__[1].__name__ if depth else ""
        retry = "yes" if cls.retryable else ""
        out.append(
            f"| `{cls.code}` | `{cls.__name__}` | {parent} | {retry} | {_status(cls)} "
            f"| {cell(meaning(cls, notes))} |"
        )
    return [*out, ""]


def page() -> str:
    out = [
        "# Error codes",
        "",
        "Every error webdojo raises is a `webdojo.errors.WebdojoError` with a stable `code`, a",
        "`fault` (who is to blame) and `retryable`. The same code appears in step and episode",
        "records (`error.code`), in the server's error bodies (with the HTTP status below) and in",
        "`--json` output. Generated from the class tree when the site is built.",
        "",
        "The fault decides what a trainer does with the episode:",
        "",
        "- `agent`: the policy produced something unusable; the episode goes on and the error",
        "  is shown to the model. Scoring it is fair.",
        "- `env`: the website misbehaved; a trainer may drop the episode.",
        "- `infra`: webdojo's own machinery failed; never score it 0, drop or retry it.",
        "- `config`: the input is wrong (a file, a flag, a request, a call out of order); fix it",
        "  and run again.",
        "",
        f"The root, `WebdojoError` (`{WebdojoError.code}`), is never raised itself.",
        "",
    ]
    notes = tree_notes()
    for family in WebdojoError.__subclasses__():
        out += _family(family, notes)
    return "\n".join(out)
