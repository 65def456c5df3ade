"""The BrowserAgent format: reasoning in ``<think>``, memory in ``<conclusion>``, then one
bracketed command in a code fence::

    <think>The search box is [331]. <conclusion>Nothing found yet.</conclusion></think>
    ```type [331] [Princes in the Tower] [1]```

Commands (ids are integers from the accessibility tree)::

    click [id] [content]            hover [id] [content]       (content is optional, unused)
    type [id] [text] [0|1]          the last group says whether to press Enter; default 1
    select [id] [option]            press [key_comb]           scroll [down|up]
    new_tab [url]?                  tab_focus [index]          close_tab
    goto [url]                      go_back                    go_forward
    stop [answer]

Reading rules:

* ``<think>`` is optional; without it ``Parsed.thought`` is None. ``<conclusion>`` blocks may sit
  inside or after ``<think>``; their texts, joined, become ``Parsed.memory``. Fences and
  commands inside ``<think>`` and ``<conclusion>`` are ignored.
* The command is taken from a fence (three or more backticks, with or without a language
  tag, on one line or several). An unclosed final fence runs to the end of the text.
* Without any fenced command, a bare command on the last non-empty line is accepted
  (optionally after ``Action:``), as in the paper's own final ``stop [King Edward IV]``.
* Exactly one command: two fenced commands, or two command lines in one fence, are an error.
* Bracketed text is taken greedily: the last argument runs from its ``[`` to the last ``]``,
  so ``stop [Ostava (Bulgaria) [citation]]`` answers ``Ostava (Bulgaria) [citation]``. Text is
  kept exactly as written (no trimming); ids, keys, URLs and directions are trimmed.
* Arguments must be in brackets: ``click 21`` is refused with a pointer to ``click [21]``.
"""

from __future__ import annotations

import re

from webdojo.actions import (
    Action,
    Click,
    CloseTab,
    GoBack,
    GoForward,
    Goto,
    Hover,
    NewTab,
    Press,
    Scroll,
    Select,
    Stop,
    TabFocus,
    Type,
)

from ._helpers import (
    THINK,
    blocks,
    build,
    check_text,
    cut,
    fail,
    fence,
    split_think,
    tag_patterns,
)
from .types import Parsed

COMMANDS = (
    "click",
    "hover",
    "type",
    "select",
    "press",
    "scroll",
    "new_tab",
    "tab_focus",
    "close_tab",
    "goto",
    "go_back",
    "go_forward",
    "stop",
)
HINT = (
    "Expected format: <think>your reasoning</think>, then exactly one command in a code fence, "
    "e.g. ```click [12] [Submit]``` or ```type [21] [search text] [1]```; commands: "
    + ", ".join(COMMANDS)
)
CONCLUSION = tag_patterns("conclusion")
_RUNS = re.compile(r"`{3,}")
_WORD = re.compile(r"[A-Za-z_]+")
_COMMAND_LINE = re.compile(r"[ \t]*([A-Za-z_]+)[ \t]*(?:\[|$)")
_INFO = re.compile(r"[\w+#.-]{0,20}")
_ID = re.compile(r"\[[ \t]*(-?\d+)[ \t]*\]")
_FIRST_GROUP = re.compile(r"\[([^\]\n]{0,40})")
_ENTER_FLAG = re.compile(r"\[[ \t]*(?:press_enter_after[ \t]*=[ \t]*)?([01])[ \t]*\][ \t\r\n]*$")
_LEADER = re.compile(r"^(?:[-*>][ \t]*)?(?:\**action\**[ \t]*:\**[ \t]*)?", re.I)


def parse(text: str) -> Parsed:
    check_text(text, HINT)
    conclusions, spans = blocks(text, CONCLUSION)
    memory = "\n".join(c.strip() for c in conclusions if c.strip()) or None
    thought, rest = split_think(cut(text, spans))
    command = _find_command(rest)
    return Parsed(action=_read_command(command), thought=thought, memory=memory, raw=text)


# --- locating the command -----------------------------------------------------------------


def fenced_blocks(text: str) -> list[str]:
    """Contents of code fences, in order. Linear: backtick runs are paired left to right, a
    closing run being the next one at least as long as the opening one."""
    runs = list(_RUNS.finditer(text))
    found: list[str] = []
    i = 0
    while i < len(runs):
        opening = runs[i]
        width = len(opening.group())
        j = i + 1
        while j < len(runs) and len(runs[j].group()) < width:
            j += 1
        end = runs[j].start() if j < len(runs) else len(text)
        found.append(_drop_info_string(text[opening.end() : end]))
        i = j + 1
    return found


def _drop_info_string(content: str) -> str:
    """``python\\nclick [3]`` -> ``click [3]``; a one-line fence keeps its whole text."""
    first, newline, body = content.partition("\n")
    tag = first.strip()
    if newline and _INFO.fullmatch(tag) and tag.lower() not in COMMANDS:
        return body
    return content


def _first_word(text: str) -> str:
    match = _WORD.match(text.lstrip())
    return match.group().lower() if match else ""


def _find_command(rest: str) -> str:
    fences = [f.strip() for f in fenced_blocks(rest)]
    commands = [f for f in fences if _first_word(f) in COMMANDS]
    if len(commands) > 1:
        raise fail(f"found {len(commands)} fenced commands; issue exactly one action", HINT)
    if commands:
        lines = commands[0].split("\n")[1:]
        extra = [m for line in lines if (m := _COMMAND_LINE.match(line))]
        if any(m.group(1).lower() in COMMANDS for m in extra):
            raise fail("the code fence holds more than one command; issue exactly one", HINT)
        return commands[0]
    bare = _last_line(rest)
    if _first_word(bare) in COMMANDS:
        return bare
    if fences:
        word = _first_word(fences[-1]) or fences[-1][:30]
        if not word:
            raise fail("the code fence holds no command", HINT)
        raise fail(f"unknown command {word!r} in the code fence", HINT)
    raise fail("no command found", HINT)


