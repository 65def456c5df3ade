"""The programmatic judge (``programmatic``): a task's own checks, run on the stored trajectory,
no model and no browser.

* **Verifier** (built-in and generated tasks): the task's verifier runs again on the final state
  the record stores, exactly as ``webdojo verify`` does (``reverify.verify_stored``). Each check
  becomes a criterion of kind ``verifier`` (its line reads ``ok: ...`` or ``fail: ...``).
* **Evaluation rules** (Mind2Web-Live): every key node is checked against the steps
  (``live_rules``); each becomes a criterion of kind ``rule``, with the step where it matched as
  evidence. The key-node completion (matched / total) is in the notes.

A task with both passes when both do. The label:

* ``failure`` when any check or rule fails: all must hold, so one miss decides, even if other
  rules could not be checked (the notes name those);
* ``infra_error`` (error ``rules_unchecked``) when nothing failed but some rules could not be
  checked (semantic matches, element paths): the verdict is undecided, never a silent pass;
* ``success`` otherwise.

What the judge cannot read gets ``missing_input``'s ``infra_error``, naming it: a faulted
episode, a task gone from the task set, a task with neither a verifier nor rules, a record
without a final state for the verifier.
"""

from __future__ import annotations

import time

from webdojo.errors import RulesUnchecked
from webdojo.judges.base import Judge, JudgeOptions, make_verdict, missing_input
from webdojo.judges.live_rules import RuleCheck, check_rules, completion
from webdojo.judges.reverify import CANNOT_VERIFY, verify_stored
from webdojo.judges.trajectory import Trajectory
from webdojo.store.verdicts import Criterion, Label, Verdict
from webdojo.tasks.verify import VerifyResult


class ProgrammaticJudge(Judge):
    """See the module docstring."""

    name = "programmatic"

    def __init__(self, options: JudgeOptions | None = None) -> None:
        self.options = options or JudgeOptions()

    async def judge(self, trajectory: Trajectory) -> Verdict:
        started = time.perf_counter()
        problems = programmatic_problems(trajectory)
        if problems:
            return missing_input(self.name, trajectory, problems)
        task = trajectory.task
        assert task is not None  # programmatic_problems names a missing task
        criteria: list[Criterion] = []
        if task.verifier is not None:
            result = verify_stored(trajectory.record, task)
            if isinstance(result, str):
                return missing_input(self.name, trajectory, [CANNOT_VERIFY[result]])
            criteria += verifier_criteria(result, len(trajectory.steps))
        checks = check_rules(trajectory)
        criteria += [check.criterion() for check in checks]
        return _verdict(self.name, trajectory, criteria, checks, started)


def programmatic_problems(trajectory: Trajectory) -> list[str]:
    """What keeps the programmatic judge from checking this attempt (empty: nothing)."""
    problems = trajectory.missing()
    record, task = trajectory.record, trajectory.task
    if record.fault is not None:
        code = record.error.code if record.error is not None else "fault"
        problems.append(f"the episode ended in a fault ({record.fault}: {code}): never scored")
    elif task is not None and task.verifier is not None and record.final_state is None:
        problems.append(CANNOT_VERIFY["no_final_state"])
    if task is not None and task.verifier is None and not task.eval_rules:
        problems.append(
            f"task {task.id!r} has neither a programmatic verifier nor evaluation rules: "
            "judge it with a model (rubric) or its reference answers (exact, f1)"
        )
    return problems


def verifier_criteria(result: VerifyResult, final_step: int) -> list[Criterion]:
    """One criterion per verifier check; the evidence is the final page (``final_step``)."""
    return [
        Criterion(
            name=f"check {number}",
            kind="verifier",
            passed=line.startswith("ok"),
            reason=line,
            evidence=[final_step],
        )
        for number, line in enumerate(result.reasons, 1)
    ]


def _verdict(
    judge: str,
    trajectory: Trajectory,
    criteria: list[Criterion],
    checks: list[RuleCheck],
    started: float,
) -> Verdict:
    unchecked = [c for c in checks if c.passed is None]
    notes = [completion(checks)] if checks else []
    notes += [
        f"rule {c.number} ({c.rule.match}) matched approximately: the value was entered, the "
        "field was not identified"
        for c in checks
        if c.approximate
    ]
    error = None
    label: Label = "success"
    if any(c.passed is False for c in criteria):
        label = "failure"
        if unchecked:
            notes.append(f"not checked, and not needed to decide: {_names(unchecked)}")
    elif unchecked:
        label = "infra_error"
        message = (
            f"{len(unchecked)} of {len(checks)} evaluation rules cannot be checked without a "
            f"model or the page's DOM ({_names(unchecked)}); every other check passed"
        )
        error = RulesUnchecked(message, unchecked=[c.number for c in unchecked]).info()
    return make_verdict(
        judge, trajectory, label, criteria, started=started, notes=notes, error=error
    )


def _names(checks: list[RuleCheck]) -> str:
    return ", ".join(f"rule {c.number} ({c.rule.match})" for c in checks)
