"""webdojo.adapters.verl: verl 0.9's own ``AgentLoopWorker`` runs ``webdojo_agent`` rollouts on
real headless Chromium and the built-in sites, and post-processes them into its batch.

verl 0.9.1 needs ``transformers<5.11``: these tests run in ``.venv-verl`` (``make test`` builds
it and runs this file there); in the main environment they are skipped.

The model is the fake ``server_manager.generate`` verl calls (token ids in, token ids out): it
reads the task's instruction from the prompt's tokens and answers with the next reply of that
task's reference solution, in the ``chat`` template's funcall syntax, written by the scripted
teacher on the same browser first. The tokenizer and processor are the ``tiny-vl`` model's
(Qwen2-VL's image processing; 15 placeholder tokens per screenshot).
"""

from __future__ import annotations

import re
import warnings
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

with warnings.catch_warnings():  # verl 0.9 imports Ray's deprecated state API
    warnings.simplefilter("ignore", DeprecationWarning)
    verl = pytest.importorskip("verl", reason="verl runs in .venv-verl (make test builds it)")

    from hydra import compose, initialize_config_dir
    from verl.experimental.agent_loop.agent_loop import (
        AgentLoopWorker,
        _agent_loop_registry,
    )
    from verl.protocol import DataProto
    from verl.workers.rollout.replica import TokenOutput

from reference_tasks import short_tasks
from renderer_kill import kill_renderers
from webdojo.adapters.verl import AGENT_NAME, BUDGET_SPENT, WebdojoAgentLoop
from webdojo.environment import runtime
from webdojo.errors import EnvError, TaskFileError, UnknownTask
from webdojo.parsing import ParseFormat
from webdojo.policies.scripted import ScriptedPolicy
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task
from webdojo.training import processing as proc
from webdojo.training.export_formats import VERL_AGENT
from webdojo.training.tiny_models import load_bundle