def _last_line(text: str) -> str:
    """The last non-empty line, without an ``Action:`` lead or surrounding backticks."""
    stripped = text.rstrip()
    line = stripped[stripped.rfind("\n") + 1 :].strip()
    line = _LEADER.sub("", line, count=1).strip()
    if line.startswith("`") and line.endswith("`") and len(line) > 1:
        line = line.strip("`").strip()
    return line


# --- reading the command ------------------------------------------------------------------


def _read_command(command: str) -> Action:
    text = command.strip()
    match = _WORD.match(text)
    assert match is not None  # _find_command only returns text starting with a command
    name = match.group().lower()
    args = text[match.end() :].strip()
    if name in ("go_back", "go_forward", "close_tab"):
        return build({"type": name}, HINT)
    if name in ("click", "hover"):
        element, _ = _take_id(name, args)
        return build({"type": name, "element": element}, HINT)
    if name == "type":
        return _type(args)
    if name == "select":
        element, rest = _take_id(name, args)
        option = _greedy(rest, name, "option", required=True)
        return build({"type": "select", "element": element, "option": option}, HINT)
    if name == "press":
        keys = _greedy(args, name, "key combination", required=True)
        return build({"type": "press", "keys": keys}, HINT)
    if name == "scroll":
        direction = _greedy(args, name, "direction", required=True) or ""
        direction = re.sub(r"^\s*direction\s*=\s*", "", direction).strip().lower()
        return build({"type": "scroll", "direction": direction}, HINT)
    if name == "tab_focus":
        index, _ = _take_id(name, args, what="tab index")
        return build({"type": "tab_focus", "index": index}, HINT)
    if name in ("goto", "new_tab"):
        url = _greedy(args, name, "URL", required=name == "goto")
        return build({"type": name, "url": url.strip() if url else None}, HINT)
    answer = _greedy(args, name, "answer", required=False)  # stop
    return build({"type": "stop", "answer": answer or ""}, HINT)


def _take_id(name: str, args: str, what: str = "element id") -> tuple[int, str]:
    match = _ID.match(args)
    if match is None:
        group = _FIRST_GROUP.match(args)
        if group is None:
            raise fail(f"{name} needs the {what} in brackets, e.g. {name} [12]", HINT)
        raise fail(f"the {what} must be an integer, e.g. {name} [12]; got [{group[1]}]", HINT)
    return int(match.group(1)), args[match.end() :].strip()


def _greedy(args: str, name: str, what: str, required: bool) -> str | None:
    """The text between the first ``[`` and the last ``]``."""
    body = args.strip()
    if not body:
        if required:
            raise fail(f"{name} needs the {what} in brackets, e.g. {name} [...]", HINT)
        return None
    if not (body.startswith("[") and body.endswith("]")):
        raise fail(f"put the {what} of {name} in brackets: {name} [{body[:40]}]", HINT)
    return body[1:-1]


def _type(args: str) -> Action:
    element, rest = _take_id("type", args)
    enter = True
    flag = _ENTER_FLAG.search(rest)
    if flag is not None and rest[: flag.start()].strip():
        enter = flag.group(1) == "1"
        rest = rest[: flag.start()]
    if not rest.strip():
        raise fail(f"type needs the text in brackets: type [{element}] [your text] [1]", HINT)
    text = _greedy(rest, "type", "text", required=True)
    return build({"type": "type", "element": element, "text": text, "enter": enter}, HINT)


# --- rendering ----------------------------------------------------------------------------


def render(action: Action) -> str:
    """The canonical fenced command for ``action``; ValueError if the format cannot say it
    (coordinates, double_click, wait, scroll amounts or targets, typing without an id, and
    text that would read as something else: a ``</think>``, a ``<conclusion>`` block, or a
    line that starts with another command)."""
    text = command(action)
    later_lines = text.split("\n")[1:]
    if (
        THINK[1].search(text)
        or blocks(text, CONCLUSION)[1]
        or any(
            _first_word(m.group(1)) in COMMANDS for m in map(_COMMAND_LINE.match, later_lines) if m
        )
    ):
        raise ValueError(f"the browseragent format cannot carry this text: {action.describe()}")
    return fence(text)


def command(action: Action) -> str:
    """The bare command, e.g. ``type [21] [hello] [1]``."""
    if getattr(action, "x", None) is not None:
        raise ValueError(f"the browseragent format has no coordinates: {action.describe()}")
    match action:
        case Click(element=int(e)) | Hover(element=int(e)):
            return f"{action.type} [{e}]"
        case Type(element=int(e)):
            return f"type [{e}] [{action.text}] [{int(action.enter)}]"
        case Select():
            return f"select [{action.element}] [{action.option}]"
        case Press():
            return f"press [{action.keys}]"
        case Scroll(amount=None, element=None):
            return f"scroll [{action.direction}]"
        case NewTab():
            return f"new_tab [{action.url}]" if action.url else "new_tab"
        case TabFocus():
            return f"tab_focus [{action.index}]"
        case Goto():
            return f"goto [{action.url}]"
        case CloseTab() | GoBack() | GoForward():
            return action.type
        case Stop():
            return f"stop [{action.answer}]"
    raise ValueError(f"the browseragent format cannot express {action.describe()}")
