"""``webdojo judge calibrate --judge SPEC``: how often a judge agrees with known ground truth.

Where the truth comes from, each a *source* in the report:

* rollouts of the built-in tasks with the scripted, random and perturbed policies (``--policies``,
  ``--limit`` tasks each, picked across sites), stored in ``--out/<policy>`` with the same
  in-process rollout as ``webdojo run``; truth = the programmatic verifier's stored result;
* ``--runs DIR``: runs written earlier (any policy); truth = their verifier results;
* ``--labels FILE``: human labels (``webdojo.judges.human_labels``; several annotators merged by
  majority); truth = the humans' label of each trajectory they labelled.

Every run is judged with ``webdojo.judges.runner.judge_run`` (verdicts stored next to the run,
resumable: a second calibration of the same runs asks the model nothing new), and each verdict
is set against its truth (``webdojo.judges.calibration``). ``--compare-prompts`` also judges
with the rubric judge prompted fact by fact and with the task alone (WebGym's Figure 5).
Faulted episodes, tasks without a verifier and label ties are left out and counted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from webdojo.cli.calibration_tables import calibration_tables
from webdojo.cli.exits import model_command_exits
from webdojo.errors import ConfigError
from webdojo.judges.base import JudgeOptions
from webdojo.judges.calibration import (
    Pair,
    RunTruth,
    by_source,
    calibrate,
    compare,
    pair_up,
    run_truth,
)
from webdojo.judges.human_labels import MergedLabels, merge_labels, read_labels
from webdojo.judges.runner import judge_run
from webdojo.models import ModelConfig
from webdojo.store.verdicts import Label, Verdict
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.tasks.schema import Task

CALIBRATION_POLICIES = ("scripted", "random", "perturbed")
PROMPT_VARIANTS = {"rubric": "rubric", "task": "rubric-task"}  # WebGym Figure 5's two judges

console = Console(soft_wrap=True)  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)


@dataclass(frozen=True)
class CalibrationSetup:
    """What to roll out, what to read and which judge to calibrate."""

    judge: str
    options: JudgeOptions
    out: Path
    policies: tuple[str, ...] = CALIBRATION_POLICIES
    limit: int = 6
    tasks: str = "builtin"
    seed: int = 0
    concurrency: int = 4
    runs: tuple[Path, ...] = ()
    label_files: tuple[Path, ...] = ()
    compare_prompts: bool = False


@dataclass
class Source:
    """One run directory and the truth it is checked against."""

    name: str  # a policy, "run:<dir>" or "labels:<run dir>"
    run_dir: Path
    truth: dict[str, Label]
    attempts: dict[str, str | None] | None = None  # verifier truth belongs to one attempt


@dataclass
class CalibrationResult:
    judge: str
    pairs: dict[str, list[Pair]] = field(default_factory=dict)  # judge spec -> pairs
    sources: list[Source] = field(default_factory=list)
    left_out: dict[str, int] = field(default_factory=dict)
    human: MergedLabels | None = None
    variants: dict[str, str] = field(default_factory=dict)  # "rubric"/"task" -> spec judged

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` line (see the module docstring)."""
        pairs = self.pairs[self.judge]
        out: dict[str, Any] = {"judge": self.judge, **calibrate(pairs).to_json()}
        out["by_source"] = {n: c.to_json(full=False) for n, c in by_source(pairs).items()}
        if self.variants:
            rubric, task = (self.pairs[self.variants[w]] for w in ("rubric", "task"))
            out["rubric_vs_task"] = compare(rubric, task, ("rubric", "task"))
        out["left_out"] = dict(self.left_out)
        out["runs"] = {s.name: str(s.run_dir) for s in self.sources}
        if self.human is not None:
            out["human_labels"] = {
                "trajectories": len(self.human.votes),
                "several_annotators": self.human.multiply_labelled,
                "unanimous": self.human.unanimous,
                "ties": len(self.human.ties),
            }
        return out


