"""The ``browseragent`` template: accessibility-tree text in, ``<think>`` + fenced command out.

Structure as in BrowserAgent (appendix A.3): each step is one self-contained user message with
the objective, the page's accessibility tree, the open tabs, the previous actions and the
information found so far (the ``<conclusion>`` texts of earlier replies). The model reasons in
``<think>``, records new findings in ``<conclusion>``, and ends with one command such as
```` ```click [12] [Search]``` ````. No screenshot by default; ``screenshot=True`` adds the
current one.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Any, ClassVar

from webdojo.action_docs import action_doc, action_summary
from webdojo.actions import Action
from webdojo.history import Step
from webdojo.observation import AxTreeMode, Observation
from webdojo.parsing import ParseFormat
from webdojo.parsing.browseragent import command
from webdojo.prompts.base import (
    Message,
    PromptTemplate,
    notices,
    page_header,
    step_errors,
    summary_lines,
    tabs_text,
    user_turn,
)
from webdojo.tasks.schema import Task

# (group, syntax, our action), in the order the prompt lists them
COMMANDS: list[tuple[str, str, str]] = [
    ("Acting on the page", "click [id] [content]", "click"),
    ("Acting on the page", "hover [id] [content]", "hover"),
    ("Acting on the page", "type [id] [content] [press_enter_after=0|1]", "type"),
    ("Acting on the page", "select [id] [option]", "select"),
    ("Acting on the page", "press [key_comb]", "press"),
    ("Acting on the page", "scroll [down|up]", "scroll"),
    ("Tabs", "new_tab", "new_tab"),
    ("Tabs", "tab_focus [tab_index]", "tab_focus"),
    ("Tabs", "close_tab", "close_tab"),
    ("Navigation", "goto [url]", "goto"),
    ("Navigation", "go_back", "go_back"),
    ("Navigation", "go_forward", "go_forward"),
    ("Finishing", "stop [answer]", "stop"),
]
# what some arguments mean in this format, beyond the action's own docstring
NOTES = {
    "click": "`content` is the element's text, for your own reference.",
    "type": "The field is cleared first. Enter is pressed afterwards unless the last value is 0.",
}

RULES = """Rules that matter:
1. Only issue an action that makes sense for the page as it is now, and only one per reply.
2. Check the previous actions first, and do not repeat what already failed or already happened.
3. Start every reply with your reasoning inside <think></think>; write nothing before it.
4. Inside <think>, wrap any fact you learned on this page that helps answer the objective in <conclusion></conclusion>. Write it so it can be used later without this page; skip it when there is nothing new.
5. After </think>, write only the action, in a code fence, with every parameter in square brackets:
```type [21] [cheap flights to Lisbon] [1]```
6. Use stop once the objective is met, and write nothing after it. When it asks for information, put the answer in the brackets; when it cannot be done, answer N/A.

Example reply:
<think>The results list shows a link to the product page [48]. <conclusion>The search for "brass lamp" returns 3 products.</conclusion></think>
```click [48] [Brass desk lamp]```"""


def commands_text() -> str:
    """The command list, each with its meaning taken from the action docstrings."""
    out = []
    for group, commands in groupby(COMMANDS, key=lambda command: command[0]):
        out.append(f"{group}:")
        for _, syntax, ours in commands:
            doc = action_doc(ours) if ours == "stop" else action_summary(ours)
            doc = doc.replace("`answer`", "the brackets")
            out.append(f"- `{syntax}`: {doc} {NOTES.get(ours, '')}".rstrip())
    return "\n".join(out)


@dataclass(frozen=True)
class BrowserAgentTemplate(PromptTemplate):
    """Single-turn text prompt; carried memory is the list of ``<conclusion>`` texts."""

    name: ClassVar[str] = "browseragent"
    parse_format: ClassVar[ParseFormat] = ParseFormat.BROWSERAGENT
    screenshot: bool = False  # BrowserAgent reads text only; True also sends the screenshot
    axtree: AxTreeMode = AxTreeMode.VIEWPORT  # scroll actions bring the rest into view
    max_images: int = 1  # with screenshot=True, only the current page is shown

    def system_prompt(self) -> str:
        return (
            "You operate a web browser one step at a time to accomplish the user's objective. "
            "Each step you receive:\n"
            "- Objective: the task to accomplish.\n"
            "- Accessibility tree: a text outline of the current page; [id] before an element "
            "is the number to use in commands.\n"
            "- Open tabs: the browser tabs, with their indexes.\n"
            "- Previous actions: what you did so far, and whether it failed.\n"
            "- Information already found: the conclusions you recorded in earlier steps. "
            "Build on them and add to them.\n\n"
            f"Commands:\n{commands_text()}\n\n{RULES}"
        )

    def action_text(self, action: Action) -> str:
        try:
            return command(action)
        except ValueError:
            return action.describe()

    def update_memory(self, memory: Any, step_memory: Any) -> Any:
        found = list(memory or [])
        if isinstance(step_memory, str) and step_memory.strip() not in ("", *found):
            found.append(step_memory.strip())  # a repeated conclusion adds nothing
        return found

    def build_messages(
        self, task: Task, observation: Observation, history: list[Step], memory: Any
    ) -> list[Message]:
        errors = step_errors(history, observation)
        last_error = errors[-1] if history else observation.last_error
        actions = summary_lines(self, history, errors) if history else ["(none yet)"]
        found = [f"- {c}" for c in memory or []] or ["(nothing yet)"]
        tree = observation.axtree or "(no accessibility tree was captured)"
        sections = [
            f"Objective: {task.instruction}",
            f"{page_header(observation)}\nAccessibility tree:\n{tree}",
            f"Open tabs:\n{tabs_text(observation)}",
            "Previous actions:\n" + "\n".join(actions),
            "Information already found:\n" + "\n".join(found),
            *notices(observation, last_error),
            "Reply with <think>...</think> and then one command in a code fence.",
        ]
        image = self.screenshot and self.max_images > 0
        return [
            {"role": "system", "content": self.system_prompt()},
            user_turn(observation, sections, image=image),
        ]
