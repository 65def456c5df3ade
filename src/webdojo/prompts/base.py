"""What every prompt template shares: the PromptTemplate base class and history helpers.

A template turns (task, current observation, past steps, carried memory) into chat messages for
one output format, and says how to read the reply (``parse_format``, ``coord_space``) and what
to capture (``observation_options``). Templates are stateless: memory is folded from the
decisions in the history (``fold_memory``), so one template can serve many episodes at once.

Screenshots are the expensive part of a prompt. Only the last ``max_images`` observations are
sent as images (the current one included); older steps become one text line each.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from webdojo.actions import ACTION_TYPES, Action, CoordSpace
from webdojo.history import Step
from webdojo.models.content import image_part, message
from webdojo.observation import AxTreeMode, ErrorInfo, Observation, ObservationOptions
from webdojo.parsing import Parsed, ParseFormat, parse, render
from webdojo.tasks.schema import Task

Message = dict[str, Any]


@dataclass(frozen=True)
class PromptTemplate(ABC):
    """Base class; subclasses set ``name``, ``parse_format`` and write the prompt text."""

    name: ClassVar[str]
    parse_format: ClassVar[ParseFormat]

    max_images: int = 3  # screenshots sent as images: the current one + the last k-1 steps
    screenshot: bool = True  # capture and send screenshots at all
    axtree: AxTreeMode = AxTreeMode.NONE  # accessibility-tree text in the observation
    max_history_lines: int = 40  # older steps beyond this are dropped from the text summary
    coord_space: CoordSpace | None = None  # how the reply's x, y are read (None: format default)

    def __post_init__(self) -> None:
        if self.max_images < 0:
            raise ValueError("max_images must be >= 0")
        object.__setattr__(self, "axtree", AxTreeMode(self.axtree))

    # --- what the environment should capture --------------------------------------------------

    def observation_options(self) -> ObservationOptions:
        return ObservationOptions(screenshot=self.screenshot, axtree=self.axtree)

    # --- prompt -------------------------------------------------------------------------------

    @abstractmethod
    def system_prompt(self) -> str: ...

    @abstractmethod
    def build_messages(
        self, task: Task, observation: Observation, history: list[Step], memory: Any
    ) -> list[Message]: ...

    def context(self, task: Task, observation: Observation, history: list[Step]) -> list[Message]:
        """The messages a policy sends at this step: memory folded from the history, then the
        prompt. The openai policy and the training exports both call this one method, so the
        context a model is trained on is the context it acts on."""
        return self.build_messages(task, observation, history, self.fold_memory(history))

    # --- reply --------------------------------------------------------------------------------

    def parse(self, text: str) -> Parsed:
        """Read a reply; raises ParseError / InvalidActionError like ``webdojo.parsing.parse``."""
        return parse(text, self.parse_format, coord_space=self.coord_space)

    def read(self, text: str, observation: Observation) -> Parsed:
        """A reply to ``observation``, read (raises like ``parse``). The policy calls this:
        a template whose replies name the element they act on may settle its id on the page."""
        return self.parse(text)

    def render(self, action: Action) -> str:
        """The action in this template's own syntax, or our generic form when it has none."""
        try:
            return render(action, self.parse_format, coord_space=self.coord_space)
        except ValueError:
            return action.describe()

    def reply(self, action: Action, observation: Observation) -> str:
        """What a model should answer to take ``action`` on ``observation``: the teacher's
        demonstrations are written with it. The action in this template's syntax, unless the
        template's replies say more about the page."""
        return self.render(action)

    def action_text(self, action: Action) -> str:
        """The action on one line, for history summaries."""
        return " ".join(self.render(action).split())

    def shows(self, observation: Observation, element: int) -> bool:
        """Whether a model given ``observation`` with this template can see ``element``'s id.
        A tree cut to the viewport lists only what is in view; without a tree (the template's
        or the observation's) there is nothing to judge by."""
        if self.axtree is AxTreeMode.NONE or observation.axtree is None:
            return True
        return lists_element(observation.axtree, element)

    # --- memory -------------------------------------------------------------------------------

    def update_memory(self, memory: Any, step_memory: Any) -> Any:
        """Memory after one more step (``step_memory`` is that step's ``Parsed.memory``).
        Templates without memory keep None."""
        return None

    def fold_memory(self, history: list[Step]) -> Any:
        memory: Any = None
        for step in history:
            memory = self.update_memory(memory, step.decision.memory)
        return memory


