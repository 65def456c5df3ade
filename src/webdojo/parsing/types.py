"""The public types of parsing: which format a model answers in (``ParseFormat``) and what was
read from one answer (``Parsed``). ``webdojo.parsing`` exports both."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from webdojo.actions import Action


class ParseFormat(StrEnum):
    """The output formats a model can be prompted to use."""

    QWEN = "qwen"  # <tool_call>{"name": "computer_use", "arguments": {...}}</tool_call>
    BROWSERAGENT = "browseragent"  # <think>..</think> then ```command [arg] [arg]```
    FUNCALL = "funcall"  # click(412, 230), type("hi", element=3), stop("answer")


@dataclass(frozen=True)
class Parsed:
    """One model output, read."""

    action: Action  # the single action the output asks for
    thought: str | None  # <think> text, or the WebGym "Action:" sentence; None if absent
    memory: Any  # qwen: dict of Memory/Progress/Intention; browseragent: <conclusion> text
    raw: str  # the text exactly as given
