"""The policy boundary: observation + history in, model text + parsed action out.

The history types (``Decision``, ``Step``) are in ``webdojo.history``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from webdojo.observation import Observation, ObservationOptions
from webdojo.tasks.schema import Task

if TYPE_CHECKING:  # for annotations only: this module re-exports nothing of webdojo.history
    from webdojo.history import Decision, Step


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
