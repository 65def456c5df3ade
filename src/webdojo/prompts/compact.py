"""The ``compact`` template: a step in a few hundred tokens, for small models trained from
scratch on a CPU.

    system     three lines: what to do, the commands, the reply format
    user       the objective, the page (a pruned accessibility tree), the last few actions
    assistant  the element acted on, then one bare command:
               ``<think>link 'ipsum' [4]</think>click [4]``, ``stop [42]``

The commands are BrowserAgent's bracket syntax (``parsing.browseragent``), without a code
fence; ``<think>`` holds only the page's line of the element acted on. That line is the
grounding a small model has to learn (which element the objective names), said before the id:
the page lists each element as ``role 'name' [id]``, so the reply can copy the name from the
objective, then the id that follows that name on the page, instead of finding the name and
looking back for its id in one step. The parser reads the command and keeps the line as the
thought. Measured on six MiniWoB++ pages, it raised held-out step accuracy from 56% to 62%
after 1,200 updates (with the trainer's prompt loss; docs/learning.md); ``ground=False`` gives
bare commands and ids first.

The named line decides the element (``resolve_names``, on by default). A small model learns to
copy the objective's name into ``<think>`` long before it learns to find the id after that
name on the page (runs E-G in docs/learning.md: the right name in 20 of 20 first replies on
click-button, an id that bears it in 5). So ``read`` takes the element from the page line the
thought names: the command's own id when that element bears the name, else the first element
on the page that does. A thought that names no line of the page leaves the command as written.
The reply text is kept as the model wrote it; only the action changes.

The tree is pruned: a StaticText line that repeats the name of the element above it (a
checkbox's label, a link's text) goes, and the tree stops after ``max_tree_lines`` lines, each
cut at ``max_line_chars`` but never before its id (a combobox's options can fill a line; a
reply must still find the id). A MiniWoB++ step (instruction, a handful of elements) is then about
100-200 tokens of page and 250-400 in all with a byte-level tokenizer of a few thousand merges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from webdojo.actions import Action
from webdojo.history import Step
from webdojo.observation import AxTreeMode, Observation
from webdojo.parsing import Parsed, ParseFormat
from webdojo.parsing.browseragent import command
from webdojo.prompts.base import Message, PromptTemplate, lists_element, step_errors
from webdojo.tasks.schema import Task

_TASK = (
    "You control a web page to reach the objective, one command per reply.\n"
    "Commands: click [id], type [id] [text], select [id] [option], press [key], "
    "scroll [down|up], go_back, stop [answer].\n"
)
SYSTEM = _TASK + "Reply with the command only, ids from the page's [id] marks."
SYSTEM_GROUNDED = (
    _TASK + "Reply with the page's line of the element in <think></think>, then the command."
)
# the facts the tree writes after a name (browser/dom.py); names are not escaped, so a name
# ends at the first quote that such a fact, the id or the line's end follows
_FACTS = r"(?: (?:value|checked|options|disabled|url): .*)?"
_NAME = re.compile(rf"'(.*?)'{_FACTS}$")
_MARKED = re.compile(rf"\[(\d+)\] (\S+(?: '.*?')?)({_FACTS})")  # [id] role 'name' facts
_GROUNDED = re.compile(rf"(\S+(?: '.*?')?) \[(\d+)\](?={_FACTS}$)")  # role 'name' [id]


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
    ground: bool = True  # element lines as role 'name' [id]; replies name their element first
    resolve_names: bool = True  # a grounded reply acts on the element its line names
    objective: Literal["first", "last"] = "first"  # where the user turn says it

    def system_prompt(self) -> str:
        return SYSTEM_GROUNDED if self.ground else SYSTEM

    def render(self, action: Action) -> str:
        return self.action_text(action)

    def reply(self, action: Action, observation: Observation) -> str:
        """The command, after the page's line of its element when grounding (see the module
        docstring) and that element is on the page as shown."""
        element = getattr(action, "element", None)
        line = self._element_line(observation, element) if self.ground else None
        command = self.render(action)
        return command if line is None else f"<think>{line}</think>{command}"

    def read(self, text: str, observation: Observation) -> Parsed:
        """The reply, acting on the element its ``<think>`` line names on the page as shown
        (see the module docstring)."""
        parsed = self.parse(text)
        element = getattr(parsed.action, "element", None)
        if not (self.ground and self.resolve_names and parsed.thought and element is not None):
            return parsed
        named = named_element(self.page(observation), parsed.thought, element)
        if named is None or named == element:
            return parsed
        return replace(parsed, action=parsed.action.model_copy(update={"element": named}))

    def shows(self, observation: Observation, element: int) -> bool:
        """Whether the pruned page lists ``element`` (in view, within ``max_tree_lines``);
        an observation captured without a tree has nothing to judge by."""
        if observation.axtree is None:
            return True
        page = self.page(observation)
        if self.ground:
            return element_line(page, element) is not None
        return lists_element(page, element)

    def _element_line(self, observation: Observation, element: int | None) -> str | None:
        return None if element is None else element_line(self.page(observation), element)

    def action_text(self, action: Action) -> str:
        try:
            return command(action)
        except ValueError:  # an action browseragent's syntax cannot say (coordinates...)
            return action.describe()

    def build_messages(
        self, task: Task, observation: Observation, history: list[Step], memory: Any
    ) -> list[Message]:
        """The objective, the page and the last actions; ``objective="last"`` says the
        objective after them, right before the reply, where a value to copy is a few tokens
        back instead of a whole page (on task families it did not help ``small``: run FC in
        docs/learning.md)."""
        objective = f"Objective: {task.instruction}"
        lines = ["Page:", self.page(observation)]
        errors = step_errors(history, observation)
        recent = list(zip(history, errors, strict=True))[-self.last_actions :]
        if recent:
            lines.append("Done: " + "; ".join(self._done(step, error) for step, error in recent))
        lines = [objective, *lines] if self.objective == "first" else [*lines, objective]
        return [
            {"role": "system", "content": self.system_prompt()},
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
            kept.append(self._cut(_id_last(line) if self.ground else line))
            if len(kept) == self.max_tree_lines:
                kept.append("...")
                break
        return "\n".join(kept)

    def _cut(self, line: str) -> str:
        """``line`` cut at ``max_line_chars``, never inside its element's head: a reply must
        be able to name the id (a combobox's options can fill a line)."""
        head = _GROUNDED.match(line) if self.ground else None  # ungrounded lines start with it
        return line[: max(self.max_line_chars, head.end() if head else 0)]

    def _done(self, step: Step, error: Any) -> str:
        action = step.decision.action
        said = self.action_text(action) if action is not None else "(no command)"
        return said + (f" (failed: {error.code})" if error is not None else "")


def _name(line: str) -> str:
    match = _NAME.search(line)
    return match.group(1).strip() if match else ""


def element_line(page: str, element: int) -> str | None:
    """The line of a grounded ``page`` that lists ``element``, up to its id (``role 'name'
    [id]``), or None when the page as shown does not list it."""
    for head, ident in _heads(page):
        if ident == element:
            return f"{head} [{ident}]"
    return None


def named_element(page: str, thought: str, element: int) -> int | None:
    """The element a grounded reply's ``thought`` (``role 'name' [id]``) names on ``page``:
    ``element`` (the command's id) when it bears that role and name, else the first element
    that does; None when the thought is no such line or no element bears it."""
    match = _GROUNDED.fullmatch(thought.strip())
    if match is None:
        return None
    bearers = [ident for head, ident in _heads(page) if head == match.group(1)]
    if not bearers:
        return None
    return element if element in bearers else bearers[0]


def _heads(page: str) -> list[tuple[str, int]]:
    """``(role 'name', id)`` of each element line of a grounded page, in page order."""
    matches = (_GROUNDED.match(line) for line in page.splitlines())
    return [(m.group(1), int(m.group(2))) for m in matches if m]


def _id_last(line: str) -> str:
    """``[4] checkbox 'ZrLIee' checked: false`` -> ``checkbox 'ZrLIee' [4] checked: false``."""
    match = _MARKED.fullmatch(line)
    if match is None:
        return line
    ident, head, tail = match.groups()
    return f"{head} [{ident}]{tail}"
