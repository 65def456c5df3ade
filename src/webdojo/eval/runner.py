"""``webdojo eval``'s job: roll a policy out over a suite, retry faults, judge, score.

An eval directory ``OUT`` holds::

    OUT/manifest.json      what the scores depend on (``webdojo.eval.manifest``)
    OUT/eval.json          the scores (``EvalScores.to_json`` with the suite and settings)
    OUT/steps.jsonl ...    the run itself, when the suite runs as one part (``core`` does)
    OUT/parts/<name>/      one run directory per part otherwise (``webdojo.eval.suites``)

Every part is an ordinary run directory (``webdojo view`` and ``webdojo judge`` read it).
The same command resumes: finished episodes are kept, faulted ones run again. Faulted episodes
are run again up to ``retries`` more times in the same eval and are never scored; what still
faults after that is counted apart, and a fault share above ``max_faults`` marks the eval
invalid. A model endpoint that fails episode after episode stops the eval (``ModelDown``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.errors import ConfigError
from webdojo.eval.manifest import Manifest, read_manifest, write_manifest
from webdojo.eval.stats import EvalScores, score
from webdojo.eval.suites import LoadedSuite, Part
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.policies.base import Policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.eval_stats import succeeded
from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import EPISODES, write_atomic
from webdojo.store.verdicts import read_verdicts

PARTS = "parts"
_ONLY_PART = ""  # the part of a one-part suite, whose run is the eval directory itself
SCORES = "eval.json"
# the manifest fields that must not change when an eval directory is resumed
_RESUME_KEYS = ("suite", "suite_hash", "policy", "model", "template", "seed", "repeats")


@dataclass(frozen=True)
class EvalPlan:
    """What one ``webdojo eval`` runs."""

    suite: LoadedSuite
    out: Path
    make_policy: Callable[[], Policy]  # a fresh policy for each pass (a run closes its own)
    manifest: Manifest
    concurrency: int = 4  # episodes in flight
    retries: int = 2  # passes over faulted episodes after the first
    max_faults: float = 0.05  # above this faulted share the eval is invalid
    # for sets with a judge; its ``price`` (USD per 1M tokens) also prices the policy's tokens
    judge: JudgeOptions = field(default_factory=JudgeOptions)
    network: NetworkPolicy = field(default_factory=NetworkPolicy)
    server: str | None = None  # run the browsers on a `webdojo serve` server
    token: str | None = field(default=None, repr=False)

    @property
    def seed(self) -> int:
        return self.manifest.seed

    @property
    def repeats(self) -> int:
        return self.manifest.repeats


@dataclass(frozen=True)
class Hooks:
    """Progress callbacks: a pass starts (part, episodes to run, episodes kept), an episode
    ends."""

    on_pass: Callable[[str, int, int], None] | None = None
    on_episode: Callable[[EpisodeRecord], None] | None = None


def part_dir(out: Path, suite: LoadedSuite, part: Part) -> Path:
    """Where a part's run directory is: OUT itself when the suite runs as one part."""
    return out if len(suite.parts) == 1 else out / PARTS / part.name


def start(plan: EvalPlan) -> None:
    """Create or resume the eval directory; a resume must measure the same thing."""
    old = read_manifest(plan.out)
    if old is not None:
        new = plan.manifest.model_dump()
        changed = [k for k in _RESUME_KEYS if old.model_dump()[k] != new[k]]
        if changed:
            raise ConfigError(
                f"{plan.out} holds an eval with a different {', '.join(changed)}; use another "
                "--out or the same settings to resume it"
            )
    plan.out.mkdir(parents=True, exist_ok=True)
    write_manifest(plan.manifest, plan.out)


async def run_eval(plan: EvalPlan, hooks: Hooks | None = None) -> EvalScores:
    """Run every part of the suite (resuming what is there), then score the whole eval."""
    hooks = hooks or Hooks()
    start(plan)
    for part in plan.suite.parts:
        await _run_part(plan, part, hooks)
    return score_eval(plan)


