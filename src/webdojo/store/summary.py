"""Summaries of a run directory: success by site and difficulty, steps, repetition, faults,
and how many of the policy's replies parsed into an action.

Success rates count only verified episodes: an episode lost to an env or infra fault was never
scored, so it is reported in ``faults`` rather than counted as a failure. A run whose replies
mostly fail to parse scores 0% for a reason that is not the agent's skill at the task (most
often a template that does not match the model's output format): ``ParseStats`` says so.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any

from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_reader import StoredRun, read_run
from webdojo.tasks.schema import LEVELS


@dataclass
class Bucket:
    episodes: int = 0  # verified episodes
    successes: int = 0
    faults: int = 0  # episodes that ended in an env/infra fault (unscored)
    steps: list[int] = field(default_factory=list)

    def add(self, record: EpisodeRecord) -> None:
        if record.success is None:
            self.faults += 1
            return
        self.episodes += 1
        self.successes += record.success
        self.steps.append(record.steps)

    @property
    def success_rate(self) -> float | None:
        return None if self.episodes == 0 else self.successes / self.episodes

    def to_json(self) -> dict[str, Any]:
        rate = self.success_rate
        return {
            "episodes": self.episodes,
            "successes": self.successes,
            "success_rate": None if rate is None else round(rate, 4),
            "mean_steps": round(mean(self.steps), 2) if self.steps else None,
            "faults": self.faults,
        }


MIN_PARSE_RATE = 0.5  # below this share of parsed replies, summaries warn


@dataclass(frozen=True)
class ParseStats:
    """The policy's replies (one per step) and how many parsed into an action."""

    replies: int = 0
    parsed: int = 0
    errors: dict[str, int] = field(default_factory=dict)  # step error code -> count

    @property
    def rate(self) -> float | None:
        return None if self.replies == 0 else self.parsed / self.replies

    def warning(self, minimum: float = MIN_PARSE_RATE) -> str | None:
        """A sentence for people when fewer than ``minimum`` of the replies parsed."""
        rate = self.rate
        if rate is None or rate >= minimum:
            return None
        return (
            f"only {self.parsed} of {self.replies} policy replies ({rate:.0%}) parsed into an "
            "action: the scores say little about the agent; check that --template matches "
            "the model's output format (each step's parse_error holds the raw reply)"
        )

    def to_json(self) -> dict[str, Any]:
        rate = self.rate
        return {
            "replies": self.replies,
            "parsed": self.parsed,
            "parse_rate": None if rate is None else round(rate, 4),
            "parse_warning": self.warning(),
            "step_errors": dict(sorted(self.errors.items())),
        }


def parse_stats(steps: Iterable[StepRecord]) -> ParseStats:
    """Replies, parsed replies and step errors by code over ``steps``."""
    replies = parsed = 0
    errors: Counter[str] = Counter()
    for step in steps:
        replies += 1
        parsed += step.action is not None
        if step.error is not None:
            errors[step.error.code] += 1
    return ParseStats(replies=replies, parsed=parsed, errors=dict(errors))


@dataclass
class RunSummary:
    out: str
    overall: Bucket
    by_site: dict[str, Bucket]
    by_difficulty: dict[int, Bucket]
    by_level: dict[str, Bucket]
    repeated_steps: int  # steps whose next screenshot is byte-identical to the one acted on
    total_steps: int
    wall_s: float  # sum of episode wall times
    fault_codes: dict[str, int]
    parse: ParseStats = field(default_factory=ParseStats)

    @property
    def repetition_share(self) -> float | None:
        return None if self.total_steps == 0 else self.repeated_steps / self.total_steps

    def to_json(self, elapsed_s: float | None = None) -> dict[str, Any]:
        """The ``--json`` line: episodes, success_rate, by_site, by_difficulty, out (+ extras)."""
        overall = self.overall.to_json()
        share = self.repetition_share
        return {
            "episodes": self.overall.episodes + self.overall.faults,
            "success_rate": overall["success_rate"],
            "by_site": {k: v.to_json() for k, v in sorted(self.by_site.items())},
            "by_difficulty": {str(k): v.to_json() for k, v in sorted(self.by_difficulty.items())},
            "by_level": {k: v.to_json() for k, v in self.by_level.items()},
            "mean_steps": overall["mean_steps"],
            "repetition_share": None if share is None else round(share, 4),
            "faults": self.fault_codes,
            **self.parse.to_json(),
            "episode_wall_s": round(self.wall_s, 2),
            "elapsed_s": None if elapsed_s is None else round(elapsed_s, 2),
            "out": self.out,
        }


def summarize(root: Path | StoredRun) -> RunSummary:
    """The summary of a run directory (or of its records, already read)."""
    run = root if isinstance(root, StoredRun) else read_run(root)
    records = list(run.episodes.values())
    overall = Bucket()
    by_site: defaultdict[str, Bucket] = defaultdict(Bucket)
    by_diff: defaultdict[int, Bucket] = defaultdict(Bucket)
    by_level: dict[str, Bucket] = {level: Bucket() for level in LEVELS}
    fault_codes: dict[str, int] = defaultdict(int)
    for rec in records:
        for bucket in (
            overall,
            by_site[rec.site],
            by_diff[rec.difficulty],
            by_level.setdefault(rec.level, Bucket()),  # "unknown": a task with no level
        ):
            bucket.add(rec)
        if rec.error is not None:
            fault_codes[rec.error.code] += 1
    repeated, total = repetition(run)
    return RunSummary(
        out=str(run.root),
        overall=overall,
        by_site=dict(by_site),
        by_difficulty=dict(by_diff),
        by_level={k: v for k, v in by_level.items() if v.episodes or v.faults},
        repeated_steps=repeated,
        total_steps=total,
        wall_s=sum(r.wall_s for r in records),
        fault_codes=dict(fault_codes),
        parse=parse_stats(run.finished_steps()),
    )


def repetition(run: StoredRun) -> tuple[int, int]:
    """WebGym's repetition statistic over finished episodes: steps whose screenshot did not
    change (``StepRecord.repeated``), out of steps with a screenshot that were not a stop
    (stopping never changes the page; counting it would inflate the share)."""
    repeated = total = 0
    for step in run.finished_steps():
        if step.screenshot is None or (step.action is not None and step.action.type == "stop"):
            continue
        total += 1
        repeated += step.repeated
    return repeated, total