def prompt_specs(judge: str) -> dict[str, str]:
    """The two rubric-judge variants compared, asking the same model as ``judge`` when it names
    one (``rubric@m`` -> ``rubric@m`` and ``rubric-task@m``)."""
    name, at, model = judge.partition("@")
    suffix = at + model if name in PROMPT_VARIANTS.values() else ""
    return {which: spec + suffix for which, spec in PROMPT_VARIANTS.items()}


def pick_tasks(task_set: TaskSet, limit: int) -> TaskSet:
    """``limit`` tasks taken in turn from each site (a task set's own order, site by site), so
    that a small calibration still covers every site."""
    by_site: dict[str, list[Task]] = {}
    for task in task_set.tasks:
        by_site.setdefault(task.website or "", []).append(task)
    chosen: list[Task] = []
    queues = list(by_site.values())
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return TaskSet(tasks=chosen, sites=task_set.sites)


async def run_calibration(setup: CalibrationSetup, progress: Progress) -> CalibrationResult:
    """Roll out, read, judge and pair up (see the module docstring)."""
    result = CalibrationResult(judge=setup.judge)
    left = result.left_out
    for name in ("faulted", "unverified", "unjudged", "label_ties"):
        left[name] = 0
    if setup.policies:
        result.sources += await _rollouts(setup, progress, left)
    for run in setup.runs:
        result.sources.append(_verified(f"run:{run}", run, left, keys=None))
    if setup.label_files:
        result.human = merge_labels(line for f in setup.label_files for line in read_labels(f))
        left["label_ties"] = len(result.human.ties)
        result.sources += _human_sources(result.human)
    if not result.sources:
        raise ConfigError("nothing to calibrate on: give --policies, --runs or --labels")
    specs = [setup.judge]
    if setup.compare_prompts:
        result.variants = prompt_specs(setup.judge)
        specs += [s for s in result.variants.values() if s not in specs]
    for spec in specs:
        result.pairs[spec] = await _judge_sources(spec, setup, result.sources, progress, left)
    return result


async def _rollouts(
    setup: CalibrationSetup, progress: Progress, left: dict[str, int]
) -> list[Source]:
    from webdojo.policies import make_policy  # the browser stack: only when rolling out
    from webdojo.rollout.run import RunConfig, run_job

    task_set = pick_tasks(load_spec(setup.tasks), setup.limit)
    keys = {f"{t.id}#0" for t in task_set.tasks}
    sources = []
    for name in setup.policies:
        if name not in CALIBRATION_POLICIES:
            raise ConfigError(
                f"--policies: {name!r} is not a calibration policy "
                f"({', '.join(CALIBRATION_POLICIES)}); pass other runs with --runs"
            )
        run_dir = setup.out / name
        config = RunConfig(
            tasks=setup.tasks,
            policy=name,
            concurrency=setup.concurrency,
            seed=setup.seed,
            out=str(run_dir),
        )
        bar = progress.add_task(f"rollout {name}", total=None)
        await run_job(
            config,
            task_set,
            make_policy(name, seed=setup.seed),
            on_episode=partial(_advance, progress, bar),
            on_start=partial(_total, progress, bar),
        )
        sources.append(_verified(name, run_dir, left, keys=keys))
    return sources


def _verified(name: str, run_dir: Path, left: dict[str, int], keys: set[str] | None) -> Source:
    truth: RunTruth = run_truth(run_dir)
    left["faulted"] += truth.faulted
    left["unverified"] += truth.unverified
    labels = {k: v for k, v in truth.labels.items() if keys is None or k in keys}
    return Source(name, run_dir, labels, truth.episodes)


def _human_sources(merged: MergedLabels) -> list[Source]:
    return [
        Source(
            f"labels:{run}",
            run,
            {key: label for (r, key), label in merged.labels.items() if r == run},
        )
        for run in merged.runs()
    ]