pytestmark = [
    pytest.mark.browser,
    # verl's pinned stack (transformers 5.10, Ray's old state API) warns on numpy 2 and Ray 2.60
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

N_TASKS = 20
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "verl"
PROMPT_LENGTH = 24_576  # the tiny tokenizer spends about a token per 2-3 characters of page
RESPONSE_LENGTH = 65_536


# --- the model side ------------------------------------------------------------------------


class ReplayModel:
    """verl's ``server_manager``: answers each prompt with the next reference reply of the task
    whose instruction it holds, and checks what verl's vision path relies on: as many images
    as the prompt has image placeholders."""

    def __init__(self, tokenizer: Any, tasks: list[Task], replies: dict[str, list[str]]) -> None:
        self.tokenizer = tokenizer
        self.queues = {t.instruction: deque(replies[t.id]) for t in tasks}
        self.calls: list[tuple[int, int]] = []  # (images sent, vision starts in the prompt)
        self.before: Callable[[], None] | None = None  # runs at each call (a page crash...)
        self.garbage_first: set[str] = set()  # instructions answered once with no action

    async def generate(self, *, prompt_ids: list[int], image_data: Any = None, **_: Any) -> Any:
        if self.before is not None:
            self.before()
        start = self.tokenizer.convert_tokens_to_ids(proc.VISION_START)
        self.calls.append((len(image_data or []), prompt_ids.count(start)))
        text = self.tokenizer.decode(prompt_ids)
        (instruction,) = [i for i in self.queues if i in text]
        if instruction in self.garbage_first:
            self.garbage_first.discard(instruction)
            reply = "I will think about it first."
        else:
            reply = self.queues[instruction].popleft()  # none left: the test fails
        ids = self.tokenizer.encode(reply, add_special_tokens=False)
        return TokenOutput(token_ids=[*ids, self.tokenizer.convert_tokens_to_ids(proc.IM_END)])


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """tiny-vl's tokenizer and processor, saved where verl's model config reads them."""
    made = load_bundle("tiny-vl", corpus=["click(element=3)", "stop(answer='')"], seed=0)
    made.directory = made.save(tmp_path_factory.mktemp("tiny-vl"))
    return made


def verl_config(model_dir: Path, loops_yaml: Path) -> Any:
    """verl's own trainer config (its Hydra defaults) with our agent loop file."""
    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return compose(
            "ppo_trainer",
            overrides=[
                f"actor_rollout_ref.model.path={model_dir}",
                "actor_rollout_ref.rollout.name=vllm",
                f"actor_rollout_ref.rollout.prompt_length={PROMPT_LENGTH}",
                f"actor_rollout_ref.rollout.response_length={RESPONSE_LENGTH}",
                f"actor_rollout_ref.rollout.agent.agent_loop_config_path={loops_yaml}",
            ],
        )


def make_worker(
    bundle: Any, tmp: Path, model: ReplayModel, extra: str = "", loops: Path | None = None
) -> AgentLoopWorker:
    """verl's worker with our agent-loop file (``loops``, else one written with ``extra``)."""
    if loops is None:
        loops = tmp / "agent_loops.yaml"
        loops.write_text(
            f"- name: {AGENT_NAME}\n  _target_: webdojo.adapters.verl.WebdojoAgentLoop\n"
            f"  tasks: builtin\n{extra}",
            encoding="utf-8",
        )
    worker = AgentLoopWorker(verl_config(bundle.directory, loops), llm_client=model)
    # verl loads a processor with AutoProcessor; tiny-vl's image-only Qwen2-VL processor is
    # not one it can name, so it is handed over here, as verl holds a real model's
    worker.processor, worker.tokenizer = bundle.processor, bundle.tokenizer
    return worker


@pytest.fixture(scope="module")
async def shared() -> AsyncIterator[runtime.Runtime]:
    """This loop's browser, held for the module (the teacher and the rollouts share it)."""
    held = runtime.acquire(load_spec("builtin").sites)
    try:
        yield held
    finally:
        await runtime.release(held)


async def reference_replies(
    shared: runtime.Runtime, tasks: list[Task], out: Path
) -> dict[str, list[str]]:
    """Each task's reference solution as funcall replies, one per step."""
    policy = ScriptedPolicy(text_format=ParseFormat.FUNCALL, screenshot=False)
    with RunStore(out) as store:
        specs = [EpisodeSpec(task=t, key=t.id, max_steps=t.max_steps) for t in tasks]
        records = [await run_episode(shared.env, policy, s, store) for s in specs]
    assert all(r.success for r in records), [(r.task_id, r.error) for r in records]
    attempts = read_run(out).attempts
    return {r.task_id: [step.text for step in attempts[r.episode]] for r in records}


async def two_step_task(
    bundle: Any, shared: runtime.Runtime, tmp_path: Path
) -> tuple[Task, ReplayModel]:
    """A built-in task of two or more steps and the model that replays its reference."""
    task = next(t for t in short_tasks(N_TASKS) if len(t.solution) >= 2)
    replies = await reference_replies(shared, [task], tmp_path / "teacher")
    return task, ReplayModel(bundle.tokenizer, [task], replies)


def batch_of(task_ids: list[str]) -> DataProto:
    """The rows as verl's RLHFDataset hands them over: object arrays of the columns."""
    columns: dict[str, list[Any]] = {"raw_prompt": [], "extra_info": [], "agent_name": []}
    columns["index"] = []
    for index, task_id in enumerate(task_ids):
        columns["raw_prompt"].append([{"role": "user", "content": task_id}])
        columns["extra_info"].append({"task_id": task_id, "index": index})
        columns["agent_name"].append(AGENT_NAME)
        columns["index"].append(index)
    arrays = {k: np.array(v, dtype=object) for k, v in columns.items()}
    return DataProto.from_dict(non_tensors=arrays)


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every ``AgentLoopOutput`` before verl pads it (verl's own post-processing still runs)."""
    outputs: list[Any] = []
    original = AgentLoopWorker._agent_loop_postprocess

    async def keep(self: AgentLoopWorker, output: Any, validate: bool, **kwargs: Any) -> Any:
        outputs.append(output)
        return await original(self, output, validate, **kwargs)

    monkeypatch.setattr(AgentLoopWorker, "_agent_loop_postprocess", keep)
    yield outputs


# --- tests ---------------------------------------------------------------------------------


def test_importing_the_adapter_registers_webdojo_agent() -> None:
    assert _agent_loop_registry[AGENT_NAME] == {
        "_target_": "webdojo.adapters.verl.WebdojoAgentLoop"
    }
    assert WebdojoAgentLoop.__name__ == "WebdojoAgentLoop"
    assert VERL_AGENT == AGENT_NAME  # what `webdojo export --format verl` writes per row


def test_the_example_scripts_overrides_are_keys_of_verls_config(bundle: Any) -> None:
    script = (EXAMPLES / "grpo_qwen2_5_vl_3b.sh").read_text(encoding="utf-8")
    overrides = re.findall(r"^\s+([a-z_.]+=\S+) \\$", script, flags=re.MULTILINE)
    assert len(overrides) > 20
    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        config = compose("ppo_trainer", overrides=[o.replace('"$here"', str(EXAMPLES))
                                                   for o in overrides])  # fmt: skip
    assert config.actor_rollout_ref.rollout.agent.default_agent_loop == AGENT_NAME
    assert config.algorithm.adv_estimator == "grpo"


async def test_the_example_agent_loop_file_runs_an_episode_with_its_settings(
    bundle: Any, shared: runtime.Runtime, captured: list[Any], tmp_path: Path
) -> None:
    task, model = await two_step_task(bundle, shared, tmp_path)
    worker = make_worker(bundle, tmp_path, model, loops=EXAMPLES / "agent_loops.yaml")

    await worker.generate_sequences(batch_of([task.id]))

    (o,) = captured
    assert o.reward_score == 1.0 and o.extra_fields["done_reason"] == "stopped"


@pytest.mark.slow
async def test_twenty_tasks_roll_out_into_verls_batch_with_the_verifiers_rewards(
    bundle: Any, shared: runtime.Runtime, captured: list[Any], tmp_path: Path
) -> None:
    tasks = short_tasks(N_TASKS)
    replies = await reference_replies(shared, tasks, tmp_path / "teacher")
    model = ReplayModel(bundle.tokenizer, tasks, replies)
    model.garbage_first = {tasks[0].instruction}  # one reply that does not parse, then on
    worker = make_worker(bundle, tmp_path, model)

    out = await worker.generate_sequences(batch_of([t.id for t in tasks]))

    by_task = {o.extra_fields["task_id"]: o for o in captured}
    assert sorted(by_task) == sorted(t.id for t in tasks)
    for task in tasks:
        o = by_task[task.id]
        assert o.reward_score == 1.0, (task.id, o.extra_fields)
        assert o.extra_fields["done_reason"] == "stopped" and o.extra_fields["fault"] is None
        expected_steps = len(replies[task.id]) + (task is tasks[0])
        assert o.extra_fields["steps"] == expected_steps
        assert len(o.response_ids) == len(o.response_mask)
        assert set(o.response_mask) == {0, 1}
        start = bundle.tokenizer.convert_tokens_to_ids(proc.VISION_START)
        ids = [*o.prompt_ids, *o.response_ids]
        assert ids.count(start) == len(o.multi_modal_data["images"]) == expected_steps
    assert not any(model.queues[t.instruction] for t in tasks)  # every reply was asked for
    assert all(sent == placeholders for sent, placeholders in model.calls)
    assert len(model.calls) == sum(len(r) for r in replies.values()) + 1
    # verl's batch: one row per task, the reward at each row's last response token
    assert out.batch["responses"].shape == (N_TASKS, RESPONSE_LENGTH)
    assert out.batch["rm_scores"].sum(dim=1).tolist() == [1.0] * N_TASKS
    grids = [m["image_grid_thw"] for m in out.non_tensor_batch["multi_modal_inputs"]]
    assert [g.shape[0] for g in grids] == [len(by_task[t.id].multi_modal_data["images"])
                                           for t in tasks]  # fmt: skip
    assert list(out.non_tensor_batch["done_reason"]) == ["stopped"] * N_TASKS
    assert (await shared.env.host()).sessions == 0


async def test_a_page_crash_masks_the_rollout_and_closes_the_session(
    bundle: Any, shared: runtime.Runtime, captured: list[Any], tmp_path: Path
) -> None:
    task, model = await two_step_task(bundle, shared, tmp_path)
    host = await shared.env.host()
    killed: list[int] = []

    def crash_at_second_call() -> None:
        if len(model.calls) == 1:
            killed.append(kill_renderers(host.pid or 0))

    model.before = crash_at_second_call
    worker = make_worker(bundle, tmp_path, model)
    out = await worker.generate_sequences(batch_of([task.id]))

    (o,) = captured
    assert killed and killed[0] >= 1
    assert o.extra_fields["done_reason"] == "fault"
    assert o.extra_fields["fault"] in {"page_crashed", "action_failed"}
    assert set(o.response_mask) == {0} and o.reward_score == 0.0
    assert int(out.batch["response_mask"].sum()) == 0  # nothing of it is trained on
    assert host.sessions == 0 and host.is_connected()


async def test_on_fault_raise_raises_the_typed_error(
    bundle: Any, shared: runtime.Runtime, tmp_path: Path
) -> None:
    task, model = await two_step_task(bundle, shared, tmp_path)
    host = await shared.env.host()
    model.before = lambda: kill_renderers(host.pid or 0) if len(model.calls) == 1 else None
    worker = make_worker(bundle, tmp_path, model, "  on_fault: raise\n")

    with pytest.raises(EnvError):
        await worker.generate_sequences(batch_of([task.id]))
    assert host.sessions == 0


async def test_a_spent_budget_ends_the_episode_and_verifies_its_last_page(
    bundle: Any, shared: runtime.Runtime, captured: list[Any], tmp_path: Path
) -> None:
    task, model = await two_step_task(bundle, shared, tmp_path)
    worker = make_worker(bundle, tmp_path, model)
    worker.config.actor_rollout_ref.rollout.response_length = 8  # less than one page

    await worker.generate_sequences(batch_of([task.id]))

    (o,) = captured
    assert o.extra_fields["done_reason"] == BUDGET_SPENT and o.extra_fields["steps"] == 1
    assert o.reward_score == 0.0 and len(o.response_ids) <= 8
    assert (await shared.env.host()).sessions == 0


@pytest.mark.parametrize(
    ("extra_info", "error"),
    [({}, TaskFileError), ({"task_id": "shop.no-such-task"}, UnknownTask)],
)
async def test_a_row_without_a_known_task_raises_a_config_error(
    bundle: Any, shared: runtime.Runtime, tmp_path: Path, extra_info: dict[str, Any], error: type
) -> None:
    model = ReplayModel(bundle.tokenizer, [], {})
    worker = make_worker(bundle, tmp_path, model)
    batch = batch_of(["x"])
    batch.non_tensor_batch["extra_info"][0] = extra_info
    with pytest.raises(error):
        await worker.generate_sequences(batch)
    assert model.calls == []
