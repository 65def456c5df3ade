"""The WebGym memory prompt's fields, read from the text before the tool call.

The memory prompt asks for Memory (JSON), Progress (JSON), Intention (a JSON key) and Action
(one sentence), in that order. Labels are found at the start of a line, written any of these
ways: ``Memory:``, ``1) Memory:``, ``2. Progress:``, ``**Memory**:``, ``**Memory:**``,
``### Intention:``. A field's value runs to the next label (so a JSON object may span lines).

JSON fields are decoded leniently: a fence around them, trailing commas, single quotes and
text after the object are tolerated. A value that still cannot be read is kept as the raw
string: a malformed memory never costs the step its action.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from ._helpers import drop_trailing_commas, literal, strip_fence

_LABEL = re.compile(
    r"^[ \t]{0,12}(?:#{1,6}[ \t]{0,4})?(?:\d{1,2}[.)][ \t]{0,4})?(?:[*_]{1,2}[ \t]{0,4})?"
    r"(memory|progress|intention|action)"
    r"[ \t]{0,4}(?:[*_]{1,2}[ \t]{0,4})?:(?:[ \t]{0,4}[*_]{1,2}(?![*_]))?",
    re.I | re.M,
)
_JSON_FIELDS = ("memory", "progress")


def read_preamble(text: str) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """Return (memory fields, Action sentence, unlabelled prose).

    ``memory fields`` holds whichever of "memory", "progress", "intention" were present, or is
    None when none were. ``unlabelled prose`` is the whole text when it has no labels at all
    (a plain explanation before the tool call), else None.
    """
    labels = list(_LABEL.finditer(text))
    if not labels:
        prose = text.strip()
        return None, None, prose or None
    fields: dict[str, Any] = {}
    sentence: str | None = None
    for i, match in enumerate(labels):
        name = match.group(1).lower()
        end = labels[i + 1].start() if i + 1 < len(labels) else len(text)
        value = text[match.end() : end].strip()
        if name == "action":
            sentence = sentence or value or None
        elif name not in fields:
            fields[name] = read_json(value) if name in _JSON_FIELDS else read_intention(value)
    return fields or None, sentence, None


def read_json(value: str) -> Any:
    """A JSON value, decoded as leniently as is safe; the raw string if that fails."""
    body = strip_fence(value)
    if not body:
        return body
    decoder = json.JSONDecoder()
    for candidate in (body, drop_trailing_commas(body)):
        try:
            found, end = decoder.raw_decode(candidate)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            continue
        # text after an object is a comment; after a bare number or word it is part of it
        if isinstance(found, dict | list | str) or not candidate[end:].strip():
            return found
    try:
        return literal(ast.parse(body, mode="eval").body)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return value


def read_intention(value: str) -> Any:
    """Usually a quoted key ("Search for product 2"); plain text is kept as it is."""
    body = strip_fence(value)
    if body[:1] in ('"', "{", "["):
        return read_json(body)
    return body