async def _judge_sources(
    spec: str,
    setup: CalibrationSetup,
    sources: list[Source],
    progress: Progress,
    left: dict[str, int],
) -> list[Pair]:
    verdicts: dict[Path, dict[str, Verdict]] = {}  # a run in two sources is judged once
    pairs: list[Pair] = []
    for source in sources:
        run = source.run_dir.resolve()
        if run not in verdicts:
            bar = progress.add_task(f"judging {spec}: {source.name}", total=None)
            report = await judge_run(
                source.run_dir,
                spec,
                setup.options,
                on_start=partial(_total, progress, bar),
                on_verdict=partial(_advance, progress, bar),
            )
            verdicts[run] = report.verdicts
        found, unjudged = pair_up(
            source.truth,
            verdicts[run],
            prefix=str(source.run_dir),
            source=source.name,
            attempts=source.attempts,
        )
        pairs += found
        if spec == setup.judge:
            left["unjudged"] += unjudged
    return pairs


def _advance(progress: Progress, bar: TaskID, *_: object) -> None:
    progress.advance(bar)


def _total(progress: Progress, bar: TaskID, total: int, *_: object) -> None:
    progress.update(bar, total=total)


def _parse_policies(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",") if p.strip())


HELP = {
    "judge": "the judge to calibrate (a spec as in `webdojo judge --judge`)",
    "limit": "built-in tasks rolled out per policy (taken across sites)",
    "policies": "policies rolled out for ground truth: scripted,random,perturbed ('' for none)",
    "tasks": "task spec the rollouts draw from",
    "labels": "a human-label JSONL file (repeat for several annotators' files)",
    "runs": "another run directory, scored by its stored verifier results (repeatable)",
    "out": "where the rollouts go (default runs/calibration-<timestamp>); reused when it exists",
    "compare": "also compare the rubric judge prompted with the rubric vs the task alone",
    "seed": "seed of the random and perturbed policies",
    "concurrency": "episodes rolled out at once",
}


def calibrate_command(
    judge: Annotated[str, typer.Option("--judge", help=HELP["judge"])],
    limit: Annotated[int, typer.Option(min=1, help=HELP["limit"])] = 6,
    policies: Annotated[str, typer.Option(help=HELP["policies"])] = ",".join(CALIBRATION_POLICIES),
    tasks: Annotated[str, typer.Option(help=HELP["tasks"])] = "builtin",
    labels: Annotated[list[Path] | None, typer.Option("--labels", help=HELP["labels"])] = None,
    runs: Annotated[list[Path] | None, typer.Option("--runs", help=HELP["runs"])] = None,
    out: Annotated[Path | None, typer.Option(help=HELP["out"])] = None,
    compare_prompts: Annotated[bool, typer.Option(help=HELP["compare"])] = False,
    model_base_url: Annotated[
        str | None, typer.Option(help="judge model endpoint (else $WEBDOJO_MODEL_BASE_URL)")
    ] = None,
    model: Annotated[str | None, typer.Option(help="judge model (else $WEBDOJO_MODEL)")] = None,
    seed: Annotated[int, typer.Option(help=HELP["seed"])] = 0,
    concurrency: Annotated[int, typer.Option(min=1, help=HELP["concurrency"])] = 4,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the figures as JSON as the last stdout line")
    ] = False,
) -> None:
    """Calibrate a judge against ground truth: verifier-scored rollouts and human labels.

    Exit codes: 0 done; 2 bad input; 3 the judge model's endpoint is down (run again to resume)."""
    setup = CalibrationSetup(
        judge=judge,
        options=JudgeOptions(model=ModelConfig.from_env(base_url=model_base_url, model=model)),
        out=out or Path("runs") / datetime.now().strftime("calibration-%Y%m%d-%H%M%S"),
        policies=_parse_policies(policies),
        limit=limit,
        tasks=tasks,
        seed=seed,
        concurrency=concurrency,
        runs=tuple(runs or ()),
        label_files=tuple(labels or ()),
        compare_prompts=compare_prompts,
    )
    with model_command_exits(errors):
        result = asyncio.run(_with_progress(setup))
    summary = result.to_json()
    for table in calibration_tables(summary):
        console.print(table)
    if as_json:
        print(json.dumps(summary))


async def _with_progress(setup: CalibrationSetup) -> CalibrationResult:
    columns: Iterable[Any] = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=errors, transient=True) as progress:
        return await run_calibration(setup, progress)


def register(judge_app: typer.Typer) -> None:
    """Add ``calibrate`` to the ``webdojo judge`` group."""
    judge_app.command("calibrate")(calibrate_command)
