"""Weblica's judge: one question over the whole trajectory, with a third answer besides success
and failure, "website failure", so that attempts a broken site spoiled are discarded from
training (reward None) instead of being scored 0.

The model sees the task, task-specific criteria (the rubric's facts when the task has a rubric,
else the instruction itself), every action, the final answer, and screenshots spread over the
whole session (``keypoints.sampled``: at most ``max_images``, the first and the final page
included).
"""

from __future__ import annotations

import time

from webdojo.errors import ContextTooLong, ModelOutputInvalid
from webdojo.judges import judge_prompts as prompts
from webdojo.judges.base import Judge, JudgeOptions, make_verdict, missing_input
from webdojo.judges.judge_model import JudgeModel, Picture, Question, Tally, failed_verdict
from webdojo.judges.keypoints import sampled
from webdojo.judges.trajectory import Trajectory
from webdojo.judges.verdict_text import (
    ALL_LABELS,
    Reading,
    as_label,
    cited_steps,
    read_verdict,
)
from webdojo.store.verdicts import Criterion, Verdict

PASSED = {"success": True, "failure": False, "website_failure": None}


def criteria_of(trajectory: Trajectory) -> list[str]:
    """What success means for this task: its rubric facts, else its instruction."""
    task = trajectory.task
    if task is None:
        return []
    facts = task.facts()
    return facts or [f"the task is done as asked: {task.instruction}"]


def _parse(text: str) -> Reading:
    return read_verdict(text, ALL_LABELS)


class WebsiteFailureJudge(Judge):
    """See the module docstring."""

    name = "website-failure"
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
        shots = sampled(trajectory.shots, max(1, self.options.max_images))
        if len(shots) < len(trajectory.shots):
            tally.note(f"sampled {len(shots)} of {len(trajectory.shots)} screenshots")
        question = Question(
            prompts.WEBSITE_FAILURE,
            prompts.website_failure_text(trajectory, criteria_of(trajectory)),
            _parse,
            [Picture.of(trajectory, s, priority=int(s is shots[-1])) for s in shots],
            topic="trajectory",
        )
        try:
            answer = await self.model.ask(question, tally)
        except (ModelOutputInvalid, ContextTooLong) as exc:
            return failed_verdict(self.name, trajectory, exc, tally, self.model, started)
        label = as_label(answer.value.value)
        criterion = Criterion(
            name="task",
            kind="task",
            passed=PASSED[label],
            reason=answer.value.reason,
            evidence=cited_steps(answer.text, answer.shown),
        )
        return make_verdict(
            self.name, trajectory, label, [criterion], started=started,
            usage=tally.judge_usage(self.options), model=self.model.resolved, notes=tally.notes,
        )  # fmt: skip
