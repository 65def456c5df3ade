"""The one judge protocol: a stored trajectory in, a ``Verdict`` out.

    class Judge:
        name: str                                    # the spec that builds it: "rubric"
        async def judge(self, t: Trajectory) -> Verdict
        async def aclose(self) -> None

A judge answers every trajectory with a verdict. What is wrong with the *trajectory* (a missing
screenshot, no answer, an unknown task) becomes an ``infra_error`` verdict that names it, never a
silent 0 (``missing_input``). What is wrong with the *judge's endpoint* (down, refusing every
request) raises ``ModelError``: the runner stops before writing a verdict it cannot stand by.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import TracebackType

from webdojo.errors import TrajectoryIncomplete, WebdojoError
from webdojo.judges.trajectory import Trajectory
from webdojo.models import ModelConfig
from webdojo.models.reply_cache import ReplyCache
from webdojo.models.usage import Price
from webdojo.store.verdicts import Criterion, JudgeUsage, Label, Verdict, reward_of


@dataclass(frozen=True)
class JudgeOptions:
    """How judges are built (the ``webdojo judge`` flags); each judge reads what it needs."""

    model: ModelConfig | None = None  # the judge model's endpoint; None: model judges refuse
    cache: ReplyCache | None = None  # model replies by content hash; None: no caching
    price: Price = field(default_factory=Price)  # per million tokens, for the cost
    all_facts: bool = False  # rubric: check every fact instead of stopping at the first failure
    max_images: int = 8  # rubric and website-failure: images sent in one request, at most
    prompt: str = "rubric"  # rubric judge: "rubric" (fact by fact) or "task" (task-only)
    attempts: int = 3  # replies per question when a reply cannot be parsed
    f1_threshold: float = 0.5  # f1: the token F1 from which the label is success


class Judge(ABC):
    """See the module docstring. Judges are async context managers."""

    name: str = "judge"  # the spec that built it (set by judges.spec.build_judge)
    needs_model: bool = False  # True: the runner checks the endpoint before judging

    @abstractmethod
    async def judge(self, trajectory: Trajectory) -> Verdict:
        """The verdict on one trajectory (see the module docstring for what raises)."""

    async def aclose(self) -> None:  # noqa: B027 (optional hook: most judges hold nothing)
        """Release what the judge holds (model clients); the default holds nothing."""

    async def __aenter__(self) -> Judge:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def make_verdict(
    judge: str,
    trajectory: Trajectory,
    label: Label,
    criteria: list[Criterion],
    *,
    started: float | None = None,
    **fields: object,
) -> Verdict:
    """A verdict whose reward follows from its label (``store.verdicts.SCORED``). ``started``
    (``time.perf_counter()`` when judging began) fills ``wall_s``; ``fields`` are the optional
    ones (usage, model, error, notes)."""
    wall = 0.0 if started is None else round(time.perf_counter() - started, 4)
    return Verdict.model_validate(
        {
            "judge": judge,
            "key": trajectory.key,
            "episode": trajectory.record.episode,
            "task_id": trajectory.record.task_id,
            "label": label,
            "reward": reward_of(label),
            "criteria": criteria,
            "wall_s": wall,
            **fields,
        }
    )


def missing_input(judge: str, trajectory: Trajectory, problems: list[str]) -> Verdict:
    """The ``infra_error`` verdict for a trajectory a judge cannot read: it names every gap."""
    error = TrajectoryIncomplete("; ".join(problems), missing=problems).info()
    criteria = [
        Criterion(name="trajectory", kind="input", passed=False, reason=p) for p in problems
    ]
    return make_verdict(judge, trajectory, "infra_error", criteria, error=error)


def error_verdict(
    judge: str, trajectory: Trajectory, exc: WebdojoError, usage: JudgeUsage | None = None
) -> Verdict:
    """The ``infra_error`` verdict for a judge that failed on this trajectory alone (its replies
    never parsed, its context never fit): the error's code says which."""
    error = exc.info()
    criteria = [Criterion(name="judge", kind="input", passed=None, reason=exc.message)]
    return make_verdict(
        judge, trajectory, "infra_error", criteria, error=error, usage=usage or JudgeUsage()
    )