async def _run_part(plan: EvalPlan, part: Part, hooks: Hooks) -> None:
    root = part_dir(plan.out, plan.suite, part)
    config = RunConfig(
        tasks=part.spec,
        policy=plan.manifest.policy,
        concurrency=plan.concurrency,
        repeats=plan.repeats,
        seed=plan.seed,
        out=str(root),
        extra={"template": plan.manifest.template, "model": plan.manifest.model},
        server=plan.server,
        token=plan.token,
        archive=part.archive,
        wiki=part.wiki,
        network=plan.network,
    )
    for attempt in range(1 + plan.retries):
        if attempt and not _faulted(root):
            break

        def started(todo: int, kept: int, name: str = part.name) -> None:
            if hooks.on_pass is not None:
                hooks.on_pass(name, todo, kept)

        await run_job(
            config, part.tasks, plan.make_policy(), on_episode=hooks.on_episode, on_start=started
        )
    if part.judge is not None:
        await judge_run(root, part.judge, plan.judge, tasks=part.spec)


def _faulted(root: Path) -> bool:
    return any(r.reward is None and r.fault is not None for r in read_run(root).episodes.values())


def eval_records(
    out: Path, judges: Mapping[str, str] | None = None
) -> tuple[list[EpisodeRecord], list[StepRecord]]:
    """The scored records of an eval directory (or of a plain run directory): each part's
    latest episodes, with the rewards of a part in ``judges`` (part name -> judge spec, as
    the manifest keeps them; a suite of one part has at most one) taken from that judge's
    verdicts."""
    episodes: list[EpisodeRecord] = []
    steps: list[StepRecord] = []
    for name, root in run_dirs(out):
        run = read_run(root)
        records = list(run.episodes.values())
        judge = _judge_of(judges or {}, name)
        if judge is not None:
            records = _judged(records, root, judge)
        episodes += records
        steps += list(run.finished_steps())
    return episodes, steps


def run_dirs(out: Path) -> list[tuple[str, Path]]:
    """(part name, run directory) of every part found under an eval directory; a suite of
    one part keeps its run in the eval directory itself."""
    found = [(_ONLY_PART, out)] if (out / EPISODES).is_file() else []
    parts = out / PARTS
    if parts.is_dir():
        found += [(p.name, p) for p in sorted(parts.iterdir()) if (p / EPISODES).is_file()]
    return found


def _judge_of(judges: Mapping[str, str], name: str) -> str | None:
    if name == _ONLY_PART:  # the eval directory's own run: a suite of one part
        return next(iter(judges.values()), None)
    return judges.get(name)


def _judged(records: list[EpisodeRecord], root: Path, judge: str) -> list[EpisodeRecord]:
    """The records with the judge's reward; an attempt it has not judged is unscored."""
    verdicts = read_verdicts(root, judge)
    out = []
    for record in records:
        verdict = verdicts.get(record.key)
        reward = None
        if verdict is not None and verdict.episode == record.episode:
            reward = verdict.reward
        success = None if reward is None else succeeded(reward)
        out.append(record.model_copy(update={"reward": reward, "success": success}))
    return out


def part_judges(suite: LoadedSuite) -> dict[str, str]:
    """Part name -> the judge that scores it, for judged parts."""
    return {p.name: p.judge for p in suite.parts if p.judge is not None}


def score_eval(plan: EvalPlan) -> EvalScores:
    """The scores of an eval directory, by the suite's sets."""
    episodes, steps = eval_records(plan.out, part_judges(plan.suite))
    return score(
        episodes,
        steps,
        sources=plan.suite.sources(),
        max_faults=plan.max_faults,
        price=plan.judge.price,
    )


def eval_json(scores: EvalScores, manifest: Manifest, out: Path) -> dict[str, Any]:
    """The ``--json`` line and ``eval.json``: the suite, the settings and the scores."""
    return {
        "suite": manifest.suite,
        "suite_version": manifest.suite_version,
        "suite_hash": manifest.suite_hash,
        "policy": manifest.policy,
        "model": manifest.model,
        "seed": manifest.seed,
        "repeats": manifest.repeats,
        **scores.to_json(),
        "out": str(out),
    }


def save_scores(out: Path, result: dict[str, Any]) -> Path:
    """Write ``OUT/eval.json`` (whole or not at all)."""
    path = out / SCORES
    write_atomic(path, json.dumps(result, indent=2))
    return path
