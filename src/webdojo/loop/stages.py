"""The loop's stages, each writing one run or selection directory (see ``run`` for the order).

Every stage is the real one: the scripted teacher, the model served behind the OpenAI protocol
(vLLM, or transformers in this process), the ``openai`` policy, the sites in headless Chromium,
the ``programmatic`` judge, ``select``, the reference trainer and ``eval``'s scores (success
with a 95% bootstrap interval over the instances).
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from webdojo.eval.bootstrap import Interval
from webdojo.eval.stats import score_run
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.loop.config import LoopConfig
from webdojo.loop.generate import bundle_generator
from webdojo.loop.policy_server import PolicyServer, VllmServer, vllm_available
from webdojo.loop.splits import kind_of
from webdojo.policies import OpenAIPolicy, RandomPolicy, ScriptedPolicy
from webdojo.policies.base import Policy
from webdojo.prompts import get_template
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.run_reader import read_run
from webdojo.tasks.loader import TaskSet
from webdojo.training.batches import corpus_texts
from webdojo.training.contexts import selection_examples
from webdojo.training.examples import Example
from webdojo.training.samples import SelectionSummary, read_samples
from webdojo.training.select_runs import SelectSettings, select
from webdojo.training.tiny_models import ModelBundle, load_bundle
from webdojo.training.trainer import TrainConfig, TrainResult, train

JUDGE = "programmatic"  # the sites verify themselves: no judge model needed


@dataclass(frozen=True)
class Score:
    """Greedy success on one set of instances, and the share of replies that parsed."""

    success: Interval
    parsed: float | None
    by_kind: dict[str, Interval]  # family or MiniWoB++ page -> its own success and interval

    def kinds_json(self) -> dict[str, dict[str, Any]]:
        """``{kind: {"success", "ci95", "n"}}`` for the report."""
        return {
            kind: {"success": rate.mean, "ci95": rate.ci95(), "n": rate.n_tasks}
            for kind, rate in self.by_kind.items()
        }


def demos(config: LoopConfig, tasks: TaskSet, out: Path) -> Path:
    """The scripted teacher on ``tasks`` (``Splits.demos``), in the template's syntax, judged."""
    teacher = ScriptedPolicy(template=get_template(config.template))
    run(config, tasks, teacher, out, "scripted", "demos")
    judge(out)
    return out


def initial_model(config: LoopConfig, demos_selection: Path) -> ModelBundle:
    """The model to start from; a tiny one gets a tokenizer trained on the demonstrations."""
    corpus = corpus_texts(examples(demos_selection, config))
    return load_bundle(config.model, corpus=corpus, seed=config.seed)


def rollout(
    config: LoopConfig,
    bundle: ModelBundle,
    tasks: TaskSet,
    out: Path,
    temperature: float,
    repeats: int = 1,
    name: str = "train",
) -> Path:
    """The current model on ``tasks`` (``repeats`` episodes each) of the set ``name``, judged."""
    with _server(config, bundle, out) as server:
        model = server.model_config(temperature=temperature, max_tokens=config.max_tokens)
        policy = OpenAIPolicy(model, get_template(config.template))
        run(config, tasks, policy, out, "openai", name, repeats=repeats)
    judge(out)
    return out


def evaluate(
    config: LoopConfig, bundle: ModelBundle, tasks: TaskSet, out: Path, name: str
) -> Score:
    """Greedy episodes on ``tasks`` (the set ``name``): success with its interval, and the
    parse rate."""
    rollout(config, bundle, tasks, out, temperature=0.0, name=name)
    return score(out, config.seed, tasks)


def random_baseline(config: LoopConfig, tasks: TaskSet, out: Path, name: str) -> Score:
    """The random policy on the same instances (what chance gets)."""
    run(config, tasks, RandomPolicy(seed=config.seed), out, "random", name)
    judge(out)
    return score(out, config.seed, tasks)


def score(out: Path, seed: int, tasks: TaskSet) -> Score:
    """The run's success overall and by kind of task (``splits.kind_of``)."""
    scores = score_run(out, seed=seed, sources={t.id: kind_of(t) for t in tasks.tasks})
    steps = list(read_run(out).finished_steps())
    parsed = sum(s.action is not None for s in steps) / len(steps) if steps else None
    return Score(scores.success, parsed, scores.by_source)


def pick(tasks: TaskSet, count: int, seed: int) -> TaskSet:
    """A seeded sample of ``count`` training instances (all when fewer)."""
    chosen = list(tasks.tasks)
    random.Random(seed).shuffle(chosen)
    return TaskSet(chosen[:count], tasks.sites)


def select_round(
    config: LoopConfig, runs: list[Path], demos_selection: Path, out: Path, rule: str
) -> SelectionSummary:
    """bc over every run so far; rft on this round's rollouts with the demonstrations mixed
    in; grpo on this round's groups."""
    if rule == "rft":
        settings = SelectSettings(rule=rule, judge=JUDGE, sft=demos_selection, seed=config.seed)
        return select(runs[-1:], out, settings)
    if rule == "grpo":
        settings = SelectSettings(rule=rule, judge=JUDGE, group_size=config.group_size)
        return select(runs[-1:], out, settings)
    return select(runs, out, SelectSettings(rule=rule, judge=JUDGE, bc=config.bc))


def update(
    config: LoopConfig, bundle: ModelBundle, selection: Path, out: Path, number: int, rule: str
) -> TrainResult:
    """One round of updates on the selection (``rl`` for grpo's advantages, else ``sft``)."""
    rl = rule == "grpo"
    train_config = TrainConfig(
        mode="rl" if rl else "sft",
        model=config.model,
        steps=config.steps(number),
        batch_size=config.batch_size,
        lr=config.lr,
        lr_schedule=config.lr_schedule,
        warmup_steps=config.warmup_steps,
        prompt_loss_weight=0.0 if rl else config.prompt_loss_weight,
        max_tokens=config.context_tokens,
        seed=config.seed + number,
        group_by_length=True,  # prompts run 300-1,500 tokens: padding was half a step's work
        out=out,
        progress=False,
    )
    return train(train_config, examples(selection, config), bundle=bundle)


def count_samples(selection: Path) -> int:
    return sum(1 for _ in read_samples(selection))


def examples(selection: Path, config: LoopConfig) -> list[Example]:
    return selection_examples(selection, template=config.template)


def run(
    config: LoopConfig,
    tasks: TaskSet,
    policy: Policy,
    out: Path,
    policy_name: str,
    set_name: str,
    repeats: int = 1,
) -> None:
    """``tasks`` (instances of the loop's set ``set_name``) run with ``policy``; the run's config
    names that set's spec, which the judge reads its tasks from."""
    run_config = RunConfig(
        tasks=config.spec(set_name),
        policy=policy_name,
        concurrency=config.concurrency,
        repeats=repeats,
        seed=config.seed,
        out=str(out),
        site_port=config.site_port,
        extra={"template": config.template, "model": config.model},
    )
    asyncio.run(run_job(run_config, tasks, policy))


def judge(out: Path) -> None:
    asyncio.run(judge_run(out, JUDGE, JudgeOptions()))


def _server(config: LoopConfig, bundle: ModelBundle, out: Path) -> PolicyServer | VllmServer:
    """The current model behind the OpenAI protocol: vLLM on a saved copy, or in-process."""
    use_vllm = config.serve == "vllm" or (
        config.serve == "auto" and vllm_available() and torch.cuda.is_available()
    )
    if use_vllm:
        return VllmServer(bundle.save(out.parent / "served-model"), "webdojo-policy")
    return PolicyServer(bundle_generator(bundle), "webdojo-policy", config.max_tokens)
