"""What every judge that asks a model about screenshots shares: its ``JudgeModel``, the refusal
of trajectories without screenshots, and the verdict when its questions cannot be answered.

A subclass only says how it judges a complete trajectory (``assess``): the label and the
criteria. Replies that never parse and requests that never fit the context become an
``infra_error`` verdict with what was spent and noted; an endpoint that fails raises.
"""

from __future__ import annotations

import time
from abc import abstractmethod

from webdojo.errors import ContextTooLong, ModelOutputInvalid
from webdojo.judges.base import Judge, JudgeOptions, make_verdict, missing_input
from webdojo.judges.judge_model import JudgeModel, Tally, failed_verdict
from webdojo.judges.trajectory import Trajectory
from webdojo.store.verdicts import Criterion, Label, Verdict


class ModelJudge(Judge):
    needs_model = True

    def __init__(self, options: JudgeOptions) -> None:
        self.options = options
        self.model = JudgeModel(options)

    async def aclose(self) -> None:
        await self.model.aclose()

    async def judge(self, trajectory: Trajectory) -> Verdict:
        started = time.perf_counter()
        problems = trajectory.missing(screenshots=True)
        if problems:
            return missing_input(self.name, trajectory, problems)
        tally = Tally()
        try:
            label, criteria = await self.assess(trajectory, tally)
        except (ModelOutputInvalid, ContextTooLong) as exc:
            return failed_verdict(self.name, trajectory, exc, tally, self.model, started)
        return make_verdict(
            self.name,
            trajectory,
            label,
            criteria,
            started=started,
            usage=tally.judge_usage(self.options),
            model=self.model.resolved,
            notes=tally.notes,
        )

    @abstractmethod
    async def assess(self, trajectory: Trajectory, tally: Tally) -> tuple[Label, list[Criterion]]:
        """The label and criteria of a trajectory that has its screenshots."""
