"""Parse the text of a numpy array of strings, as InSTA's CSV stores its ``steps`` and
``criteria`` columns (``str(array)`` written by pandas), without evaluating it.

Accepted::

    ['Go to x' 'Click y']                 numpy's str(): elements separated by whitespace,
    ['Go to x'\\n 'Click "y"']             possibly across lines, quotes of either kind
    ["it's here" 'a \\'b\\'']              escapes as in Python string literals
    array(['a', 'b'], dtype=object)       numpy's repr(): commas, a dtype
    ['a', 'b']  /  []                     a Python or JSON list of strings

A small tokenizer finds each quoted literal and ``ast.literal_eval`` decodes that one literal
(a string literal is all it can be, so nothing runs). Anything else, including numpy's ``...``
summary of a long array, raises ``ValueError`` saying where.
"""

from __future__ import annotations

import ast
import re

_ARRAY = re.compile(r"^array\((?P<body>.*?)(?:,\s*dtype=[\w<>|'\"]+)?\)$", re.S)
_QUOTES = "'\""
_PREFIX = re.compile(r"[rRbBuU]{0,2}(?=['\"])")


def parse_string_list(text: str) -> list[str]:
    """The strings of a numpy-array (or list) literal; see the module docstring."""
    body = text.strip()
    match = _ARRAY.match(body)
    if match:
        body = match.group("body").strip()
    if not body.startswith("[") or not body.endswith("]"):
        raise ValueError(f"expected a list in brackets, got {_clip(text)!r}")
    items: list[str] = []
    pos, end = 1, len(body) - 1
    while True:
        pos = _skip_separators(body, pos, end, first=not items)
        if pos >= end:
            return items
        literal_end = _literal_end(body, pos, end)
        items.append(_decode(body[pos:literal_end], pos))
        pos = literal_end
        if pos < end and not (body[pos].isspace() or body[pos] == ","):
            raise ValueError(f"expected a separator at character {pos}, got {body[pos]!r}")


def _skip_separators(body: str, pos: int, end: int, first: bool) -> int:
    """Skip whitespace and at most one comma (none before the first element)."""
    commas = 0
    while pos < end and (body[pos].isspace() or body[pos] == ","):
        if body[pos] == ",":
            commas += 1
            if first or commas > 1:
                raise ValueError(f"unexpected ',' at character {pos}")
        pos += 1
    return pos


def _literal_end(body: str, pos: int, end: int) -> int:
    """The index just past the string literal that starts at ``pos``."""
    prefix = _PREFIX.match(body, pos)
    quote_at = prefix.end() if prefix else pos
    if quote_at >= end or body[quote_at] not in _QUOTES:
        found = body[pos:end][:20]
        if found.startswith("..."):
            raise ValueError("the array was summarized with '...' (its elements are lost)")
        raise ValueError(f"expected a quoted string at character {pos}, got {found!r}")
    quote = body[quote_at]
    i = quote_at + 1
    while i < end:
        char = body[i]
        if char == "\\":
            i += 2
            continue
        if char == quote:
            return i + 1
        i += 1
    raise ValueError(f"unterminated string starting at character {pos}")


def _decode(literal: str, pos: int) -> str:
    prefix = _PREFIX.match(literal)
    if prefix and "b" in prefix.group().lower():
        raise ValueError(f"bytes literal at character {pos}; expected text")
    try:
        value = ast.literal_eval(literal)
    except (SyntaxError, ValueError) as exc:
        raise ValueError(f"bad string literal at character {pos}: {exc}") from None
    if not isinstance(value, str):  # pragma: no cover - the tokenizer only passes strings
        raise ValueError(f"expected a string at character {pos}")
    return value


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
