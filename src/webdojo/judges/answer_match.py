"""Judges of the final answer that need no model: SQuAD's exact match (``exact``) and token F1
(``f1``) against the task's golden reference answers.

Both score the answer the way the official SQuAD v1.1 evaluation script does, so the numbers
compare with published QA results:

* **normalization** (``normalize_answer``): lower case, drop ASCII punctuation
  (``string.punctuation``), drop the words a / an / the, collapse whitespace;
* **exact match**: the normalized strings are equal;
* **F1**: precision and recall over the normalized tokens, shared tokens counted with their
  multiplicity (a token twice in both counts twice); no shared token gives 0;
* **several golden answers**: the best score over them.

The golden answers are the task's ``reference_answers`` of type ``golden``. ``possible`` answers
(WebVoyager's: one acceptable answer among others, on content that may have changed) are not
matched. A task without a golden answer gets an ``infra_error`` verdict naming what is
missing, never a silent 0. An attempt without an answer (the agent stopped without one, or ran
out of steps) is the agent's failure: reward 0, and the verdict says so. (A faulted episode
never reaches the judge: ``judges.runner`` gives it an ``infra_error`` verdict.)

The stored answer is the ``stop`` action's text. A policy may still have wrapped it: the last
``<answer>...</answer>`` block, then a leading ``Answer:`` / ``Final answer:`` label (optionally
in markdown bold), are taken off before matching (``unwrap_answer``); the verdict notes it.
"""

from __future__ import annotations

import re
import time
from abc import abstractmethod
from dataclasses import dataclass

from webdojo.judges.base import Judge, JudgeOptions, make_verdict, missing_input
from webdojo.judges.trajectory import Trajectory
from webdojo.store.verdicts import Criterion, Label, Verdict
from webdojo.tasks.schema import Task
from webdojo.tasks.squad import exact_match, token_f1
from webdojo.tasks.squad import normalize_answer as normalize_answer  # its old home

F1_THRESHOLD = 0.5  # the f1 judge's default pass mark: at least half the tokens agree

_ANSWER_OPEN = re.compile(r"<[ \t]*answer[ \t]*>", re.I)
_ANSWER_CLOSE = re.compile(r"<[ \t]*/[ \t]*answer[ \t]*>", re.I)
_LABEL = re.compile(r"[\s*_]*(?:final[ \t]+)?answer[ \t*_]*[:：][\s*_]*", re.I)


# --- SQuAD v1.1 metrics (in webdojo.tasks.squad, shared with the QA verifier) -------------


@dataclass(frozen=True)
class Match:
    """How one answer compares with one golden answer."""

    golden: str
    exact: bool
    f1: float


def matches(prediction: str, golden: list[str]) -> list[Match]:
    return [Match(g, exact_match(prediction, g), token_f1(prediction, g)) for g in golden]


def best_exact(found: list[Match]) -> Match:
    """The golden answer matched exactly, else the closest by F1 (the first of equals)."""
    return max(found, key=lambda m: (m.exact, m.f1))


def best_f1(found: list[Match]) -> Match:
    """The golden answer with the highest F1 (SQuAD's max over the ground truths)."""
    return max(found, key=lambda m: (m.f1, m.exact))


# --- reading the stored answer -----------------------------------------------------------------


def unwrap_answer(text: str) -> str:
    """The answer inside what a policy left around it: the last closed ``<answer>`` block (or
    what follows an unclosed one), then without a leading ``Answer:`` label. Unwrapped text is
    returned stripped; text with no wrapping comes back stripped too."""
    opened = list(_ANSWER_OPEN.finditer(text))
    if opened:
        last = opened[-1]
        closed = _ANSWER_CLOSE.search(text, last.end())
        if closed is not None:
            text = text[last.end() : closed.start()]
        else:  # the tag was closed before the last opening, or never
            inner = text[last.end() :]
            text = inner if inner.strip() else text[: last.start()]
    text = _ANSWER_CLOSE.sub("", text)
    label = _LABEL.match(text)
    if label is not None and text[label.end() :].strip():
        text = text[label.end() :]
    return text.strip()


def golden_answers(task: Task | None) -> list[str]:
    if task is None:
        return []
    return [ref.answer for ref in task.reference_answers if ref.type == "golden"]


