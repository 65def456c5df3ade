"""``run_loop``: the whole learning run, every stage writing under ``out``.

    demos             the scripted teacher on the training instances, or on ``--demos`` (judged)
    random            the random policy on the held-out instances (the chance level)
    round-0           behaviour cloning of the demonstrations, then greedy evaluation
    round-N (N >= 1)  the model rolls out on a sample of training instances (``group_size``
                      episodes each, sampling), judged; select (``rule``), update, evaluate

Each round is scored after its update on every evaluated set (training, held-out, and
out-of-distribution when given) with ``eval``'s statistics. ``loop.json`` is rewritten after
each round and the model checkpointed, so ``--resume`` goes on after the last finished round
(a round a killed loop left half done is set aside as ``round-N.unfinished-TIME`` and redone);
a round whose rollouts all fault is recorded as such and trains on nothing new.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from transformers.utils import logging as hf_logging

from webdojo.asgi import free_port
from webdojo.loop import stages
from webdojo.loop.config import LoopConfig
from webdojo.loop.page import write_loop_page
from webdojo.loop.plot import write_loop_plot
from webdojo.loop.report import LoopReport, pct, with_ci
from webdojo.loop.splits import Splits, load_splits
from webdojo.store.summary import summarize
from webdojo.tasks.loader import TaskSet
from webdojo.training.select_runs import SelectSettings, select
from webdojo.training.tiny_models import ModelBundle, load_bundle
from webdojo.training.trainer import METRICS

Say = Callable[[str], None]


def run_loop(config: LoopConfig, say: Say = print, splits: Splits | None = None) -> LoopReport:
    """The whole loop (see the module docstring); ``splits``: already loaded from ``config``."""
    started = time.perf_counter()
    hf_logging.disable_progress_bar()  # checkpoint saves would draw bars between our lines
    config.check()
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    splits = splits or load_splits(config)
    config = replace(config, site_port=config.site_port or free_port())
    config.save()
    report = LoopReport.load(out) if config.resume else LoopReport()
    report.instances = {name: len(s.tasks) for name, s in _scored_sets(config, splits).items()}
    report.instances["train_all"] = len(splits.train.tasks)
    report.instances["demos"] = len(splits.demos.tasks)
    spent = report.seconds
    demos, demos_selection = _demos(config, splits, out, say)
    if "heldout" not in report.random and config.random_baseline:
        _random(config, splits, out, report, say)
    bundle = _resume_model(config, report, out) or stages.initial_model(config, demos_selection)
    runs = [demos, *(out / f"round-{r['round']}" / "rollout" for r in report.rounds[1:])]
    _set_aside_unfinished(out, len(report.rounds))
    for number in range(len(report.rounds), config.rounds + 1):
        round_started = time.perf_counter()
        row = _round(config, bundle, splits, runs, demos_selection, out, number)
        row["seconds"] = round(time.perf_counter() - round_started, 1)
        report.rounds.append(row)
        report.seconds = spent + time.perf_counter() - started
        report.save(out)
        say(_line(row))
    _pictures(out, report)
    say(f"plot: {out / 'loop.png'}; page: {out / 'loop.html'}")
    return report


def _demos(config: LoopConfig, splits: Splits, out: Path, say: Say) -> tuple[Path, Path]:
    demos, selection = out / "demos", out / "demos-selection"
    if not (selection / "samples.jsonl").is_file():  # a resumed loop keeps its demonstrations
        stages.demos(config, splits.demos, demos)
        select([demos], selection, SelectSettings(rule="bc", judge=stages.JUDGE))
    rate = summarize(demos).overall.success_rate
    say(f"demonstrations: the teacher solved {pct(rate)} of {len(splits.demos.tasks)} instances")
    return demos, selection


def _random(config: LoopConfig, splits: Splits, out: Path, report: LoopReport, say: Say) -> None:
    for name, tasks in splits.evaluated().items():
        if name == "train":
            continue
        score = stages.random_baseline(config, tasks, out / "random" / name, name)
        report.random[name] = {
            "success": score.success.mean,
            "ci95": score.success.ci95(),
            "by_kind": score.kinds_json(),
        }
        say(f"random policy on {name}: {with_ci(score.success.mean, score.success.ci95())}")
    report.save(out)


def _resume_model(config: LoopConfig, report: LoopReport, out: Path) -> ModelBundle | None:
    """The checkpoint of the last finished round of a resumed loop."""
    checkpoint = report.rounds[-1].get("checkpoint") if report.rounds else None
    return None if checkpoint is None else load_bundle(Path(checkpoint))


def _set_aside_unfinished(out: Path, number: int) -> None:
    """A round a killed loop left half done is redone; what it wrote is kept beside it."""
    unfinished = out / f"round-{number}"
    if unfinished.exists():
        unfinished.rename(out / f"round-{number}.unfinished-{time.strftime('%Y%m%dT%H%M%S')}")


def _round(
    config: LoopConfig,
    bundle: ModelBundle,
    splits: Splits,
    runs: list[Path],
    demos_selection: Path,
    out: Path,
    number: int,
) -> dict[str, Any]:
    """One round: (on-policy rollouts, selection,) update, evaluation."""
    here = out / f"round-{number}"
    rule, selection = "bc", demos_selection
    row: dict[str, Any] = {"round": number, "rollout_success": None}
    if number > 0:
        rule = config.rule
        sample = stages.pick(splits.train, config.rollout_tasks, config.seed + number)
        rollout = stages.rollout(
            config, bundle, sample, here / "rollout", config.temperature, repeats=config.group_size
        )
        runs.append(rollout)
        overall = summarize(rollout).overall
        row |= {"rollout_success": overall.success_rate, "rollout_faults": overall.faults}
        selection = here / "selection"
        stages.select_round(config, runs, demos_selection, selection, rule)
    row |= {"rule": rule, "kept": stages.count_samples(selection)}
    if row["kept"]:
        result = stages.update(config, bundle, selection, here / "train", number, rule)
        row |= {
            "loss_first": result.loss_first,
            "loss_last": result.loss_last,
            "checkpoint": result.checkpoint,
        }
    else:  # every rollout failed the rule or faulted: the model stays as it was
        row |= {"loss_first": None, "loss_last": None, "note": "nothing selected: no update"}
        row["checkpoint"] = _last_checkpoint(runs, out, number)
    row["parsed"] = {}
    for name, tasks in _scored_sets(config, splits).items():
        score = stages.evaluate(config, bundle, tasks, here / "eval" / name, name)
        row[name], row[f"{name}_ci95"] = score.success.mean, score.success.ci95()
        row["parsed"][name] = score.parsed
        if name != "train":  # a sample of the training set says little per kind
            row[f"{name}_by_kind"] = score.kinds_json()
    return row


def _scored_sets(config: LoopConfig, splits: Splits) -> dict[str, TaskSet]:
    """What each round is scored on: every held-out instance, and a fixed sample of the
    training ones (scoring all of them would cost more than the round itself)."""
    return splits.evaluated() | {"train": stages.pick(splits.train, config.train_eval, config.seed)}


def _last_checkpoint(runs: list[Path], out: Path, number: int) -> str | None:
    """The checkpoint an update-less round hands on: the newest one written before it."""
    for earlier in range(number - 1, -1, -1):
        found = sorted((out / f"round-{earlier}" / "train").glob("checkpoints/step-*"))
        if found:
            return str(found[-1])
    return None


def _line(row: dict[str, Any]) -> str:
    held = with_ci(row.get("heldout"), row.get("heldout_ci95"))
    loss = "no update" if row["loss_last"] is None else f"loss {row['loss_first']:.3f} -> "
    loss += "" if row["loss_last"] is None else f"{row['loss_last']:.3f}"
    return f"round {row['round']} ({row['rule']}): held-out {held}, training {pct(row.get('train'))}; {loss}"


def _pictures(out: Path, report: LoopReport) -> None:
    metrics = [out / f"round-{r['round']}" / "train" / METRICS for r in report.rounds]
    write_loop_plot(out / "loop.png", report.to_json(), metrics)
    write_loop_page(out / "loop.html", report.to_json(), "loop.png")
