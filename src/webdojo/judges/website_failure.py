"""Weblica's judge: one question over the whole trajectory, with a third answer besides success
and failure, "website failure", so that attempts a broken site spoiled are discarded from
training (reward None) instead of being scored 0.

The model sees the task, task-specific criteria (the rubric's facts when the task has a rubric,
else the instruction itself), every action, the final answer, and screenshots spread over the
whole session (``keypoints.sampled``: at most ``max_images``, the first and the final page
included).
"""

from __future__ import annotations

from webdojo.judges import judge_prompts as prompts
from webdojo.judges.judge_model import Picture, Question, Tally
from webdojo.judges.keypoints import sampled
from webdojo.judges.model_judge import ModelJudge
from webdojo.judges.trajectory import Trajectory
from webdojo.judges.verdict_text import (
    ALL_LABELS,
    Reading,
    as_label,
    cited_steps,
    read_verdict,
)
from webdojo.store.verdicts import Criterion, Label

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


class WebsiteFailureJudge(ModelJudge):
    """See the module docstring."""

    name = "website-failure"

    async def assess(self, trajectory: Trajectory, tally: Tally) -> tuple[Label, list[Criterion]]:
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
        answer = await self.model.ask(question, tally)
        label = as_label(answer.value.value)
        criterion = Criterion(
            name="task",
            kind="task",
            passed=PASSED[label],
            reason=answer.value.reason,
            evidence=cited_steps(answer.text, answer.shown),
        )
        return label, [criterion]
