"""The policy boundary: observation + history in, model text + parsed action out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from webdojo.actions import Action
from webdojo.observation import ErrorInfo, Observation, ObservationOptions
from webdojo.tasks.schema import Task


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


@runtime_checkable
class Policy(Protocol):
    """An agent. Implementations: ``scripted``, ``random``, ``openai`` (see ``webdojo.policies``)."""

    name: str

    def observation_options(self) -> ObservationOptions:
        """What this policy needs to see (screenshot only, accessibility tree, marks...)."""
        ...

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        """Choose the next action. Must not raise for bad model output: return a Decision with
        ``action=None`` and ``error`` set. Infrastructure failures (endpoint down) raise
        ``ModelError``. ``seed`` is the episode's (``EpisodeSpec.seed``): the same for every
        step of one episode, different for each repeat of a task, so that a policy that
        samples gives distinct but reproducible episodes (pass@k, GRPO groups)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
