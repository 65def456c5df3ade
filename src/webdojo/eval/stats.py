"""The scores of one eval: success with its 95% interval, per task, per group, and what went wrong.

``score`` turns a run's episode and step records into ``EvalScores``:

* the success rate is the mean over tasks of each task's success share, with the 95% interval
  of a nested bootstrap over tasks and their repeats (``webdojo.eval.bootstrap``: tasks are the
  unit of sampling, so repeats of one task are not counted as independent evidence); the same
  estimator on each site, source, difficulty and level;
* pass@k (Chen et al., 2021), reusing ``webdojo.store.eval_stats.pass_at_ks``;
* a graded reward counts as a success by ``eval_stats.succeeded``, the one rule everywhere;
* an episode without a reward (a fault: env or infra, or no verdict) is never an attempt and
  never a failure: it is counted apart, by error code. Above ``max_faults`` of the episodes,
  or with no scored episode, the eval is ``invalid``: its number would not be comparable;
* the model's replies: how many parsed into an action, with a warning below half (``store.summary.ParseStats``)
  (a wrong ``--template`` scores a capable model 0), and the step errors by code;
* tokens, cost (given a price per million tokens) and wall time.

``score_tables`` lays the scores out as rich tables for the terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

from rich.table import Table

from webdojo.eval.bootstrap import RESAMPLES, Interval, nested_bootstrap, round4
from webdojo.models.usage import Price, Usage
from webdojo.store.eval_stats import default_ks, group_rewards, pass_at_ks, succeeded
from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_reader import read_run
from webdojo.store.summary import ParseStats, parse_stats

__all__ = [
    "EvalScores",
    "Interval",
    "TaskScore",
    "nested_bootstrap",
    "score",
    "score_run",
    "score_tables",
]

MAX_FAULTS = 0.05  # above this share of faulted episodes an eval is invalid
ALL_TASKS_LISTED = 30  # above this many tasks the per-task table lists only imperfect ones
NO_VERDICT = "no_verdict"  # the code of an unscored episode that records no error


@dataclass(frozen=True)
class TaskScore:
    """One task's results over its repeats."""

    task_id: str
    site: str
    difficulty: int
    level: str
    source: str  # where the task comes from (the suite's part), as the caller passed it
    successes: int  # scored episodes that succeeded
    attempts: int  # scored episodes
    faults: int  # unscored episodes (faults): neither attempts nor failures
    steps: float | None  # mean steps over the scored episodes
    wall_s: float  # seconds, summed over the task's episodes

    @property
    def share(self) -> float | None:
        """Successes per scored attempt; None when no attempt was scored."""
        return None if self.attempts == 0 else self.successes / self.attempts


@dataclass(frozen=True)
class EvalScores:
    """Everything ``score`` measured; ``to_json`` is its stored form."""

    tasks: list[TaskScore]  # sorted by task id
    success: Interval  # over the tasks with a scored attempt
    by_site: dict[str, Interval]
    by_difficulty: dict[str, Interval]
    by_level: dict[str, Interval]
    by_source: dict[str, Interval]  # empty unless sources were given
    pass_at_k: dict[str, float]  # "1" and the largest k every task supports
    episodes: int  # every episode, scored or not
    scored: int  # episodes with a reward
    faults: int  # episodes without one
    fault_share: float | None  # faults / episodes
    fault_codes: dict[str, int]  # error code of each unscored episode -> count
    invalid: bool  # too many faults, or nothing scored
    invalid_reasons: list[str]  # why, in sentences
    mean_steps: float | None  # over scored episodes
    tokens: dict[str, int]  # prompt, completion, total
    cost: float | None  # USD; None without a price
    wall_s: float  # summed over episodes
    parse: ParseStats  # the policy's replies, how many parsed, step errors by code

    def to_json(self) -> dict[str, Any]:
        """JSON-safe, rounded to 4 decimals."""
        return {
            "episodes": self.episodes,
            "scored": self.scored,
            "tasks": self.success.n_tasks,
            "success": round4(self.success.mean),
            "ci95": self.success.ci95(),
            "ci_method": self.success.method,
            "pass_at_k": dict(self.pass_at_k),
            "by_task": {t.task_id: round4(t.share) for t in self.tasks},
            "by_site": _groups_json(self.by_site),
            "by_difficulty": _groups_json(self.by_difficulty),
            "by_level": _groups_json(self.by_level),
            "by_source": _groups_json(self.by_source),
            "faults": self.faults,
            "fault_share": round4(self.fault_share),
            "fault_codes": dict(self.fault_codes),
            "invalid": self.invalid,
            "invalid_reasons": list(self.invalid_reasons),
            "mean_steps": round4(self.mean_steps),
            "tokens": dict(self.tokens),
            "cost": self.cost,
            "wall_s": round4(self.wall_s),
            **self.parse.to_json(),  # replies, parsed, parse_rate, parse_warning, step_errors
        }


