"""The ``compact`` template: a step in a few hundred tokens, for small models trained from
scratch on a CPU.

    system     three lines: what to do, the commands, the reply format
    user       the objective, the page (a pruned accessibility tree), the last few actions
    assistant  one bare command: ``click [4]``, ``type [2] [Thaddeus]``, ``stop [42]``

The commands are BrowserAgent's bracket syntax (``parsing.browseragent``), without the
``<think>`` reasoning or the code fence: a tiny model spends its few parameters on the action.
The tree is pruned: a StaticText line that repeats the name of the element above it (a
checkbox's label, a link's text) goes, and the tree stops after ``max_tree_lines`` lines, each
cut at ``max_line_chars``. A MiniWoB++ step (instruction, a handful of elements) is then about
100-200 tokens of page and 250-400 in all with a byte-level tokenizer of a few thousand merges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from webdojo.actions import Action
from webdojo.history import Step
from webdojo.observation import AxTreeMode, Observation
from webdojo.parsing import ParseFormat
from webdojo.parsing.browseragent import command
from webdojo.prompts.base import Message, PromptTemplate, step_errors
from webdojo.tasks.schema import Task

SYSTEM = (
    "You control a web page to reach the objective, one command per reply.\n"
    "Commands: click [id], type [id] [text], select [id] [option], press [key], "
    "scroll [down|up], go_back, stop [answer].\n"
    "Reply with the command only, ids from the page's [id] marks."
)
_NAME = re.compile(r"'(.*)'")


@dataclass(frozen=True)
class CompactTemplate(PromptTemplate):
    """A short single-turn prompt with a pruned tree (see the module docstring)."""

    name: ClassVar[str] = "compact"
    parse_format: ClassVar[ParseFormat] = ParseFormat.BROWSERAGENT
    screenshot: bool = False
    axtree: AxTreeMode = AxTreeMode.VIEWPORT
    max_images: int = 0
    max_tree_lines: int = 60
    max_line_chars: int = 120
    last_actions: int = 3  # the previous actions shown (the older ones are dropped)

    def system_prompt(self) -> str:
        return SYSTEM

    def render(self, action: Action) -> str:
        return self.action_text(action)

    def action_text(self, action: Action) -> str:
        try:
            return command(action)
        except ValueError:  # an action browseragent's syntax cannot say (coordinates...)
            return action.describe()

    def build_messages(
        self, task: Task, observation: Observation, history: list[Step], memory: Any
    ) -> list[Message]:
        lines = [f"Objective: {task.instruction}", "Page:", self.page(observation)]
        errors = step_errors(history, observation)
        recent = list(zip(history, errors, strict=True))[-self.last_actions :]
        if recent:
            lines.append("Done: " + "; ".join(self._done(step, error) for step, error in recent))
        return [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "\n".join(lines)},
        ]

    def page(self, observation: Observation) -> str:
        """The pruned accessibility tree (see the module docstring)."""
        kept: list[str] = []
        previous = ""
        for raw in (observation.axtree or "(empty page)").splitlines():
            line = raw.strip()
            name = _name(line)
            if line.startswith("StaticText") and name and name == previous:
                continue
            previous = name
            kept.append(line[: self.max_line_chars])
            if len(kept) == self.max_tree_lines:
                kept.append("...")
                break
        return "\n".join(kept)

    def _done(self, step: Step, error: Any) -> str:
        action = step.decision.action
        said = self.action_text(action) if action is not None else "(no command)"
        return said + (f" (failed: {error.code})" if error is not None else "")


def _name(line: str) -> str:
    match = _NAME.search(line)
    return match.group(1).strip() if match else ""
