"""Pieces shared by the format parsers: the size cap, tag blocks, literal reading and strict
argument checks (the public types are in ``types.py``).

Nothing here evaluates model text. JSON goes through ``json``; Python-looking literals go
through ``ast.parse`` and a walk that accepts only constant nodes.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

from webdojo.actions import NORM_RANGE, Action, CoordSpace, action_from_dict
from webdojo.errors import InvalidActionError, InvalidCoordinates, ParseError

MAX_INPUT_CHARS = 256_000  # longer model output is refused outright (see parsing/__init__.py)


# --- input checks -------------------------------------------------------------------------


def check_text(text: str, hint: str) -> str:
    """Refuse empty and oversized output before any parsing work starts."""
    if text is None:  # an OpenAI message with tool calls may carry content=None
        text = ""
    if not isinstance(text, str):
        raise TypeError(f"model output must be str, got {type(text).__name__}")
    if len(text) > MAX_INPUT_CHARS:
        raise ParseError(
            f"the output is {len(text):,} characters long; the limit is {MAX_INPUT_CHARS:,}. "
            f"Answer briefly. {hint}",
            length=len(text),
        )
    if not text.strip():
        raise ParseError(f"the output is empty. {hint}")
    return text


def fail(message: str, hint: str, **details: Any) -> ParseError:
    """A ParseError whose message ends with the expected format."""
    return ParseError(f"{message}. {hint}", **details)


def with_hint(exc: InvalidActionError, hint: str) -> InvalidActionError:
    """The same kind of error (same code), with the expected format appended."""
    return type(exc)(f"{exc.message}. {hint}", **exc.details)


# --- tagged blocks ------------------------------------------------------------------------


def tag_patterns(name: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Opening and closing patterns for ``<name>``, tolerant of spaces inside the brackets."""
    return (
        re.compile(rf"<[ \t]*{name}[ \t]*>", re.I),
        re.compile(rf"<[ \t]*/[ \t]*{name}[ \t]*>", re.I),
    )


THINK = tag_patterns("think")


def blocks(
    text: str, tags: tuple[re.Pattern[str], re.Pattern[str]]
) -> tuple[list[str], list[tuple[int, int]]]:
    """Inner texts of closed ``<tag>...</tag>`` blocks and their outer spans.

    Linear: each search resumes where the previous one stopped, and an unclosed tag ends it.
    """
    opening, closing = tags
    inner: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while (o := opening.search(text, pos)) is not None:
        c = closing.search(text, o.end())
        if c is None:
            break
        inner.append(text[o.end() : c.start()])
        spans.append((o.start(), c.end()))
        pos = c.end()
    return inner, spans


