"""The ``funcall`` template: screenshot + accessibility tree in, one Python-style call out.

The action list is ``webdojo.action_docs.describe_actions()`` itself: the signatures there are
the call syntax (``click(element, x, y)``), so the prompt and the parser cannot drift apart.
Elements are named by the ``[id]`` of the accessibility tree, or points by screenshot pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from webdojo.action_docs import describe_actions
from webdojo.actions import CoordSpace
from webdojo.observation import AxTreeMode, Observation
from webdojo.parsing import ParseFormat
from webdojo.prompts.base import page_header, tabs_text
from webdojo.prompts.chat import MultiTurnTemplate

REPLY_FORMAT = """# How to reply

Think briefly if you need to, then end your reply with exactly one call on its own line, with literal arguments only (strings, numbers, true/false, lists), for example:
click(element=12)
type("wireless mouse", element=5, enter=True)
click(640, 360)
scroll("down")
stop("42 euros")

Name an element by its [id] from the accessibility tree when it has one; otherwise give x, y in screenshot pixels (origin at the top-left corner). One call per reply."""


@dataclass(frozen=True)
class FuncallTemplate(MultiTurnTemplate):
    name: ClassVar[str] = "funcall"
    parse_format: ClassVar[ParseFormat] = ParseFormat.FUNCALL
    axtree: AxTreeMode = AxTreeMode.VIEWPORT  # ids to act on; set NONE for pixels only
    coord_space: CoordSpace | None = CoordSpace.PIXEL

    def system_prompt(self) -> str:
        return (
            "You are a careful assistant that operates a web browser to complete a task, one "
            "action per reply.\n\n# Actions\n\n"
            f"{describe_actions()}\n\n{REPLY_FORMAT}"
        ).replace("``", "`")

    def observation_texts(self, observation: Observation) -> list[str]:
        size = f"Screenshot size: {observation.viewport_width}x{observation.viewport_height} pixels"
        out = [page_header(observation), f"Open tabs:\n{tabs_text(observation)}", size]
        if self.axtree is not AxTreeMode.NONE:
            tree = observation.axtree or "(no accessibility tree was captured)"
            out.append(f"Accessibility tree:\n{tree}")
        return out
