"""The ``chat`` template: one conversation that only grows (append-only).

    system     what the agent does, the actions (``describe_actions``), the funcall reply format
    user       the task + the first page: URL, title, tabs, accessibility tree, screenshot
    assistant  the reply to it, exactly as the model wrote it
    user       the next page, after a line saying whether that reply's action failed
    ...        one assistant + user pair per step; the last user message is the current page

The messages at step N+1 are the messages at step N (equal dicts, in the same order) followed
by the reply of step N and the new page: no earlier message is dropped, shortened or moved.
Trainers that score one conversation token-in/token-out (verl's AgentLoop, TRL's
``environment_factory``, SkyRL) need this: each prompt is the previous prompt, the tokens
generated for it, and the new observation. The other templates rewrite older steps (past
``max_images`` their screenshots become text lines), so their turn N+1 does not extend turn N.

Replies use the ``funcall`` format (``click(element=3)``, or screenshot pixels), the one a
plain chat model follows most easily: no tool schema, no special tags.

Memory cost: every screenshot stays. Qwen2.5-VL turns a 1280x720 screenshot into about 1,200
tokens, so a 30-step episode carries some 36,000 image tokens, plus one accessibility tree per
step (``axtree="none"`` leaves the trees out). ``max_images`` caps the screenshots without
breaking the prefix: the first ``max_images`` pages carry theirs and later pages are text only
(an image already sent cannot be taken back, so the cap stops adding new ones). No cap by
default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from webdojo.action_docs import describe_actions
from webdojo.actions import CoordSpace
from webdojo.history import Step
from webdojo.observation import AxTreeMode, ErrorInfo, Observation
from webdojo.parsing import ParseFormat
from webdojo.prompts.base import (
    Message,
    PromptTemplate,
    notices,
    page_header,
    step_errors,
    tabs_text,
    user_turn,
)
from webdojo.prompts.funcall import REPLY_FORMAT
from webdojo.tasks.schema import Task

NO_IMAGE_CAP = 2**31 - 1  # the default max_images: every page keeps its screenshot

CONVERSATION = """# The conversation

The first user message gives the task. Every user message shows the page as it is after your previous action: its address and title, the open tabs, a screenshot and, when one was captured, its accessibility tree; it starts by saying so when that action failed. Earlier pages and your earlier replies stay above it, unchanged: use them to avoid repeating what did not work."""

INSTRUCTION = "Give the next action for the task."


@dataclass(frozen=True)
class AppendOnlyChatTemplate(PromptTemplate):
    """Every step appends a user message (the page) after the model's reply; see the module
    docstring. Stateless like the others: the conversation is rebuilt from the history."""

    name: ClassVar[str] = "chat"
    parse_format: ClassVar[ParseFormat] = ParseFormat.FUNCALL
    max_images: int = NO_IMAGE_CAP  # pages that carry their screenshot: the first ones
    axtree: AxTreeMode = AxTreeMode.VIEWPORT  # ids to act on; set NONE for pixels only
    coord_space: CoordSpace | None = CoordSpace.PIXEL

    def system_prompt(self) -> str:
        return (
            "You operate a web browser to complete a task for the user, one action per reply."
            f"\n\n# Actions\n\n{describe_actions()}\n\n{REPLY_FORMAT}\n\n{CONVERSATION}"
        ).replace("``", "`")

    def build_messages(
        self, task: Task, observation: Observation, history: list[Step], memory: Any
    ) -> list[Message]:
        pages = [*(step.observation for step in history), observation]
        errors = page_errors(history, observation)
        messages: list[Message] = [{"role": "system", "content": self.system_prompt()}]
        for index, page in enumerate(pages):
            messages.append(self.page_turn(task, index, page, errors[index]))
            if index < len(history):
                messages.append(reply_turn(history[index]))
        return messages

    def page_turn(
        self, task: Task, index: int, page: Observation, error: ErrorInfo | None
    ) -> Message:
        """The user message of the ``index``-th page. It depends on nothing that arrives later,
        so it is the same at every step that shows it."""
        image = self.screenshot and index < self.max_images
        intro = [f"Task: {task.instruction}"] if index == 0 else []
        texts = [*intro, *notices(page, error), *self.page_texts(page, image=image)]
        return user_turn(page, [*texts, INSTRUCTION], image=image)

    def page_texts(self, page: Observation, *, image: bool) -> list[str]:
        out = [page_header(page), f"Open tabs:\n{tabs_text(page)}"]
        if image:  # funcall's x, y are screenshot pixels
            out.append(f"Screenshot size: {page.viewport_width}x{page.viewport_height} pixels")
        elif self.screenshot:
            shown = f"the first {self.max_images} screenshots"
            out.append(f"(No screenshot: this conversation shows only {shown}.)")
        if self.axtree is not AxTreeMode.NONE:
            out.append(f"Accessibility tree:\n{page.axtree or '(none was captured)'}")
        return out


def page_errors(history: list[Step], observation: Observation) -> list[ErrorInfo | None]:
    """The error told with each page: the first page's own, then for every later page the
    error of the step that led to it (which is known once that page has arrived)."""
    first = history[0].observation if history else observation
    return [first.last_error, *step_errors(history, observation)]


def reply_turn(step: Step) -> Message:
    """The reply as the model wrote it, even when empty: a placeholder text would put tokens
    in the conversation that the model never generated."""
    return {"role": "assistant", "content": step.decision.text}
