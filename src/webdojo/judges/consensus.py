"""Consensus of k judges: BrowserAgent's vote of LLM judges, generalized.

Every member judges the trajectory (concurrently); the vote decides the label:

* ``majority``: success when more than half of the k members say success (2 of 3);
* ``unanimous``: success only when every member says success.

When the vote is not success, the label is the most common of the members' other labels
(``failure`` wins ties, being the safe answer). When the members that could judge are too few
to decide (the rest answered ``infra_error``), the consensus is ``infra_error``: never a
score the vote did not reach. Each member's label and reason is kept as a ``vote``
criterion, and a split vote is named in the notes, so disagreements can be counted and read.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter

from webdojo.judges.base import Judge, make_verdict
from webdojo.judges.trajectory import Trajectory
from webdojo.store.verdicts import Criterion, JudgeUsage, Label, Verdict

_TIE_ORDER: tuple[Label, ...] = ("failure", "website_failure", "blocked", "infra_error")


class ConsensusJudge(Judge):
    def __init__(self, name: str, members: list[Judge], vote: str = "majority") -> None:
        if vote not in ("majority", "unanimous"):
            raise ValueError(f"unknown vote {vote!r}")
        self.name = name
        self.members = members
        self.vote = vote
        self.needs_model = any(m.needs_model for m in members)

    async def judge(self, trajectory: Trajectory) -> Verdict:
        started = time.perf_counter()
        verdicts = await asyncio.gather(*(m.judge(trajectory) for m in self.members))
        label = decide([v.label for v in verdicts], self.vote)
        criteria = [_vote(v) for v in verdicts]
        notes = [] if len({v.label for v in verdicts}) == 1 else [disagreement(verdicts)]
        models = sorted({v.model for v in verdicts if v.model})
        return make_verdict(
            self.name,
            trajectory,
            label,
            criteria,
            started=started,
            usage=sum_usage([v.usage for v in verdicts]),
            model=",".join(models) or None,
            notes=notes,
        )

    async def aclose(self) -> None:
        await asyncio.gather(*(m.aclose() for m in self.members))


def decide(labels: list[Label], vote: str) -> Label:
    """The consensus label of the members' labels (see the module docstring)."""
    successes = labels.count("success")
    needed = len(labels) if vote == "unanimous" else len(labels) // 2 + 1
    if labels and successes >= needed:
        return "success"
    others = Counter(label for label in labels if label not in ("success", "infra_error"))
    if not others:
        return "infra_error"  # too few members could judge to reach the vote either way
    top = max(others.values())
    return next(label for label in _TIE_ORDER if others.get(label) == top)


def disagreement(verdicts: list[Verdict]) -> str:
    return "judges disagree: " + ", ".join(f"{v.judge}={v.label}" for v in verdicts)


def sum_usage(usages: list[JudgeUsage]) -> JudgeUsage:
    costs = [u.cost for u in usages if u.cost is not None]
    return JudgeUsage(
        calls=sum(u.calls for u in usages),
        cached=sum(u.cached for u in usages),
        prompt_tokens=sum(u.prompt_tokens for u in usages),
        completion_tokens=sum(u.completion_tokens for u in usages),
        cost=round(sum(costs), 6) if costs else None,
    )


def _vote(verdict: Verdict) -> Criterion:
    failed = [c for c in verdict.criteria if c.passed is False]
    shown = failed or verdict.criteria
    reason = shown[0].reason if shown else ""
    if verdict.error is not None:
        reason = verdict.error.message
    evidence = sorted({step for c in verdict.criteria for step in c.evidence})
    return Criterion(
        name=f"vote {verdict.judge}",
        kind="vote",
        passed=None if verdict.label == "infra_error" else verdict.label == "success",
        reason=f"{verdict.label}: {reason}" if reason else verdict.label,
        evidence=evidence,
    )