def _groups_json(groups: Mapping[str, Interval]) -> dict[str, dict[str, Any]]:
    return {
        name: {"success": round4(i.mean), "ci95": i.ci95(), "tasks": i.n_tasks}
        for name, i in groups.items()
    }


def outcomes(episodes: Sequence[EpisodeRecord]) -> dict[str, list[float]]:
    """Task id -> 1.0 / 0.0 per scored episode (``succeeded``); unscored episodes left out."""
    groups = group_rewards((e.task_id, e.reward) for e in episodes)
    return {task: [float(succeeded(r)) for r in rewards] for task, rewards in groups.items()}


def task_scores(
    episodes: Sequence[EpisodeRecord], sources: Mapping[str, str] | None = None
) -> list[TaskScore]:
    """One ``TaskScore`` per task id, sorted by id (tasks with only faults included)."""
    by_task: dict[str, list[EpisodeRecord]] = {}
    for e in episodes:
        by_task.setdefault(e.task_id, []).append(e)
    out = []
    for task_id, records in sorted(by_task.items()):
        scored = [e for e in records if e.reward is not None]
        first = records[0]
        out.append(
            TaskScore(
                task_id=task_id,
                site=first.site,
                difficulty=first.difficulty,
                level=first.level,
                source=(sources or {}).get(task_id, "unknown"),
                successes=sum(succeeded(e.reward) for e in scored if e.reward is not None),
                attempts=len(scored),
                faults=len(records) - len(scored),
                steps=fmean(e.steps for e in scored) if scored else None,
                wall_s=sum(e.wall_s for e in records),
            )
        )
    return out


def _breakdown(
    tasks: Sequence[TaskScore],
    groups: Mapping[str, list[float]],
    name_of: Callable[[TaskScore], str],
    resamples: int,
    seed: int,
) -> dict[str, Interval]:
    """Group name -> the nested-bootstrap interval over that group's scored tasks."""
    members: dict[str, list[list[float]]] = {}
    for task in tasks:
        members.setdefault(name_of(task), [])
        if task.task_id in groups:
            members[name_of(task)].append(groups[task.task_id])
    return {
        name: nested_bootstrap(scored, resamples=resamples, seed=seed)
        for name, scored in sorted(members.items())
    }


def _fault_reasons(episodes: int, scored: int, faults: int, max_faults: float) -> list[str]:
    reasons = []
    if episodes and faults / episodes > max_faults:
        reasons.append(
            f"{faults} of {episodes} episodes ({faults / episodes:.0%}) were not scored "
            f"(faults), above the {max_faults:.0%} allowed: fix the cause and resume the run "
            f"(a resume runs faulted episodes again)"
        )
    if scored == 0:
        reasons.append(
            "no episode was scored: there is no success rate"
            if episodes
            else "the run has no finished episode: there is no success rate"
        )
    return reasons


def _tokens(steps: Sequence[StepRecord]) -> dict[str, int]:
    prompt = sum(s.usage.get("prompt_tokens", 0) for s in steps)
    completion = sum(s.usage.get("completion_tokens", 0) for s in steps)
    return {"prompt": prompt, "completion": completion, "total": prompt + completion}


def _usage(tokens: Mapping[str, int]) -> Usage:
    return Usage(prompt_tokens=tokens["prompt"], completion_tokens=tokens["completion"])


