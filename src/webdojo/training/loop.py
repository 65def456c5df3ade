"""``webdojo train loop``: WebGym's synchronous loop, end to end on one machine.

    demos        the teacher (scripted, in the template's syntax) on the training tasks
    eval-before  the initial model on the training and the held-out tasks (greedy)
    iter-N       serve the current model, roll out on the training tasks (sampling), judge,
                 select (filtered BC over every run so far, recency-biased), update
    eval-after   the final model on the same tasks

A model trained from scratch cannot succeed by chance, so the first buffer holds the teacher's
demonstrations (as BrowserAgent's SFT data came from a stronger model); from the first
iteration on, the model's own successful episodes join it, and the recency weighting favours
them. Every stage is the real one: the ``openai`` policy against the served model, the
built-in sites in headless Chromium, the ``programmatic`` judge, ``select --rule bc``, the
reference trainer. The numbers are whatever they are; the loop reports them.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import torch
from transformers.utils import logging as hf_logging

from webdojo.asgi import free_port
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.policies import OpenAIPolicy, ScriptedPolicy
from webdojo.policies.base import Policy
from webdojo.prompts import get_template
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.run_reader import StoredRun, read_run
from webdojo.store.summary import summarize
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.training.batches import corpus_texts
from webdojo.training.contexts import selection_examples
from webdojo.training.examples import Example
from webdojo.training.generate import bundle_generator
from webdojo.training.loop_config import LoopConfig
from webdojo.training.loop_plot import write_loop_plot
from webdojo.training.loop_report import LoopReport, Rates, pct
from webdojo.training.policy_server import PolicyServer, VllmServer, vllm_available
from webdojo.training.select_runs import SelectSettings, select
from webdojo.training.tiny_models import ModelBundle, load_bundle
from webdojo.training.trainer import METRICS, TrainConfig, train

JUDGE = "programmatic"  # the built-in sites verify themselves: no judge model needed

Say = Callable[[str], None]


def split_tasks(task_set: TaskSet, config: LoopConfig) -> tuple[TaskSet, TaskSet]:
    """(training tasks, held-out tasks): a seeded shuffle, cut in two, of the tasks whose
    reference solution fits under the step cap (the others could not be demonstrated)."""
    tasks = [t for t in task_set.tasks if t.solution and len(t.solution) + 1 <= config.max_steps]
    random.Random(config.seed).shuffle(tasks)
    capped = [t.model_copy(update={"step_cap": config.max_steps}) for t in tasks]
    train_part = capped[: config.train_tasks]
    held = capped[config.train_tasks : config.train_tasks + config.held_out]
    return TaskSet(train_part, task_set.sites), TaskSet(held, task_set.sites)


def run_loop(config: LoopConfig, say: Say = print) -> LoopReport:
    """The whole loop; every stage writes under ``config.out`` (see the module docstring)."""
    started = time.perf_counter()
    hf_logging.disable_progress_bar()  # checkpoint saves would draw bars between our lines
    out = Path(config.out)
    config.check()
    train_set, held_set = split_tasks(load_spec(config.tasks), config)
    config = replace(config, site_port=config.site_port or free_port())
    report = LoopReport()
    runs = [_demos(config, train_set, out / "demos", say)]
    bundle = _initial_model(config, runs[0], out)
    report.before, report.valid_before = _evaluate(
        config, bundle, train_set, held_set, out / "eval-before", say
    )
    for number in range(1, config.iterations + 1):
        step_dir = out / f"iter-{number}"
        rollout = _rollout(config, bundle, train_set, step_dir / "rollout", config.temperature)
        runs.append(rollout)
        _judge(rollout)
        selection = step_dir / "selection"
        summary = select(runs, selection, SelectSettings(rule="bc", judge=JUDGE, bc=config.bc))
        result = train(_train_config(config, step_dir, number), _examples(selection, config),
                       bundle=bundle)  # fmt: skip
        rate = summarize(rollout).overall.success_rate
        report.iterations.append({"iteration": number, "rollout_success": rate,
                                  "kept": summary.kept, "loss_first": result.loss_first,
                                  "loss_last": result.loss_last})  # fmt: skip
        say(f"iteration {number}: rollout success {pct(rate)}, trained on {summary.kept} "
            f"steps, loss {_num(result.loss_first)} -> {_num(result.loss_last)}")  # fmt: skip
    report.after, report.valid_after = _evaluate(
        config, bundle, train_set, held_set, out / "eval-after", say
    )
    report.seconds = round(time.perf_counter() - started, 1)
    (out / "loop.json").write_text(json.dumps(report.to_json(), indent=2) + "\n")
    metrics = [out / f"iter-{n}" / "train" / METRICS for n in range(1, config.iterations + 1)]
    write_loop_plot(out / "loop.png", report.to_json(), metrics)
    say(f"plot: {out / 'loop.png'}")
    return report


def _demos(config: LoopConfig, tasks: TaskSet, out: Path, say: Say) -> Path:
    teacher = ScriptedPolicy(template=get_template(config.template))
    _run(config, tasks, teacher, out, "scripted")
    _judge(out)
    say(f"demonstrations: {pct(summarize(out).overall.success_rate)} of {len(tasks.tasks)} "
        "training tasks solved by the teacher")  # fmt: skip
    return out


def _initial_model(config: LoopConfig, demos: Path, out: Path) -> ModelBundle:
    """The model to start from; a tiny one gets a tokenizer trained on the demonstrations."""
    selection = out / "demos-selection"
    select([demos], selection, SelectSettings(rule="bc", judge=JUDGE))
    corpus = corpus_texts(_examples(selection, config))  # what the trainer would train it on
    return load_bundle(config.model, corpus=corpus, seed=config.seed)


def _evaluate(
    config: LoopConfig, bundle: ModelBundle, train_set: TaskSet, held: TaskSet, out: Path, say: Say
) -> tuple[Rates, Rates]:
    """Greedy runs on both splits: (success rates, shares of replies that parsed)."""
    rates: Rates = {}
    valid: Rates = {}
    for name, tasks in (("train", train_set), ("held_out", held)):
        stored = read_run(_rollout(config, bundle, tasks, out / name, temperature=0.0))
        rates[name] = summarize(stored).overall.success_rate
        valid[name] = _parsed_share(stored)
    say(f"{out.name}: success {pct(rates['train'])} on training tasks, "
        f"{pct(rates['held_out'])} on held-out tasks; replies that parsed: "
        f"{pct(valid['train'])} and {pct(valid['held_out'])}")  # fmt: skip
    return rates, valid


def _parsed_share(stored: StoredRun) -> float | None:
    steps = list(stored.finished_steps())
    return None if not steps else sum(s.action is not None for s in steps) / len(steps)


def _rollout(
    config: LoopConfig, bundle: ModelBundle, tasks: TaskSet, out: Path, temperature: float
) -> Path:
    with _server(config, bundle, out) as server:
        model = server.model_config(temperature=temperature, max_tokens=config.max_tokens)
        policy = OpenAIPolicy(model, get_template(config.template))
        _run(config, tasks, policy, out, "openai")
    return out


def _server(config: LoopConfig, bundle: ModelBundle, out: Path) -> PolicyServer | VllmServer:
    """The current model behind the OpenAI protocol: vLLM on a saved copy, or in-process."""
    use_vllm = config.serve == "vllm" or (
        config.serve == "auto" and vllm_available() and torch.cuda.is_available()
    )
    if use_vllm:
        return VllmServer(bundle.save(out.parent / "served-model"), "webdojo-policy")
    return PolicyServer(bundle_generator(bundle), "webdojo-policy", config.max_tokens)


def _run(config: LoopConfig, tasks: TaskSet, policy: Policy, out: Path, name: str) -> None:
    run_config = RunConfig(
        tasks=config.tasks,
        policy=name,
        concurrency=config.concurrency,
        seed=config.seed,
        out=str(out),
        site_port=config.site_port,
        extra={"template": config.template, "model": config.model},
    )
    asyncio.run(run_job(run_config, tasks, policy))


def _judge(run: Path) -> None:
    asyncio.run(judge_run(run, JUDGE, JudgeOptions()))


def _examples(selection: Path, config: LoopConfig) -> list[Example]:
    return selection_examples(selection, template=config.template)


def _train_config(config: LoopConfig, step_dir: Path, number: int) -> TrainConfig:
    return TrainConfig(
        mode="sft",
        model=config.model,
        steps=config.train_steps,
        batch_size=config.batch_size,
        lr=config.lr,
        max_tokens=config.context_tokens,
        seed=config.seed + number,
        out=step_dir / "train",
        progress=False,
    )


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
