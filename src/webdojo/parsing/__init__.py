"""Model text -> Action, for each prompt format. Text is read, never executed.

    parse(text, fmt, coord_space=None) -> Parsed(action, thought, memory, raw)
    render(action, fmt, coord_space=None) -> str      # parse(render(a, f), f).action == a

Formats (``ParseFormat``), each documented in its module:

* ``qwen`` (``parsing/qwen.py``; its arguments in ``qwen_arguments.py``): WebGym / Qwen
  ``computer_use`` tool calls, with the WebGym memory prompt's Memory / Progress / Intention /
  Action fields.
* ``browseragent`` (``parsing/browseragent.py``): ``<think>``, ``<conclusion>``, and a fenced
  ``command [arg] [arg]``.
* ``funcall`` (``parsing/funcall.py``): one Python-style call, ``click(412, 230)``.

Errors. ``parse`` raises ``errors.ParseError`` when the text cannot be read as one action, and an
``errors.InvalidActionError`` subclass (``InvalidCoordinates``, ``BadKey``, ``BadUrl``...) when
it reads but the action is invalid. Every message ends with the format expected, so it can be
shown to the model as is.

Rules shared by all formats:

* **Size.** Output longer than ``MAX_INPUT_CHARS`` (256,000 characters) is refused at once with
  a ParseError. Anything shorter is parsed in about linear time (scans resume where the last
  one stopped; no regular expression that can backtrack catastrophically runs over model
  text), so 100 KB of reasoning before an action at the end parses normally, in milliseconds.
* **Empty output** (or only whitespace) is a ParseError.
* **One action per step.** Two tool calls, two fenced commands or two calls are a ParseError.
* **Coordinates are numbers.** ``"412"`` is refused with ``InvalidCoordinates`` in every
  format, as are NaN, infinities, negative values and, in 0-1000 space, values above 1000.
  The viewport bounds are checked later by ``actions.check_action``. Other arguments of the
  wrong type (``"text": 12345``, ``element="5"``) are an ``InvalidActionError``.
* **Coordinate space.** ``coord_space`` defaults to NORM1000 (0-1000) for qwen and PIXEL for
  funcall; browseragent has no coordinates.
* **Reasoning.** ``<think>`` blocks are removed before looking for the action (an action
  quoted in the reasoning does not count) and become ``Parsed.thought``. A ``</think>`` with no
  opening tag marks everything before it as the thought (chat templates that open the block
  in the prompt).
"""

from __future__ import annotations

from webdojo.actions import Action, CoordSpace

from . import browseragent, funcall, qwen
from ._helpers import MAX_INPUT_CHARS
from .types import Parsed, ParseFormat

__all__ = [
    "MAX_INPUT_CHARS",
    "ParseFormat",
    "Parsed",
    "default_coord_space",
    "format_hint",
    "parse",
    "render",
]


def default_coord_space(fmt: ParseFormat | str) -> CoordSpace | None:
    """The space a format's numbers are read in when ``coord_space`` is not given."""
    match ParseFormat(fmt):
        case ParseFormat.QWEN:
            return CoordSpace.NORM1000
        case ParseFormat.FUNCALL:
            return CoordSpace.PIXEL
        case _:
            return None


def format_hint(fmt: ParseFormat | str, *, coord_space: CoordSpace | None = None) -> str:
    """The one-line "Expected format: ..." sentence that ends every error message."""
    match ParseFormat(fmt):
        case ParseFormat.QWEN:
            return qwen.hint(coord_space or CoordSpace.NORM1000)
        case ParseFormat.BROWSERAGENT:
            return browseragent.HINT
        case _:
            return funcall.HINT


def parse(text: str, fmt: ParseFormat | str, *, coord_space: CoordSpace | None = None) -> Parsed:
    """Read one step of model output. Raises ParseError or an InvalidActionError subclass;
    ValueError for an unknown ``fmt``."""
    match ParseFormat(fmt):
        case ParseFormat.QWEN:
            return qwen.parse(text, coord_space or CoordSpace.NORM1000)
        case ParseFormat.BROWSERAGENT:
            return browseragent.parse(text)
        case _:
            return funcall.parse(text, coord_space or CoordSpace.PIXEL)


def render(action: Action, fmt: ParseFormat | str, *, coord_space: CoordSpace | None = None) -> str:
    """Canonical model text for ``action`` such that ``parse(render(a, f), f).action == a``
    (with the same ``coord_space``). ValueError when the format cannot express the action:
    qwen has no element ids and no select; browseragent has no coordinates, double_click,
    wait, scroll amounts or scroll targets."""
    match ParseFormat(fmt):
        case ParseFormat.QWEN:
            return qwen.render(action, coord_space or CoordSpace.NORM1000)
        case ParseFormat.BROWSERAGENT:
            return browseragent.render(action)
        case _:
            return funcall.render(action, coord_space or CoordSpace.PIXEL)