def score(
    episodes: Sequence[EpisodeRecord],
    steps: Sequence[StepRecord],
    *,
    sources: Mapping[str, str] | None = None,
    max_faults: float = MAX_FAULTS,
    price: Price | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> EvalScores:
    """The scores of one eval (see the module docstring). ``episodes``: the latest record of
    each episode key; ``steps``: the steps of those episodes; ``sources``: task id -> source
    name (tasks not in it: "unknown"); ``price``: USD per million prompt and completion
    tokens (no price: no cost)."""
    tasks = task_scores(episodes, sources)
    groups = outcomes(episodes)

    def by(name_of: Callable[[TaskScore], str]) -> dict[str, Interval]:
        return _breakdown(tasks, groups, name_of, resamples, seed)

    scored = [e for e in episodes if e.reward is not None]
    unscored = [e for e in episodes if e.reward is None]
    tokens = _tokens(steps)
    reasons = _fault_reasons(len(episodes), len(scored), len(unscored), max_faults)
    return EvalScores(
        tasks=tasks,
        success=nested_bootstrap(list(groups.values()), resamples=resamples, seed=seed),
        by_site=by(lambda t: t.site),
        by_difficulty=by(lambda t: str(t.difficulty)),
        by_level=by(lambda t: t.level),
        by_source=by(lambda t: t.source) if sources is not None else {},
        pass_at_k=pass_at_ks(groups, default_ks(groups) or ([1] if groups else [])),
        episodes=len(episodes),
        scored=len(scored),
        faults=len(unscored),
        fault_share=len(unscored) / len(episodes) if episodes else None,
        fault_codes=dict(Counter(e.error.code if e.error else NO_VERDICT for e in unscored)),
        invalid=bool(reasons),
        invalid_reasons=reasons,
        mean_steps=fmean(e.steps for e in scored) if scored else None,
        tokens=tokens,
        cost=None if price is None else price.cost(_usage(tokens)),
        wall_s=sum(e.wall_s for e in episodes),
        parse=parse_stats(steps),
    )


def score_run(root: Path, **options: Any) -> EvalScores:
    """``score`` on a run directory: the latest record of each episode key and the steps of
    those finished attempts (``read_run``). ``options``: those of ``score``."""
    run = read_run(Path(root))
    return score(list(run.episodes.values()), list(run.finished_steps()), **options)


# --- terminal tables -----------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _ci(interval: Interval) -> str:
    if interval.lo is None or interval.hi is None:
        return "-"
    return f"[{interval.lo:.1%}, {interval.hi:.1%}]"


def _overall_table(s: EvalScores) -> Table:
    table = Table(title="Success", caption=f"95% CI: {s.success.method}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("success", f"{_pct(s.success.mean)} {_ci(s.success)}")
    table.add_row("tasks scored", str(s.success.n_tasks))
    table.add_row("episodes scored", f"{s.scored} of {s.episodes}")
    for k, value in s.pass_at_k.items():
        table.add_row(f"pass@{k}", _pct(value))
    table.add_row("mean steps", "-" if s.mean_steps is None else f"{s.mean_steps:.1f}")
    table.add_row("tokens", f"{s.tokens['prompt']:,} in + {s.tokens['completion']:,} out")
    table.add_row("cost", "-" if s.cost is None else f"${s.cost:.4f}")
    table.add_row("wall time", f"{s.wall_s:.0f} s (summed over episodes)")
    return table


def _breakdown_table(s: EvalScores) -> Table:
    table = Table(title="Success by group")
    table.add_column("by")
    table.add_column("group")
    table.add_column("tasks", justify="right")
    table.add_column("success", justify="right")
    table.add_column("95% CI", justify="right")
    parts = [("site", s.by_site), ("source", s.by_source), ("difficulty", s.by_difficulty)]
    for by, groups in parts:
        for name, interval in groups.items():
            table.add_row(by, name, str(interval.n_tasks), _pct(interval.mean), _ci(interval))
        if groups:
            table.add_section()
    return table


def _faults_table(s: EvalScores) -> Table:
    table = Table(title="Faults and parsing", caption="; ".join(s.invalid_reasons) or None)
    table.add_column("measure")
    table.add_column("value")
    codes = ", ".join(f"{code}: {n}" for code, n in sorted(s.fault_codes.items()))
    table.add_row("faults (not scored)", f"{s.faults} ({_pct(s.fault_share)}) {codes}".strip())
    table.add_row("valid", "[red]no[/red]" if s.invalid else "yes")
    parse = s.parse
    table.add_row("replies parsed", f"{parse.parsed} of {parse.replies} ({_pct(parse.rate)})")
    errors = ", ".join(f"{code}: {n}" for code, n in sorted(parse.errors.items()))
    table.add_row("step errors", errors or "-")
    if parse.warning():
        table.add_row("warning", f"[yellow]{parse.warning()}[/yellow]")
    return table


def _task_table(s: EvalScores) -> Table:
    shown = s.tasks
    caption = None
    if len(s.tasks) > ALL_TASKS_LISTED:
        shown = [t for t in s.tasks if t.share is None or t.share < 1]
        caption = f"{len(s.tasks) - len(shown)} of {len(s.tasks)} tasks, all attempts successful, not listed"
    table = Table(title="Tasks", caption=caption)
    for name in ("task", "site", "source"):
        table.add_column(name)
    for name in ("successes", "share", "faults", "mean steps"):
        table.add_column(name, justify="right")
    for t in shown:
        steps = "-" if t.steps is None else f"{t.steps:.1f}"
        share = _pct(t.share)
        table.add_row(
            t.task_id, t.site, t.source, f"{t.successes}/{t.attempts}", share, str(t.faults), steps
        )
    return table


def score_tables(scores: EvalScores) -> list[Table]:
    """Rich tables for the terminal: overall success with its interval, by group, faults and
    parsing, and per task (only the imperfect tasks when there are more than 30)."""
    return [
        _overall_table(scores),
        _breakdown_table(scores),
        _faults_table(scores),
        _task_table(scores),
    ]
