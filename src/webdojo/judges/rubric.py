"""WebGym's rubric judge: keypoints, one check per rubric fact, the answer, blocking, references.

For one trajectory, in order:

1. keypoints: the screenshots that bear on the task (``keypoints.select_keypoints``);
2. facts: each rubric fact checked against the keypoints, one question each. Like WebGym's
   public code it stops at the first fact that fails (later facts: not checked);
   ``options.all_facts`` checks them all, concurrently, for analysis. With
   ``options.prompt == "task"`` one task-only question replaces the facts (WebGym's Figure 5
   baseline); a task without a rubric falls back to it, and the notes say so;
3. the final answer, when there is one: is every claim in it shown by the keypoints?
   (skipped after a failed fact unless ``all_facts``: it could not change the verdict);
4. reference answers, when the task has them: a golden reference overrides the checks above
   both ways; a possible reference (one acceptable answer; live content may have changed)
   overrides only towards success. An answer equal to a reference up to case, spaces and
   punctuation agrees without asking the model;
5. blocking, only when the verdict is not success: sampled screenshots, did the site shut the
   agent out? If so the label is ``blocked`` (reward None: discarded, not scored 0).

The reward is binary: success only when every checked criterion passes (or a reference says
so). Each criterion's evidence is the steps the model cited, else every step it was shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webdojo.judges import judge_prompts as prompts
from webdojo.judges.judge_model import (
    Picture,
    Question,
    Tally,
    gather_all,
)
from webdojo.judges.keypoints import sampled, select_keypoints
from webdojo.judges.model_judge import ModelJudge
from webdojo.judges.trajectory import Trajectory
from webdojo.judges.verdict_text import Reading, cited_steps, read_verdict, read_yes_no
from webdojo.store.verdicts import Criterion, Label
from webdojo.tasks.schema import ReferenceAnswer

NOT_CHECKED = "not checked: an earlier fact failed"


@dataclass(frozen=True)
class Fact:
    name: str  # "G1.2": group 1, second fact
    group: str  # the group's description and facts, as context
    text: str


def rubric_facts(trajectory: Trajectory) -> list[Fact]:
    task = trajectory.task
    if task is None or task.rubric is None:
        return []
    facts = []
    for group in task.rubric.fact_groups:
        context = group.description or "; ".join(group.facts)
        for index, fact in enumerate(group.facts, 1):
            facts.append(Fact(f"G{group.id}.{index}", context, fact))
    return facts


class RubricJudge(ModelJudge):
    """See the module docstring."""

    name = "rubric"

    async def assess(self, t: Trajectory, tally: Tally) -> tuple[Label, list[Criterion]]:
        facts = rubric_facts(t)
        task_only = self.options.prompt == "task"
        if not task_only and not facts:
            tally.note("the task has no rubric: judged with the task-only prompt")
            task_only = True
        shown = [] if task_only else [f.text for f in facts]
        keypoints = await select_keypoints(self.model, t, shown, tally)
        pictures = keypoints.pictures
        criteria = [keypoints.criterion]
        if task_only:
            criteria.append(await self._task(t, pictures, tally))
        else:
            criteria += await self._facts(t, facts, pictures, tally)
        failed = any(c.passed is False for c in criteria)
        criteria.append(await self._answer(t, pictures, tally, skip=failed))
        label: Label = "success" if _all_pass(criteria) else "failure"
        reference = await self._reference(t, tally)
        if reference is not None:
            label, reference = _overridden(label, reference, t)
            criteria.append(reference)
        if label != "success":
            blocking = await self._blocking(t, tally)
            criteria.append(blocking)
            if blocking.passed is False:
                label = "blocked"
        return label, criteria

    # --- the questions ----------------------------------------------------------------------

    async def _verdict_check(
        self, question: Question[Reading], tally: Tally, name: str, kind: str
    ) -> Criterion:
        answer = await self.model.ask(question, tally)
        reading = answer.value
        return Criterion.model_validate(
            {
                "name": name,
                "kind": kind,
                "passed": reading.value in ("success", "yes"),
                "reason": reading.reason,
                "evidence": cited_steps(answer.text, answer.shown),
            }
        )

    async def _facts(
        self, t: Trajectory, facts: list[Fact], pictures: list[Picture], tally: Tally
    ) -> list[Criterion]:
        def question(fact: Fact) -> Question[Reading]:
            text = prompts.fact_text(t, fact.group, fact.text)
            return Question(prompts.FACT, text, read_verdict, pictures, topic=f"fact {fact.name}")

        if self.options.all_facts:
            return await gather_all(
                self._verdict_check(question(f), tally, f.name, "fact") for f in facts
            )
        checked: list[Criterion] = []
        for fact in facts:
            if any(c.passed is False for c in checked):
                checked.append(
                    Criterion(name=fact.name, kind="fact", passed=None, reason=NOT_CHECKED)
                )
                continue
            checked.append(await self._verdict_check(question(fact), tally, fact.name, "fact"))
        return checked

    async def _task(self, t: Trajectory, pictures: list[Picture], tally: Tally) -> Criterion:
        question: Question[Reading] = Question(
            prompts.TASK, prompts.task_text(t), read_verdict, pictures, topic="task"
        )
        return await self._verdict_check(question, tally, "task", "task")

    async def _answer(
        self, t: Trajectory, pictures: list[Picture], tally: Tally, *, skip: bool
    ) -> Criterion:
        name = "anti-hallucination"
        if not (t.answer or "").strip():
            return Criterion(name=name, kind="answer", passed=None, reason="no final answer")
        if skip and not self.options.all_facts:
            reason = "not checked: an earlier criterion failed"
            return Criterion(name=name, kind="answer", passed=None, reason=reason)
        question: Question[Reading] = Question(
            prompts.ANSWER, prompts.answer_text(t), read_verdict, pictures, topic="answer"
        )
        return await self._verdict_check(question, tally, name, "answer")

    async def _reference(self, t: Trajectory, tally: Tally) -> Criterion | None:
        references = t.task.reference_answers if t.task is not None else []
        if not references:
            return None
        name, answer = "reference answer", (t.answer or "").strip()
        if not answer:
            reason = "the agent gave no answer to compare with the reference"
            return Criterion(name=name, kind="reference", passed=False, reason=reason)
        same = next((r for r in references if _plain(r.answer) == _plain(answer)), None)
        if same is not None:
            reason = f"the answer equals the {same.type} reference {same.answer!r}"
            return Criterion(name=name, kind="reference", passed=True, reason=reason)
        question: Question[Reading] = Question(
            prompts.REFERENCE,
            prompts.reference_text(t, references),
            lambda text: read_yes_no(text, "Agrees"),
            topic="reference",
        )
        return await self._verdict_check(question, tally, name, "reference")

    async def _blocking(self, t: Trajectory, tally: Tally) -> Criterion:
        shots = sampled(t.shots, max(1, self.options.max_images))
        if len(shots) < len(t.shots):
            tally.note(f"blocking: sampled {len(shots)} of {len(t.shots)} screenshots")
        question: Question[Reading] = Question(
            prompts.BLOCKING,
            prompts.blocking_text(t),
            lambda text: read_yes_no(text, "Blocked"),
            [Picture.of(t, s) for s in shots],
            topic="blocking",
        )
        checked = await self._verdict_check(question, tally, "blocking", "blocking")
        # the question is "blocked?": YES means the check fails
        return checked.model_copy(update={"passed": not checked.passed})


def _all_pass(criteria: list[Criterion]) -> bool:
    decisive = [c for c in criteria if c.kind in ("fact", "task")]
    return any(c.passed for c in decisive) and all(c.passed is not False for c in criteria)


def _overridden(label: Label, reference: Criterion, t: Trajectory) -> tuple[Label, Criterion]:
    """The label once the reference answers have had their say (see the module docstring),
    and the reference criterion saying what it did."""
    references: list[ReferenceAnswer] = t.task.reference_answers if t.task is not None else []
    golden = any(r.type == "golden" for r in references)
    new: Label
    if reference.passed:
        new, why = "success", "agrees with a reference answer: overrides the other criteria"
    elif golden:
        new, why = "failure", "disagrees with the golden reference: overrides the other criteria"
    else:
        new, why = label, "differs from the possible reference(s), which may be out of date: "
        why += "the other criteria decide"
    updated = reference.model_copy(update={"reason": f"{why} ({reference.reason})"})
    return new, updated


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s.]", " ", text.casefold()).split()).strip(". ")
