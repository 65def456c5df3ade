"""Judge every episode of a run directory: resumable, bounded, and never half-written.

``judge_run`` reads the run through ``webdojo.store``, builds the judge from its spec and
appends one verdict per finished episode attempt to ``RUN/verdicts/<judge>.jsonl``:

* resumable: an attempt that already has a verdict of this judge is skipped (``--force``
  judges it again; the newer verdict wins when read back);
* faulted episodes (env/infra faults, never scored) get an ``infra_error`` verdict that names
  the fault, without asking the judge;
* a judge that needs a model is checked against its endpoint first: an endpoint that is down
  raises ``ModelError`` before any verdict is written. An endpoint that dies midway stops the
  run the same way; every verdict written until then is whole (one synced line each), and the
  next run resumes from there;
* every model reply goes to ``RUN/verdicts/<judge>.calls.jsonl`` by content hash, so a
  re-run, or another judge asking the same question, pays nothing;
* at most ``concurrency`` episodes are judged at once (the model client caps requests too);
* with ``block``, the website of every ``blocked`` verdict goes to a blocklist file, which
  ``webdojo tasks sample --blocklist`` honours (WebGym keeps such websites out for a while).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from webdojo.errors import (
    ConfigError,
    ContextTooLong,
    ErrorInfo,
    ModelError,
    ModelOutputInvalid,
    TrajectoryIncomplete,
)
from webdojo.judges.base import Judge, JudgeOptions, error_verdict, make_verdict
from webdojo.judges.spec import build_judge
from webdojo.judges.trajectory import Trajectory, trajectories
from webdojo.models import ModelClient
from webdojo.models.reply_cache import ReplyCache
from webdojo.store.eval_stats import group_rewards, pass_at_ks
from webdojo.store.run_config import CONFIG, RunConfigRecord, read_config
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import EPISODES
from webdojo.store.verdicts import (
    LABELS,
    Criterion,
    Verdict,
    VerdictWriter,
    calls_path,
    read_verdicts,
)
from webdojo.tasks.blocklist import block_website
from webdojo.tasks.loader import load_spec
from webdojo.tasks.qa_tasks import load_qa_tasks
from webdojo.tasks.schema import Task

OnVerdict = Callable[[Verdict], None]


@dataclass(frozen=True)
class BlockReports:
    """Where ``blocked`` verdicts send their websites (WebGym keeps blocking websites out of
    sampling for a while): ``webdojo tasks sample --blocklist FILE`` then skips them."""

    path: Path  # the blocklist file (``webdojo.tasks.blocklist``)
    duration: timedelta  # how long each report keeps the website out


@dataclass
class JudgeReport:
    """What ``webdojo judge`` did, over every verdict the run now has from this judge."""

    run: str
    judge: str
    todo: int = 0  # attempts judged in this invocation (the rest were judged before)
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # key -> latest verdict
    invalid_records: list[str] = field(default_factory=list)  # run lines that did not parse
    blocked_websites: set[str] = field(default_factory=set)  # reported to the blocklist now

    @property
    def labels(self) -> Counter[str]:
        return Counter(v.label for v in self.verdicts.values())

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` line: judged, labels, reward_mean, model_calls (+ pass_at_k)."""
        verdicts = list(self.verdicts.values())
        rewards = [v.reward for v in verdicts if v.reward is not None]
        labels = self.labels
        out: dict[str, Any] = {
            "judged": len(verdicts),
            "labels": {label: labels.get(label, 0) for label in LABELS},
            "reward_mean": round(sum(rewards) / len(rewards), 4) if rewards else None,
            "model_calls": sum(v.usage.calls for v in verdicts),
            "cached_calls": sum(v.usage.cached for v in verdicts),
            "tokens": sum(v.usage.tokens for v in verdicts),
            "cost": _cost(verdicts),
            "unparseable": sum(v.unparseable for v in verdicts),
            "disagreements": sum(
                any(n.startswith("judges disagree") for n in v.notes) for v in verdicts
            ),
            "new": self.todo,
            "blocked_websites": len(self.blocked_websites),
            "judge": self.judge,
            "run": self.run,
        }
        by_task = group_rewards((v.task_id, v.reward) for v in verdicts)
        if any(len(r) > 1 for r in by_task.values()):
            out["pass_at_k"] = pass_at_ks(by_task)
        return out


def _cost(verdicts: list[Verdict]) -> float | None:
    costs = [v.usage.cost for v in verdicts if v.usage.cost is not None]
    return round(sum(costs), 6) if costs else None


