"""``webdojo.adapters.trl.BrowserEnv``: TRL's ``environment_factory`` on real Chromium and the
built-in sites, driven through its tool methods, and inside TRL's own ``GRPOTrainer``."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from reference_tasks import spread_tasks
from webdojo.actions import Action, Click, GoBack, Select, Stop, Type
from webdojo.adapters.trl import OVER, BrowserEnv
from webdojo.environment import runtime
from webdojo.environment.sync_env import run_blocking
from webdojo.errors import (
    ConfigError,
    InvalidActionError,
    PageCrashed,
    StartPageFailed,
    StateError,
    UnknownTask,
)
from webdojo.policies.scripted import resolve_step
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import SolutionStep, Task

pytestmark = pytest.mark.browser
TOOLS = ("answer", "back", "click", "goto", "press", "scroll", "select", "type_text")
BUILTIN = {t.id: t for t in load_spec("builtin").tasks}


@pytest.fixture(autouse=True)
def all_closed() -> Iterator[None]:
    yield
    BrowserEnv.close_all()
    assert not runtime._RUNTIMES  # the last environment closed the shared browser


def call_tool(env: BrowserEnv, action: Action) -> Any:
    """The tool a model would call for ``action``."""
    match action:
        case Click(element=int(element)):
            return env.click(element)
        case Type(element=int(element)):
            return env.type_text(element, action.text, action.enter)
        case Select():
            return env.select(action.element, action.option)
        case GoBack():
            return env.back()
        case Stop():
            return env.answer(action.answer)
    raise AssertionError(f"no tool for {action}")


def play(env: BrowserEnv, task: Task, steps: Sequence[SolutionStep]) -> float | None:
    """One episode of ``steps`` through the tools; the reward TRL would read."""
    first = env.reset(task_id=task.id)
    assert isinstance(first, str) and task.instruction in first
    for step in steps:
        result = call_tool(env, resolve_step(step, env.observation))  # type: ignore[arg-type]
        assert isinstance(result, str) and "[invalid_state]" not in result
    return env.get_reward()


# --- the tools against the tasks' own solutions -----------------------------------------------


# One short task per built-in site, together using every tool a solution needs. That each
# task's own solutions score 1 and 0 is proved for every task by the core eval suite and
# `webdojo sites check`; here it is what the tools carry that is under test.
THROUGH_TOOLS = (
    "admin.count-finance-not-active",  # select
    "booking.trip-details",
    "forms.report-graffiti",  # type_text
    "login.account-id",
    "shop.add-runner",
    "wiki.compare-populations",  # back
)


def test_reference_solutions_score_1_and_wrong_ones_0_through_the_tools() -> None:
    """Reference solution -> 1 and wrong one -> 0 through the tools, on ``THROUGH_TOOLS``."""
    tasks = [BUILTIN[t] for t in THROUGH_TOOLS]
    assert {t.id.split(".")[0] for t in tasks} == {t.split(".")[0] for t in BUILTIN}
    used = {s.type for t in BUILTIN.values() for s in t.solution}
    assert {s.type for t in tasks for s in t.solution} == used  # every kind of step

    def both(task: Task) -> tuple[float | None, float | None]:
        with BrowserEnv() as env:
            right = play(env, task, task.solution)
            assert env.info["done_reason"] == "stopped" and env.info["verifier"]["passed"]
            return right, play(env, task, task.wrong_solutions[0])

    with ThreadPoolExecutor(4) as pool:  # TRL calls one rollout at a time; threads are harder
        results = list(pool.map(both, tasks))
    assert [r for r, _ in results] == [1.0] * len(tasks)
    assert [w for _, w in results] == [0.0] * len(tasks)


def test_64_instances_at_once_share_one_browser_and_leave_no_session() -> None:
    tasks = [t.id for t in spread_tasks(16)] * 4  # groups of 4 rollouts per task, as GRPO makes
    envs = [BrowserEnv() for _ in tasks]
    with ThreadPoolExecutor(8) as pool:
        firsts = list(pool.map(lambda e, t: e.reset(task_id=t, seed=0), envs, tasks))
    assert all(BUILTIN[t].instruction in first for t, first in zip(tasks, firsts, strict=True))
    (shared,) = runtime._RUNTIMES.values()  # one browser for all of them
    assert open_sessions(shared) == 64
    # nobody answered: each episode ends as if answer("") were called, and none passes that way
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(BrowserEnv.get_reward, envs)) == [0.0] * 64
    assert open_sessions(shared) == 0  # each ended episode closed its browser context
    BrowserEnv.close_all()
    assert not runtime._RUNTIMES


def open_sessions(shared: runtime.Runtime) -> int:
    host = shared.env._host
    return 0 if host is None else host.sessions


def test_a_new_episode_starts_clean_after_one_changed_the_site() -> None:
    """The admin site keeps its state in localStorage, which its verifier reads: had the
    deactivation leaked, answering at once would pass."""
    task = BUILTIN["admin.deactivate-priya"]
    first = BrowserEnv()
    assert play(first, task, task.solution) == 1.0
    with BrowserEnv() as fresh:
        assert play(fresh, task, []) == 0.0  # answers "" at once
    assert play(first, task, []) == 0.0  # the same instance, reset: also clean


# --- what the model is told ---------------------------------------------------------------------


def test_results_tell_the_page_its_errors_and_the_end() -> None:
    with BrowserEnv(max_steps=3) as env:
        first = env.reset(task_id="login.account-id", prompt=[{"role": "user", "content": "Go."}])
        assert first.startswith("\n\nTask: ")  # TRL appends it to the dataset's prompt
        assert "Current page: http://127.0.0.1:" in first and "[0] textbox" in first
        missing = env.click(999)  # the page refuses it: a step, and the model hears why
        assert "unknown_element" in missing and env.info["step"] == 1
        with pytest.raises(InvalidActionError):  # no action at all: TRL shows the error
            env.goto("not a url")
        assert env.info["step"] == 1
        env.scroll("down")
        last = env.press("Tab")  # the third step: the cap
        assert last.endswith("The episode is over (step limit reached): no more actions.")
        with pytest.raises(StateError, match="step limit reached"):
            env.back()
        assert env.get_reward() == env.get_reward() == 0.0  # verified once, at the cap
        env.reset(task_id="login.account-id")
        assert env.answer("LL-00000") == "Answer submitted. " + OVER.format(reason="answered")
        with pytest.raises(StateError, match="answered"):
            env.answer("again")


def test_images_for_vision_models() -> None:
    with BrowserEnv(images=True, image_size=512) as env:
        image, text = env.reset(task_id="shop.price-pendant")
        assert image["type"] == "image" and isinstance(image["image"], Image.Image)
        assert image["image"].size == (512, 288) and text["type"] == "text"
        assert "Task: " in text["text"]
        parts = env.scroll("down")
        assert [p["type"] for p in parts] == ["image", "text"]


def test_bad_rows_raise_config_errors() -> None:
    env = BrowserEnv()
    with pytest.raises(StateError):
        env.get_reward()
    with pytest.raises(StateError):
        env.click(0)
    with pytest.raises(ConfigError, match="no task_id"):
        env.reset(prompt="hello")
    with pytest.raises(UnknownTask, match=r"did you mean admin\.deactivate-priya"):
        env.reset(task_id="admin.deactivate-pria")


def test_a_fault_is_never_a_reward() -> None:
    with BrowserEnv() as env:
        env.reset(task_id="login.account-id")
        crash = run_blocking(crash_page(env))
        with pytest.raises(PageCrashed):  # TRL shows it to the model as an error
            env.scroll("down")
        run_blocking(cancel(crash))
        assert isinstance(env.fault, PageCrashed)
        with pytest.raises(StateError, match="fault"):
            env.click(0)
        assert env.get_reward() is None  # TRL: NaN, and the rollout is not scored
        env.reset(task_id="login.account-id")  # the next rollout is fine again
        assert env.fault is None and env.answer("x").startswith("Answer submitted")


def test_a_task_whose_start_page_fails_is_dropped_not_raised(tmp_path: Path) -> None:
    """A fault at reset must not stop training: the rollout goes on, unscored."""
    task = BUILTIN["login.account-id"].model_dump(mode="json", exclude_none=True)
    task.update(id="login.missing", start_url="missing.html")  # the site answers 404
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(task) + "\n", encoding="utf-8")
    with BrowserEnv(tasks=str(tasks)) as env:
        told = env.reset(task_id="login.missing")
        assert "start_page_failed" in told and "will not be scored" in told
        with pytest.raises(StateError, match="start_page_failed"):
            env.click(0)
        assert isinstance(env.fault, StartPageFailed) and env.get_reward() is None


async def crash_page(env: BrowserEnv) -> asyncio.Future[Any]:
    session = env._env.inner._session  # type: ignore[union-attr]
    cdp = await session.inner._tabs.current.cdp()  # type: ignore[union-attr]
    crash = asyncio.ensure_future(cdp.send("Page.crash"))  # answered by no one
    await asyncio.sleep(0.3)
    return crash


async def cancel(future: asyncio.Future[Any]) -> None:
    future.cancel()


# --- inside TRL's GRPOTrainer -------------------------------------------------------------------

# the answer below is right for one and wrong for the other: a reward of 0.5 shows both
GRPO_TASKS = ["login.account-id", "shop.price-pendant"]
CALL = '<tool_call>\n{"name": "answer", "arguments": {"text": "LL-51893"}}\n</tool_call>'


@pytest.mark.slow
# TRL 1.16 calls transformers 5's deprecated gradient_checkpointing names
@pytest.mark.filterwarnings(
    "ignore:`[a-z_]*gradient_checkpointing[a-z_]*` is deprecated:FutureWarning"
)
def test_grpo_trainer_runs_rollouts_and_logs_the_reward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("trl")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is experimental
    model, tokenizer = answering_model()
    args = GRPOConfig(
        output_dir=str(tmp_path),
        use_cpu=True,
        max_steps=2,
        per_device_train_batch_size=4,  # 2 tasks x 2 generations: every task in each step
        num_generations=2,
        max_completion_length=256,  # room for the tool results
        max_tool_calling_iterations=2,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        train_dataset=Dataset.from_dict({"task_id": GRPO_TASKS}),
        args=args,
        environment_factory=functools.partial(BrowserEnv, max_chars=300),
    )
    assert sorted(t.__name__ for t in trainer.tools) == sorted(TOOLS)  # not close_all, reset...
    trainer.train()
    steps = [h for h in trainer.state.log_history if "reward" in h]
    assert len(steps) == 2
    for logged in steps:
        # every rollout answered "LL-51893": right for login.account-id only (1 task in 2),
        # then answered again, which TRL reported to the model as a failed call
        assert logged["rewards/BrowserEnv/mean"] == logged["reward"] == 0.5
        assert logged["tools/call_frequency"] == 2.0
        assert logged["tools/failure_frequency"] == 0.5


def answering_model() -> tuple[Any, Any]:
    """A tiny Qwen2 (random weights, no downloads) that always calls ``answer("LL-51893")``.

    The tool call is one added token; with the attention and MLP outputs zeroed, each
    position's logits depend on its own token only, and the head maps the generation prompt's
    last token to the call and the call to the end of the turn."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM
    from trl.chat_template_utils import qwen2_5_chat_template

    from webdojo.training import processing as proc

    tokenizer = proc.train_tokenizer(None)
    tokenizer.chat_template = qwen2_5_chat_template  # TRL knows how to parse its tool calls
    tokenizer.add_tokens([CALL])
    turn = tokenizer.apply_chat_template([{"role": "user", "content": "x"}], tokenize=False)
    prompt_end = tokenizer(turn + "<|im_start|>assistant\n")["input_ids"][-1]
    call, end = tokenizer.convert_tokens_to_ids([CALL, proc.IM_END])
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=False,
        eos_token_id=end,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        embed, head = model.model.embed_tokens.weight, model.lm_head.weight
        head.zero_()
        head[call] = 50 * embed[prompt_end] / embed[prompt_end].norm()
        head[end] = 50 * embed[call] / embed[call].norm()
    model.generation_config.update(eos_token_id=end, pad_token_id=tokenizer.pad_token_id)
    return model, tokenizer