def lists_element(tree: str, element: int) -> bool:
    """Whether a tree in the ``[id] role 'name'`` form has a line for ``element``."""
    return re.search(rf"^\s*\[{element}\] ", tree, re.MULTILINE) is not None


# --- history helpers ---------------------------------------------------------------------------


def step_errors(history: list[Step], observation: Observation) -> list[ErrorInfo | None]:
    """How each past step ended: its own error (an unreadable reply) or the page's, which
    arrives with the following observation."""
    following = [s.observation for s in history[1:]] + [observation] if history else []
    return [s.decision.error or nxt.last_error for s, nxt in zip(history, following, strict=True)]


def split_history(history: list[Step], max_images: int) -> tuple[list[Step], list[Step]]:
    """(older steps shown as text, recent steps whose screenshots are still shown)."""
    keep = max(max_images - 1, 0)
    cut = len(history) - keep
    return history[: max(cut, 0)], history[max(cut, 0) :]


def error_text(error: ErrorInfo) -> str:
    return f"[{error.code}] {error.message}"


def summary_line(template: PromptTemplate, step: Step, error: ErrorInfo | None) -> str:
    """One past step as a line: what was done, where, and how it went."""
    action = step.decision.action
    did = template.action_text(action) if action is not None else "(no usable action)"
    line = f"Step {step.index + 1} on {step.observation.url}: {did}"
    return line + (f" -> failed: {error_text(error)}" if error else "")


def summary_lines(
    template: PromptTemplate, steps: list[Step], errors: list[ErrorInfo | None]
) -> list[str]:

    lines = [summary_line(template, s, e) for s, e in zip(steps, errors, strict=True)]
    if len(lines) > template.max_history_lines:
        dropped = len(lines) - template.max_history_lines
        lines = [f"({dropped} earlier steps not shown)", *lines[-template.max_history_lines :]]
    return lines


# --- observation pieces -----------------------------------------------------------------------


def page_header(observation: Observation) -> str:
    title = f' - "{observation.title}"' if observation.title else ""
    return f"Current page: {observation.url}{title}"


def tabs_text(observation: Observation) -> str:
    rows = [
        f"[{t.index}] {t.title or '(untitled)'} ({t.url}){' <- current' if t.active else ''}"
        for t in observation.tabs
    ]
    return "\n".join(rows) or "(none)"


def notices(observation: Observation, error: ErrorInfo | None) -> list[str]:
    """Things the model must hear about before acting again."""
    out = []
    if error is not None:
        out.append(f"Your previous action did not work: {error_text(error)}")
    out.extend(f"A page dialog was dismissed automatically: {d!r}" for d in observation.dialogs)
    for d in observation.downloads:
        if d.error is None:
            out.append(f"The page downloaded a file: {d.name!r} ({d.bytes} bytes)")
        else:
            out.append(f"The page's download {d.name!r} was refused: {error_text(d.error)}")
    return out


def screenshot_part(observation: Observation) -> dict[str, Any] | str:
    if observation.screenshot is None:
        return "(no screenshot was captured for this page)"
    return image_part(observation.screenshot, observation.image_format.value)


def user_turn(observation: Observation, texts: list[str], *, image: bool) -> Message:
    parts: list[dict[str, Any] | str] = [t for t in texts if t]
    if image:
        parts.append(screenshot_part(observation))
    return message("user", *parts)


def assistant_turn(step: Step) -> Message:
    return message("assistant", step.decision.text or "(empty reply)")


# --- action names (documented for prompts in webdojo.action_docs) ------------------------------

KNOWN_ACTIONS = frozenset(cls.model_fields["type"].default for cls in ACTION_TYPES)