def answer_problems(trajectory: Trajectory) -> list[str]:
    """What keeps an answer judge from scoring this attempt (empty: nothing)."""
    problems = trajectory.missing()
    task = trajectory.task
    if task is not None and not golden_answers(task):
        possible = sum(ref.type == "possible" for ref in task.reference_answers)
        problem = f"task {task.id!r} has no golden reference answer"
        if possible:
            problem += f" ({possible} 'possible' answer(s), which answer judges do not match)"
        problems.append(problem)
    return problems


def answer_step(trajectory: Trajectory) -> list[int]:
    """The step that gave the answer (the last stop), as evidence."""
    stops = [s.step for s in trajectory.steps if s.action is not None and s.action.type == "stop"]
    return stops[-1:]


# --- the judges -------------------------------------------------------------------------------


class _AnswerJudge(Judge):
    def __init__(self, options: JudgeOptions | None = None) -> None:
        self.options = options or JudgeOptions()

    async def judge(self, trajectory: Trajectory) -> Verdict:
        started = time.perf_counter()
        problems = answer_problems(trajectory)
        if problems:
            return missing_input(self.name, trajectory, problems)
        raw = trajectory.answer or ""
        answer = unwrap_answer(raw)
        if not answer:
            return self.unanswered(trajectory, raw, started)
        notes = [f"answer unwrapped from {raw!r}"] if answer != raw.strip() else []
        found = matches(answer, golden_answers(trajectory.task))
        return self.score(trajectory, answer, found, started, notes)

    def unanswered(self, trajectory: Trajectory, raw: str, started: float) -> Verdict:
        """The agent's failure: it gave no answer, or one that is empty once unwrapped."""
        reason = "the agent gave no final answer"
        if raw.strip():
            reason = f"the agent's answer is empty once unwrapped: {raw!r}"
        criterion = Criterion(
            name="answered",
            kind="answer",
            passed=False,
            reason=reason,
            evidence=answer_step(trajectory),
        )
        return make_verdict(self.name, trajectory, "failure", [criterion], started=started)

    @abstractmethod
    def score(
        self,
        trajectory: Trajectory,
        answer: str,
        found: list[Match],
        started: float,
        notes: list[str],
    ) -> Verdict:
        """The verdict on ``answer`` (unwrapped) given how it matches each golden answer."""


class ExactJudge(_AnswerJudge):
    """Success when the answer equals a golden answer after SQuAD normalization."""

    name = "exact"

    def score(
        self,
        trajectory: Trajectory,
        answer: str,
        found: list[Match],
        started: float,
        notes: list[str],
    ) -> Verdict:
        best = best_exact(found)
        if best.exact:
            reason = f"answer {answer!r} matches the golden answer {best.golden!r}"
        else:
            reason = (
                f"answer {answer!r} matches none of {len(found)} golden answer(s); the closest "
                f"is {best.golden!r} (F1 {best.f1:.2f})"
            )
        criterion = Criterion(
            name="exact match",
            kind="answer",
            passed=best.exact,
            reason=reason,
            evidence=answer_step(trajectory),
        )
        label: Label = "success" if best.exact else "failure"
        return make_verdict(self.name, trajectory, label, [criterion], started=started, notes=notes)


class F1Judge(_AnswerJudge):
    """Reward = the best token F1 over the golden answers (a float in [0, 1]); the label is
    success when it reaches ``threshold`` (default ``F1_THRESHOLD``, 0.5: at least half the
    answer and half the golden answer agree, e.g. "Paris France" against "Paris"). The label
    is for success rates and consensus votes; trainers that want partial credit read the
    reward."""

    name = "f1"

    def __init__(self, options: JudgeOptions | None = None, *, threshold: float | None = None):
        super().__init__(options)
        if threshold is None:
            threshold = options.f1_threshold if options is not None else F1_THRESHOLD
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"the F1 threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold

    def score(
        self,
        trajectory: Trajectory,
        answer: str,
        found: list[Match],
        started: float,
        notes: list[str],
    ) -> Verdict:
        best = best_f1(found)
        passed = best.f1 >= self.threshold
        reason = (
            f"answer {answer!r} has token F1 {best.f1:.3f} with the golden answer "
            f"{best.golden!r} (the best of {len(found)}); the pass mark is {self.threshold:g}"
        )
        criterion = Criterion(
            name="token F1",
            kind="answer",
            passed=passed,
            reason=reason,
            evidence=answer_step(trajectory),
        )
        label: Label = "success" if passed else "failure"
        return make_verdict(
            self.name,
            trajectory,
            label,
            [criterion],
            started=started,
            notes=notes,
            reward=best.f1,
        )
