"""An episode's history as policies and prompts see it: each ``Step`` is an observation and
the ``Decision`` taken on it.

It sits below both ``prompts`` (which turn a history into messages) and ``policies`` (which
produce decisions), and depends only on ``actions``, ``observation`` and ``errors``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webdojo.actions import Action
from webdojo.observation import ErrorInfo, Observation


@dataclass(frozen=True)
class Decision:
    """One policy step.

    ``action`` is None when the model's text could not be parsed; ``error`` then says why (a
    ParseError as data) and the environment shows it to the model in the next observation.
    """

    text: str  # the model's raw output (for scripted policies, the action rendered as text)
    action: Action | None
    error: ErrorInfo | None = None
    memory: Any = None  # WebGym Memory/Progress/Intention JSON or BrowserAgent <conclusion>
    latency_s: float = 0.0  # time spent producing this decision (model call included)
    usage: dict[str, int] = field(default_factory=dict)  # prompt/completion tokens if known


@dataclass(frozen=True)
class Step:
    """A past step as policies see it in their history."""

    index: int
    observation: Observation
    decision: Decision
