"""Text from the code (docstrings, help, comments) as markdown."""

from __future__ import annotations

import html


def prose(text: object) -> str:
    """``<tag>``-like words outside code spans shown as text: a docstring's ``<conclusion>``
    is not HTML."""
    parts = str(text).split("`")
    for i in range(0, len(parts), 2):  # outside backticks
        parts[i] = html.escape(parts[i], quote=False)
    return "`".join(parts)


def cell(text: object) -> str:
    """A table cell: one line, pipes escaped."""
    return prose(text).replace("\n", " ").replace("|", "\\|")