def cut(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the given (sorted, disjoint) spans removed."""
    parts, pos = [], 0
    for start, end in spans:
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def split_think(text: str) -> tuple[str | None, str]:
    """Separate the reasoning from the rest: returns (thought, rest).

    One block counts: the one ended by the first ``</think>``. Its ``<think>`` may be missing
    when the chat template opened the block in the prompt (Qwen3 thinking models); text before
    an opening tag stays in the rest. With no ``</think>`` at all, an output that starts with
    ``<think>`` loses just the tag (the reasoning was cut off, but an action may follow).
    Think tags anywhere else are plain text, so an answer may mention them.
    """
    opening, closing = THINK
    close = closing.search(text)
    if close is None:
        lead = _LEADING_THINK.match(text)
        return None, text[lead.end() :] if lead else text
    head = text[: close.start()]
    found = opening.search(head)
    thought, before = (head, "") if found is None else (head[found.end() :], head[: found.start()])
    return thought.strip() or None, before + text[close.end() :]


_LEADING_THINK = re.compile(r"\s*<[ \t]*think[ \t]*>", re.I)


# --- literals -----------------------------------------------------------------------------

_JSON_NAMES = {"true": True, "false": False, "null": None}


def literal(node: ast.AST) -> Any:
    """The value of a literal expression node; ValueError for anything that is not one.

    Accepted: str, int, float, bool, None (also JSON's true/false/null), signed numbers,
    lists, tuples (read as lists) and dicts of these. Names, attributes, calls, f-strings,
    operators, lambdas and comprehensions are refused.
    """
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, str | int | float | bool):
            return node.value
        raise ValueError(f"{type(node.value).__name__} values are not allowed")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = node.operand.value if isinstance(node.operand, ast.Constant) else None
        if isinstance(operand, bool) or not isinstance(operand, int | float):
            raise ValueError("a sign may only precede a number")
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.List | ast.Tuple):
        return [literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("'**' is not allowed")
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            assert key is not None
            name = literal(key)
            if isinstance(name, list):
                raise ValueError("a list cannot be a key")
            out[name] = literal(value)
        return out
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    raise ValueError(f"{describe_node(node)} is not a literal")


def describe_node(node: ast.AST) -> str:
    """A short description of an expression, for error messages."""
    kinds = {
        ast.Name: "the name",
        ast.Attribute: "the attribute access",
        ast.Call: "the call",
        ast.JoinedStr: "the f-string",
        ast.Lambda: "the lambda",
        ast.BinOp: "the expression",
        ast.Subscript: "the subscript",
    }
    kind = next((v for k, v in kinds.items() if isinstance(node, k)), "the expression")
    try:
        code = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every parsed node
        code = type(node).__name__
    if len(code) > 60:
        code = code[:57] + "..."
    return f"{kind} `{code}`"


_JSON_TOKEN = re.compile(r'\\.|"|,(?=\s*[}\]])', re.S)


def drop_trailing_commas(text: str) -> str:
    """``{"a": 1,}`` -> ``{"a": 1}``, leaving string contents alone. One linear pass."""
    parts: list[str] = []
    pos = 0
    in_string = False
    for token in _JSON_TOKEN.finditer(text):
        mark = token.group()
        if mark == '"':
            in_string = not in_string
        elif mark == "," and not in_string:
            parts.append(text[pos : token.start()])
            pos = token.end()
    parts.append(text[pos:])
    return "".join(parts)


def load_json_like(text: str) -> Any:
    """Read one JSON value; retry without trailing commas, then as a Python literal (single
    quotes, True/False/None). Raises ValueError with JSON's own complaint."""
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("the JSON is nested too deeply") from exc
    except ValueError as exc:  # JSONDecodeError, or an integer with too many digits
        first = exc
    repaired = drop_trailing_commas(text)
    if repaired != text:
        try:
            return json.loads(repaired)
        except (ValueError, RecursionError):
            pass
    try:
        return literal(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    if isinstance(first, json.JSONDecodeError):
        raise ValueError(
            f"invalid JSON ({first.msg} at line {first.lineno} column {first.colno})"
        ) from first
    raise ValueError(f"invalid JSON ({first})") from first


_FENCE_OPENING = re.compile(r"`{3,}[\w+-]*[ \t]*\n?")


def strip_fence(text: str) -> str:
    """Remove a ```json ... ``` wrapper around a block, if there is one."""
    stripped = text.strip()
    opening = _FENCE_OPENING.match(stripped)
    if opening is None:
        return stripped
    body = stripped[opening.end() :]
    if body.endswith("```"):
        body = body.rstrip("`")
    return body.strip()


def drop_fence_opening(text: str) -> str:
    """Prose before a fenced call, without the fence's opening line (```python)."""
    head, _, last = text.rstrip().rpartition("\n")
    return head if _FENCE_OPENING.fullmatch(last.strip()) else text


# --- typed arguments ----------------------------------------------------------------------


def type_name(value: Any) -> str:
    names = {str: "a string", bool: "a boolean", list: "a list", dict: "an object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def coordinate(value: Any, name: str) -> float | int:
    """A coordinate must be a finite number: strings such as "412" are refused so that the
    model learns to write numbers (the same rule in every format)."""
    if isinstance(value, str):
        raise InvalidCoordinates(
            f'{name} must be a number, not the string {value[:40]!r}: write 412, not "412"'
        )
    if not is_number(value):
        raise InvalidCoordinates(f"{name} must be a number, got {type_name(value)}")
    if not math.isfinite(value):
        raise InvalidCoordinates(f"{name} must be a finite number, got {value}")
    return value


def point(x: Any, y: Any, space: CoordSpace) -> tuple[float | int, float | int]:
    """Check a point's types and the range that does not depend on the page: never negative,
    and within 0-1000 for normalized coordinates. Viewport bounds are checked later."""
    px, py = coordinate(x, "x"), coordinate(y, "y")
    if px < 0 or py < 0:
        raise InvalidCoordinates(f"coordinates ({px:g}, {py:g}) must not be negative")
    if space is CoordSpace.NORM1000 and (px > NORM_RANGE or py > NORM_RANGE):
        raise InvalidCoordinates(
            f"coordinates ({px:g}, {py:g}) must lie within 0-{NORM_RANGE} on both axes"
        )
    return px, py


def integer(value: Any, name: str) -> int:
    """An integer (an integral float such as 3.0 is accepted; strings are not)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidActionError(f"{name} must be an integer, got {type_name(value)}")
    return value


def string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidActionError(f"{name} must be a string, got {type_name(value)}")
    return value


def boolean(value: Any, name: str) -> bool:
    """true/false (0 and 1 are accepted too)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise InvalidActionError(f"{name} must be true or false, got {type_name(value)}")


def number(value: Any, name: str) -> float | int:
    if not is_number(value) or not math.isfinite(value):
        raise InvalidActionError(f"{name} must be a finite number, got {type_name(value)}")
    return value


def build(fields: dict[str, Any], hint: str) -> Action:
    """``action_from_dict`` with the expected format appended to any error."""
    try:
        return action_from_dict(fields)
    except InvalidActionError as exc:
        raise with_hint(exc, hint) from exc


# --- rendering ----------------------------------------------------------------------------


def num(value: float | int) -> int | float:
    """412.0 -> 412 so that rendered numbers look the way models write them."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def fence(body: str) -> str:
    """Wrap ``body`` in a code fence longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}\n{body}\n{ticks}"


def require_space(action: Action, space: CoordSpace, fmt: str) -> None:
    """Rendering a point is only faithful if the action uses the space the parser assumes."""
    if getattr(action, "x", None) is not None and action.space is not space:  # type: ignore[union-attr]
        raise ValueError(
            f"{fmt} text is read in {space.value} coordinates, but the action uses "
            f"{action.space.value}; pass coord_space={action.space.value!r}"  # type: ignore[union-attr]
        )