async def judge_run(
    run_dir: Path,
    spec: str,
    options: JudgeOptions,
    *,
    tasks: str | None = None,
    force: bool = False,
    concurrency: int = 8,
    block: BlockReports | None = None,
    on_start: Callable[[int], None] | None = None,
    on_verdict: OnVerdict | None = None,
) -> JudgeReport:
    """Judge the run's episodes with ``spec`` (see the module docstring)."""
    run_dir = Path(run_dir)
    if not (run_dir / EPISODES).is_file():
        raise ConfigError(f"{run_dir} is not a run directory (no {EPISODES})")
    run = read_run(run_dir)
    by_id = _task_set(run_dir, tasks)
    report = JudgeReport(run=str(run_dir), judge=spec, invalid_records=run.invalid)
    report.verdicts = read_verdicts(run_dir, spec)
    todo = [t for t in trajectories(run, by_id) if force or not _judged(t, report.verdicts)]
    report.todo = len(todo)
    if on_start is not None:
        on_start(len(todo))
    if not todo:
        return report
    with ReplyCache(calls_path(run_dir, spec)) as cache:
        judge = build_judge(spec, dataclasses.replace(options, cache=cache))
        async with judge:
            if judge.needs_model:
                await check_endpoint(options)
            with VerdictWriter(run_dir, spec) as writer:
                await _judge_all(
                    judge,
                    todo,
                    writer,
                    report,
                    concurrency,
                    _with_blocking(report, block, on_verdict),
                )
    return report


def _task_set(run_dir: Path, tasks: str | None) -> dict[str, Task]:
    config = read_config(run_dir) or RunConfigRecord()
    spec = tasks or config.tasks
    if not spec:
        raise ConfigError(f"{run_dir / CONFIG} names no task set: pass --tasks")
    # a run on the wiki read its tasks as QA tasks: any format `tasks import` reads
    loaded = load_qa_tasks(spec) if config.wiki else load_spec(spec)
    return {task.id: task for task in loaded.tasks}


def _judged(trajectory: Trajectory, verdicts: dict[str, Verdict]) -> bool:
    old = verdicts.get(trajectory.key)
    return old is not None and old.episode == trajectory.record.episode


async def check_endpoint(options: JudgeOptions) -> None:
    """Raise ``ModelError`` now when the judge model's endpoint cannot be reached."""
    if options.model is None:
        raise ConfigError(
            "this judge needs a model endpoint: pass --model-base-url or set WEBDOJO_MODEL_BASE_URL"
        )
    async with ModelClient(options.model) as client:
        await client.ping()


async def _judge_all(
    judge: Judge,
    todo: list[Trajectory],
    writer: VerdictWriter,
    report: JudgeReport,
    concurrency: int,
    after: Callable[[Verdict, Trajectory], None],
) -> None:
    gate = asyncio.Semaphore(max(1, concurrency))
    stopped = asyncio.Event()  # set by the first endpoint failure: start nothing more

    async def one(trajectory: Trajectory) -> None:
        async with gate:
            if stopped.is_set():
                return
            try:
                verdict = await _verdict(judge, trajectory)
            except ModelError:
                stopped.set()
                raise
        writer.write(verdict)  # synced before the next one: a kill loses at most this one
        report.verdicts[verdict.key] = verdict
        after(verdict, trajectory)

    try:
        async with asyncio.TaskGroup() as group:
            for trajectory in todo:
                group.create_task(one(trajectory))
    except* ModelError as errors:
        first = errors.exceptions[0]
        assert isinstance(first, ModelError)
        done = sum(1 for t in todo if _judged(t, report.verdicts))
        raise type(first)(
            f"{first.message}; stopped after {done} of {len(todo)} verdicts (each written "
            "whole): fix the endpoint and run the same command to resume",
            **first.details,
        ) from first


def _with_blocking(
    report: JudgeReport, block: BlockReports | None, on_verdict: OnVerdict | None
) -> Callable[[Verdict, Trajectory], None]:
    def after(verdict: Verdict, trajectory: Trajectory) -> None:
        task = trajectory.task
        remote = task is not None and task.local_site is None  # local sites never block
        website = (task.website or task.start_url) if task is not None and remote else None
        if block is not None and verdict.label == "blocked" and website:
            reason = next((c.reason for c in verdict.criteria if c.kind == "blocking"), "")
            site, _ = block_website(block.path, website, block.duration, reason[:200])
            report.blocked_websites.add(site)
        if on_verdict is not None:
            on_verdict(verdict)

    return after


async def _verdict(judge: Judge, trajectory: Trajectory) -> Verdict:
    record = trajectory.record
    if record.fault is None:
        try:
            return await judge.judge(trajectory)
        except (ModelOutputInvalid, ContextTooLong, TrajectoryIncomplete) as exc:
            # this trajectory's problem, not the endpoint's: judges usually return these
            # verdicts themselves (with their usage); this is the backstop
            return error_verdict(judge.name, trajectory, exc)
    error = record.error or ErrorInfo(code="fault", fault=record.fault, message="faulted")
    reason = f"the episode ended in a {record.fault} fault ({error.code}): never scored"
    criteria = [Criterion(name="episode", kind="input", passed=None, reason=reason)]
    return make_verdict(judge.name, trajectory, "infra_error", criteria, error=error)
