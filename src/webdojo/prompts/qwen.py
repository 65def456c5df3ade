"""Qwen ``computer_use`` templates: ``qwen`` (the plain tool prompt) and ``webgym_memory``.

Structure as in Qwen-VL's computer-use prompt and WebGym (appendix E.1): the system message
declares one ``computer_use`` function inside ``<tools>`` with a JSON schema (an ``action``
enum plus its arguments; points on a 0-1000 grid); the model replies with a one-sentence
``Action:`` and a single ``<tool_call>`` block. The memory variant adds, before the Action
line, Memory (JSON, append-only), Progress (JSON, editable) and Intention (a Progress key).

The conversation is multi-turn: one user turn per observation, the model's earlier replies as
assistant turns; only the last ``max_images`` screenshots stay as images.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from webdojo.action_docs import action_doc, action_summary
from webdojo.actions import Action
from webdojo.parsing import ParseFormat, render
from webdojo.prompts.chat import MultiTurnTemplate

# The qwen action name -> (our action, what its arguments mean in this format).
QWEN_ACTIONS: dict[str, tuple[str, str]] = {
    "left_click": ("click", "Needs `coordinate`."),
    "double_click": ("double_click", "Needs `coordinate`."),
    "mouse_move": ("hover", "Needs `coordinate`."),
    "type": (
        "type",
        "`coordinate` names the field: it is clicked and cleared first, so no separate click "
        "is needed. Enter is pressed afterwards unless `enter` is false.",
    ),
    "key": ("press", 'Put the keys in `keys`, e.g. ["ctrl", "a"].'),
    "scroll": ("scroll", "Give `direction`."),
    "wait": ("wait", "Give the seconds in `time`."),
    "go_back": ("go_back", ""),
    "go_forward": ("go_forward", ""),
    "navigate": (
        "goto",
        "Give the full `url`, starting with https://. When a CAPTCHA or bot check blocks a "
        "page, do not try to solve it: navigate to another site that can serve the task.",
    ),
    "answer": ("stop", ""),
}
WEBGYM_ACTIONS = ("left_click", "type", "scroll", "wait", "go_back", "navigate", "answer")

_ARGUMENTS: dict[str, tuple[dict[str, Any], set[str]]] = {
    "coordinate": (
        {
            "type": "array",
            "description": "[x, y] on the 0-1000 grid: x counts from the left edge, y from the "
            "top. Required by the pointer actions; for type it picks the input field.",
            "items": {"type": "integer", "minimum": 0, "maximum": 1000},
            "minItems": 2,
            "maxItems": 2,
        },
        {"left_click", "double_click", "mouse_move", "type"},
    ),
    "text": (
        {"type": "string", "description": "What to type (type) or the final answer (answer)."},
        {"type", "answer"},
    ),
    "enter": (
        {"type": "boolean", "description": "type only: press Enter after the text (default true)."},
        {"type"},
    ),
    "keys": (
        {"type": "array", "items": {"type": "string"}, "description": "Keys held together (key)."},
        {"key"},
    ),
    "direction": (
        {"type": "string", "enum": ["up", "down"], "description": "Which way to scroll (scroll)."},
        {"scroll"},
    ),
    "time": ({"type": "number", "description": "Seconds to wait (wait)."}, {"wait"}),
    "url": (
        {"type": "string", "description": "Address to open, starting with https:// (navigate)."},
        {"navigate"},
    ),
}


def computer_use_tool(actions: tuple[str, ...]) -> dict[str, Any]:
    """The ``computer_use`` function declaration, built from the action docstrings."""
    lines = []
    for name in actions:
        ours, note = QWEN_ACTIONS[name]
        doc = action_doc(ours) if name == "answer" else action_summary(ours)
        doc = doc.replace("`answer`", "`text`")
        lines.append(f"* `{name}`: {doc} {note}".rstrip())
    properties: dict[str, Any] = {
        "action": {
            "type": "string",
            "description": "Which action to take:\n" + "\n".join(lines),
            "enum": list(actions),
        }
    }
    for arg, (schema, users) in _ARGUMENTS.items():
        if users & set(actions):
            properties[arg] = schema
    return {
        "name": "computer_use",
        "description": (
            "Operate a web browser with the mouse and keyboard. Points are given on a "
            "1000x1000 grid laid over the screenshot, whatever its real size.\n"
            "* Downloading files and playing videos are not possible.\n"
            "* The work is browsing and navigating web pages, nothing else."
        ),
        "parameters": {"type": "object", "properties": properties, "required": ["action"]},
    }


def tools_block(actions: tuple[str, ...]) -> str:
    """The ``# Tools`` section: the declaration in ``<tools>`` and how to call it."""
    declaration = json.dumps(computer_use_tool(actions), ensure_ascii=False)
    return (
        "# Tools\n\n"
        "You have functions you can call to carry out the user's request. Their signatures "
        "are listed between <tools></tools> tags:\n"
        f"<tools>\n{declaration}\n</tools>\n\n"
        "To call a function, write a JSON object with its name and arguments between "
        "<tool_call></tool_call> tags:\n"
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


PLAIN_FORMAT = """# How to reply

Each reply has exactly two parts, in this order:
1) Action: one short sentence saying what you will do on the page next.
2) One <tool_call>...</tool_call> block holding only the JSON {"name": "computer_use", "arguments": {...}}.

Write nothing before, between or after these two parts."""

MEMORY_FORMAT = """# How to reply

Each reply has exactly five parts, in this order:
1) Memory: a JSON object of facts worth keeping for later steps, including what this step found.
2) Progress: a JSON object that splits the task into subtasks, each marked "finished" or "not finished", updated with this step.
3) Intention: the Progress key of the subtask this step works on.
4) Action: one short sentence saying what you will do on the page for that subtask.
5) One <tool_call>...</tool_call> block holding only the JSON {"name": "computer_use", "arguments": {...}}.

Rules:
- Memory and Progress must be valid JSON objects.
- Memory only grows: copy the earlier entries unchanged and add new ones; never edit or drop an entry.
- Progress may change: split a subtask into finer ones when that makes the next step clearer, and mark subtasks finished as you complete them.
- Example task: "Find the opening hours and the phone number of two libraries and say which opens earlier."
  Memory example: {"Hours of library A": "9:00-17:00", "Phone of library A": "555-0100"}
  Progress example: {"Open the library A page": "finished", "Note hours and phone of library A": "finished", "Note hours and phone of library B": "not finished", "Compare opening times": "not finished"}
  Intention example: "Note hours and phone of library B"
- Write nothing outside the five parts."""


@dataclass(frozen=True)
class QwenTemplate(MultiTurnTemplate):
    """Screenshots in, ``Action:`` sentence + ``<tool_call>`` out (Qwen-VL / WebGym)."""

    name: ClassVar[str] = "qwen"
    parse_format: ClassVar[ParseFormat] = ParseFormat.QWEN
    actions: tuple[str, ...] = WEBGYM_ACTIONS  # the enum offered; any of QWEN_ACTIONS
    reply_format: ClassVar[str] = PLAIN_FORMAT

    def __post_init__(self) -> None:
        super().__post_init__()
        unknown = set(self.actions) - set(QWEN_ACTIONS)
        if unknown:
            raise ValueError(f"unknown qwen actions: {', '.join(sorted(unknown))}")

    def action_text(self, action: Action) -> str:
        """History lines show just the arguments: ``{"action": "left_click", ...}``."""
        try:
            text = render(action, self.parse_format, coord_space=self.coord_space)
        except ValueError:
            return action.describe()
        call = json.loads(text[text.index("{") : text.rindex("}") + 1])
        return json.dumps(call["arguments"], ensure_ascii=False)

    def system_prompt(self) -> str:
        return f"You are a careful assistant that uses a web browser.\n\n{tools_block(self.actions)}\n\n{self.reply_format}"

    def instruction(self) -> str:
        return "Look at the screenshot and give the next action for the task."

    def memory_texts(self, memory: Any) -> list[str]:
        return []


@dataclass(frozen=True)
class WebGymMemoryTemplate(QwenTemplate):
    """The qwen tool with WebGym's Memory / Progress / Intention reply fields.

    Carried memory is ``{"memory": {...}, "progress": {...}, "intention": ...}``: Memory entries
    are appended (an existing key is never overwritten), Progress and Intention are the latest.
    """

    name: ClassVar[str] = "webgym_memory"
    reply_format: ClassVar[str] = MEMORY_FORMAT

    def update_memory(self, memory: Any, step_memory: Any) -> Any:
        carried = dict(memory or {"memory": {}, "progress": {}, "intention": None})
        if not isinstance(step_memory, dict):
            return carried
        facts = dict(carried["memory"])
        new = step_memory.get("memory")
        if isinstance(new, dict):
            for key, value in new.items():
                facts.setdefault(str(key), value)
        elif new:
            facts.setdefault(f"note {len(facts) + 1}", new)
        carried["memory"] = facts
        if step_memory.get("progress"):
            carried["progress"] = step_memory["progress"]
        if step_memory.get("intention"):
            carried["intention"] = step_memory["intention"]
        return carried

    def memory_texts(self, memory: Any) -> list[str]:
        if not memory:
            return ["Memory so far: {} (nothing recorded yet)"]
        out = [
            f"Memory so far (keep every entry): {json.dumps(memory['memory'], ensure_ascii=False)}"
        ]
        if memory.get("progress"):
            out.append(f"Progress so far: {json.dumps(memory['progress'], ensure_ascii=False)}")
        return out

    def instruction(self) -> str:
        return "Look at the screenshot and reply with Memory, Progress, Intention, Action and the tool call."
