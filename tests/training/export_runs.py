"""Real runs for the context and export tests: the built-in login site rolled out by the
scripted policy, and by the openai policy against the local fake endpoint, whose replies are the
scripted run's actions written in the template's own format (with memory fields).

Episodes run one at a time (``concurrency=1``), so the fake's i-th request is the i-th line of
the run's ``steps.jsonl``: ``request_index`` maps each (attempt, step) to the request that
produced it, which is what the drift tests compare exported prompts with.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakes.openai_server import FakeOpenAIServer
from webdojo.actions import Action, Click, CoordSpace, Type
from webdojo.models import ModelConfig
from webdojo.parsing import ParseFormat, render
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.records import StepRecord, parse_step, to_line
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import STEPS
from webdojo.tasks.loader import load_spec
from webdojo.training.samples import SAMPLES, read_samples
from webdojo.training.select_runs import SelectSettings, select

TASKS = "builtin:login"  # type, click and stop only: every action has a qwen form
LIMIT = 3


@dataclass(frozen=True)
class ModelRun:
    root: Path
    requests: list[dict[str, Any]]  # the bodies the fake received, in order
    replies: list[str]  # what it answered, in order


def roll_out(out: Path, policy: Any, extra: dict[str, Any] | None = None) -> Path:
    config = RunConfig(tasks=TASKS, limit=LIMIT, concurrency=1, out=str(out), extra=extra or {})
    records = asyncio.run(run_job(config, load_spec(TASKS), policy))
    assert [r.success for r in records] == [True] * LIMIT, [r.error for r in records]
    return out


def scripted_run(out: Path) -> Path:
    return roll_out(out, make_policy("scripted"))


def model_run(
    out: Path, scripted: Path, server: FakeOpenAIServer, template: str, **options: Any
) -> ModelRun:
    """The openai policy with ``template`` on the scripted run's tasks, the fake answering
    each step with the scripted action in that template's format."""
    replies = [REPLIES[template](i, step) for i, step in enumerate(steps_in_order(scripted))]
    server.reset()
    server.push(*replies)
    config = ModelConfig(base_url=server.base_url, model=server.model, timeout_s=10.0)
    policy = make_policy("openai", model_config=config, template=template, **options)
    try:
        roll_out(out, policy, {"template": template})
    finally:
        asyncio.run(policy.aclose())
    requests = list(server.requests)
    server.reset()
    return ModelRun(out, requests, replies)


def steps_in_order(run: Path) -> list[StepRecord]:
    """Every step of the run in ``steps.jsonl`` order (one attempt after another)."""
    return [step for steps in read_run(run).attempts.values() for step in steps]


def request_index(run: Path) -> dict[tuple[str, int], int]:
    return {(s.episode, s.step): i for i, s in enumerate(steps_in_order(run))}


# --- replies in each template's format ------------------------------------------------------


def _at_target(step: StepRecord) -> Action:
    """The scripted action with its element replaced by the centre of the element's box, on
    the 0-1000 grid the qwen format uses."""
    action = step.action
    assert action is not None
    if getattr(action, "element", None) is None:
        return action
    assert step.target is not None, step
    cx, cy = step.target.box.center()
    point = {"x": round(cx * 1000 / step.viewport[0]), "y": round(cy * 1000 / step.viewport[1]),
             "space": CoordSpace.NORM1000, "element": None}  # fmt: skip
    assert isinstance(action, Click | Type), action
    return action.model_copy(update=point)


def webgym_reply(i: int, step: StepRecord) -> str:
    # memory keys out of alphabetical order: the export must keep the order the model wrote
    memory = {f"zeta {i}": f"saw {step.title}", f"alpha {i}": f"step {step.step}"}
    progress = {"Do the task": "not finished", "Start": "finished"}
    return (
        f"Memory: {json.dumps(memory)}\nProgress: {json.dumps(progress)}\n"
        f'Intention: "Do the task"\nAction: {step.text}\n'
        f"{render(_at_target(step), ParseFormat.QWEN)}"
    )


def browseragent_reply(i: int, step: StepRecord) -> str:
    assert step.action is not None
    return (
        f"<think>Step {step.step} on {step.url}. <conclusion>Fact {i}: the page is titled "
        f"{step.title}.</conclusion></think>\n{render(step.action, ParseFormat.BROWSERAGENT)}"
    )


REPLIES: dict[str, Callable[[int, StepRecord], str]] = {
    "webgym_memory": webgym_reply,
    "browseragent": browseragent_reply,
}


# --- selections and damaged copies -----------------------------------------------------------


def select_bc(run: Path, out: Path) -> Path:
    select([run], out, SelectSettings(rule="bc"))
    return out


def copy_run(run: Path, out: Path) -> Path:
    shutil.copytree(run, out)
    return out


def retarget(selection: Path, run: Path, out: Path) -> Path:
    """A copy of ``selection`` whose samples point at ``run``."""
    out.mkdir(parents=True)
    rows = [s.model_copy(update={"run": str(run)}) for s in read_samples(selection)]
    (out / SAMPLES).write_text("".join(r.model_dump_json() + "\n" for r in rows))
    return out


def as_schema_v2(run: Path, out: Path) -> Path:
    """A copy of ``run`` whose steps are schema v2 lines (no stored observation)."""
    copy_run(run, out)
    lines = []
    for line in (run / STEPS).read_text().splitlines():
        data = json.loads(line)
        del data["observation"]
        data["schema_version"] = 2
        lines.append(json.dumps(data))
    (out / STEPS).write_text("\n".join(lines) + "\n")
    assert parse_step(lines[0]).observation is None
    return out


def first_screenshot(run: Path) -> Path:
    name = steps_in_order(run)[0].screenshot
    assert name is not None
    return run / name


def rewrite_steps(run: Path, change: Callable[[StepRecord], StepRecord]) -> None:
    steps = [change(parse_step(line)) for line in (run / STEPS).read_text().splitlines()]
    (run / STEPS).write_text("".join(to_line(s) + "\n" for s in steps))
