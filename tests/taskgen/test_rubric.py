"""Rubric generation against the real fake endpoint: good, broken and failing replies, the
cache, accounting, and what is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from taskgen_helpers import last_user_text, read, rubric_reply, task, write
from typer.testing import CliRunner

from fakes.openai_server import FakeOpenAIServer, Reply
from webdojo.cli import app
from webdojo.errors import ModelOutputInvalid
from webdojo.models import ModelClient
from webdojo.models.ask import ReplyRejected
from webdojo.models.reply_cache import ReplyCache
from webdojo.models.usage import Price
from webdojo.taskgen.rubric import generate_rubrics, parse_rubric
from webdojo.taskgen.runner import GenConfig

SRC = Path(__file__).resolve().parents[2] / "src"

# --- parsing ------------------------------------------------------------------------------


def test_parse_accepts_fences_and_chatter_around_the_json() -> None:
    plain = parse_rubric(rubric_reply(2, 1))
    assert plain["stated_difficulty"] == 3 and len(plain["fact_groups"]) == 2
    assert parse_rubric(f"```json\n{rubric_reply(2, 1)}\n```") == plain
    assert parse_rubric(f"Here it is:\n{rubric_reply(2, 1)}\nHope it helps.") == plain


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("I cannot do that.", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"difficulty": 2}', "fact_groups: Field required"),
        ('{"fact_groups": [{"id": 1, "description": "x"}]}', "fact_groups.0.facts: Field required"),
        ('{"fact_groups": [{"id": 1, "facts": []}]}', "at least 1 item"),
        ('{"fact_groups": [{"id": 1, "facts": ["  "]}]}', "a fact is empty"),
        ('{"fact_groups": [{"id": 1, "facts": ["a"]}, {"id": 1, "facts": ["b"]}]}', "distinct"),
        ('{"fact_groups": [{"id": 1, "facts": ["a"], "weight": 2}]}', "Extra inputs"),
        ('{"fact_groups": [{"id": 1, "facts": ' + json.dumps(["f"] * 51) + "}]}", "at most 50"),
    ],
)
def test_parse_rejects_with_a_reason_the_model_can_act_on(reply: str, problem: str) -> None:
    with pytest.raises(ReplyRejected, match=problem):
        parse_rubric(reply)


# --- generation through the fake endpoint --------------------------------------------------


async def _generate(server, config, path: Path, out: Path, gen: GenConfig | None = None):
    with ReplyCache(out.with_suffix(".cache.jsonl")) as cache:
        async with ModelClient(config) as client:
            return await generate_rubrics(path, out, client, cache, gen or GenConfig(concurrency=2))


async def test_broken_replies_are_shown_their_error_and_retried(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("a")])
    fake_openai.push(
        "Sure! The rubric is: facts about the thing.",  # not JSON
        '{"fact_groups": [{"id": 1, "description": "x"}], "difficulty": 1}',  # no facts
        Reply(status=500),  # the client's own transport retry
        rubric_reply(2, 3),
    )
    report = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl")
    assert (report.generated, report.failed) == (1, [])
    assert len(fake_openai.requests) == 4 and report.usage.calls == 3  # the 500 has no usage
    second, last = fake_openai.requests[1], fake_openai.requests[3]
    assert second["messages"][-2]["content"].startswith("Sure!")  # its own reply, then the error
    assert "not valid JSON" in last_user_text(second)
    assert "fact_groups.0.facts: Field required" in last_user_text(last)
    [done] = read(tmp_path / "out.jsonl")
    assert done.difficulty == 5 and done.level == "medium"
    assert [len(g.facts) for g in done.rubric.fact_groups] == [2, 3]
    assert done.meta["webdojo"] == {"rubric_model": "fake-model", "rubric_prompt": "rubric-1"}


async def test_a_stated_difficulty_that_miscounts_is_recomputed_not_retried(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("a")])
    fake_openai.push(rubric_reply(2, 2, difficulty=9))
    report = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl")
    assert len(fake_openai.requests) == 1 and report.extra["difficulty_mismatch"] == 1
    assert read(tmp_path / "out.jsonl")[0].difficulty == 4


async def test_a_task_that_never_validates_is_reported_and_written_unchanged(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("bad", "Task with no hope."), task("good")])
    fake_openai.respond_with(
        lambda body: "no JSON here" if "no hope" in str(body["messages"]) else rubric_reply(3)
    )
    gen = GenConfig(concurrency=1, attempts=2)
    report = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl", gen)
    assert [i for i, _ in report.failed] == ["bad"] and "2 attempt(s)" in report.failed[0][1]
    bad, good = read(tmp_path / "out.jsonl")
    assert bad == task("bad", "Task with no hope.") and good.difficulty == 3
    assert report.to_json()["failed"] == 1 and report.to_json()["failures"][0]["id"] == "bad"


async def test_the_cache_answers_a_second_run_and_duplicates_ask_once(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    tasks = [task("a", "Same question."), task("b", "Same question."), task("c")]
    path = write(tmp_path / "in.jsonl", tasks)
    fake_openai.respond_with(lambda body: rubric_reply(1, 3))
    first = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl")
    assert (first.generated, first.cached, len(fake_openai.requests)) == (2, 0, 2)
    fake_openai.reset()
    second = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl")
    assert (second.generated, second.cached, second.usage.calls) == (0, 2, 0)
    assert fake_openai.requests == [] and read(tmp_path / "out.jsonl")[1].difficulty == 4


async def test_existing_rubrics_are_kept_unless_forced(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("has", sizes=(1,)), task("none")])
    fake_openai.respond_with(lambda body: rubric_reply(2))
    report = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl")
    assert (report.kept, report.generated) == (1, 1)
    assert [t.difficulty for t in read(tmp_path / "out.jsonl")] == [1, 2]
    forced = GenConfig(force=True)
    report = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl", forced)
    assert (report.kept, report.generated, report.cached) == (0, 1, 1)
    assert [t.difficulty for t in read(tmp_path / "out.jsonl")] == [2, 2]


async def test_a_sources_level_that_the_rubric_contradicts_moves_to_meta(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("m2w", level="hard")])
    fake_openai.push(rubric_reply(2))
    await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl")
    [done] = read(tmp_path / "out.jsonl")
    assert done.level == "easy" and done.meta["webdojo"]["source_level"] == "hard"


async def test_tokens_and_cost_come_from_the_apis_usage(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("a"), task("b")])
    fake_openai.respond_with(lambda body: rubric_reply(1))
    gen = GenConfig(price=Price(input_per_m=2.0, output_per_m=10.0))
    report = await _generate(fake_openai, fake_model_config, path, tmp_path / "out.jsonl", gen)
    # the fake counts words: of str(messages) for the prompt, of the reply for the completion
    prompt = sum(len(str(r["messages"]).split()) for r in fake_openai.requests)
    completion = 2 * len(rubric_reply(1).split())
    assert (report.usage.prompt_tokens, report.usage.completion_tokens) == (prompt, completion)
    assert report.cost == pytest.approx((prompt * 2.0 + completion * 10.0) / 1e6)


async def test_concurrency_is_bounded(
    fake_openai: FakeOpenAIServer, fake_model_config, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task(f"t{i}") for i in range(9)])
    fake_openai.respond_with(lambda body: Reply(rubric_reply(1), delay_s=0.1))
    await _generate(
        fake_openai, fake_model_config, path, tmp_path / "out.jsonl", GenConfig(concurrency=3)
    )
    assert len(fake_openai.requests) == 9 and 1 < fake_openai.max_in_flight <= 3


def test_model_output_invalid_is_a_model_error() -> None:
    assert ModelOutputInvalid("x").code == "model_output_invalid"


# --- the command ---------------------------------------------------------------------------


def _cli(*args: str):
    return CliRunner().invoke(app, ["tasks", "rubric", *args])


def test_cli_json_summary_failures_exit_1_and_resume(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("a"), task("b", "Hopeless task.")])
    out = tmp_path / "out.jsonl"
    fake_openai.respond_with(
        lambda body: "nope" if "Hopeless" in str(body["messages"]) else rubric_reply(3)
    )
    args = [str(path), "--out", str(out), "--model-base-url", fake_openai.base_url,
            "--attempts", "2", "--price-in", "1", "--price-out", "1", "--json"]  # fmt: skip
    result = _cli(*args)
    assert result.exit_code == 1, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert {k: summary[k] for k in ("tasks", "generated", "cached", "failed", "written")} == {
        "tasks": 2, "generated": 1, "cached": 0, "failed": 1, "written": 2,
    }  # fmt: skip
    assert summary["tokens"] > 0 and summary["cost"] == pytest.approx(summary["tokens"] / 1e6)
    assert (
        summary["failures"][0]["id"] == "b" and (tmp_path / "out.cache" / "rubric.jsonl").exists()
    )
    fake_openai.reset()
    fake_openai.respond_with(lambda body: rubric_reply(2))  # the model got better
    result = _cli(*args)
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert result.exit_code == 0 and (summary["generated"], summary["cached"]) == (1, 1)
    assert len(fake_openai.requests) == 1


def test_cli_without_an_endpoint_or_with_a_bad_file_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("WEBDOJO_MODEL_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    path = write(tmp_path / "in.jsonl", [task("a")])
    result = _cli(str(path), "--out", str(tmp_path / "o.jsonl"))
    assert result.exit_code == 2 and "no model endpoint" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    result = _cli(
        str(bad), "--out", str(tmp_path / "o.jsonl"), "--model-base-url", "http://127.0.0.1:9/v1"
    )
    assert result.exit_code == 2 and "bad.jsonl:1: instruction" in result.output


def test_cli_stops_when_the_endpoint_keeps_failing_and_resumes_after(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    tasks = [task(f"t{i:02d}") for i in range(30)]
    path = write(tmp_path / "in.jsonl", tasks)
    out = tmp_path / "out.jsonl"
    fake_openai.push(*[rubric_reply(1)] * 5)
    fake_openai.respond_with(lambda body: Reply(status=400))  # not transient: no backoff
    args = [str(path), "--out", str(out), "--model-base-url", fake_openai.base_url,
            "--concurrency", "1", "--stop-after-errors", "3"]  # fmt: skip
    result = _cli(*args)
    assert result.exit_code == 3 and "3 requests in a row" in result.output and not out.exists()
    assert len(fake_openai.requests) == 8  # 5 answered, then 3 failures, then it stopped
    fake_openai.reset()
    fake_openai.respond_with(lambda body: rubric_reply(1))
    result = _cli(*args, "--json")
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert (summary["cached"], summary["generated"]) == (5, 25)


def test_a_killed_run_resumes_without_asking_again(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    """kill -9 in the middle of a run: the replies it got are in the cache, and the next run
    asks only for the rest."""
    path = write(tmp_path / "in.jsonl", [task(f"t{i}") for i in range(6)])
    out = tmp_path / "out.jsonl"
    fake_openai.push(*[rubric_reply(1)] * 3)
    fake_openai.respond_with(lambda body: Reply(rubric_reply(1), delay_s=120))  # hangs
    env = {**os.environ, "PYTHONPATH": str(SRC), "WEBDOJO_MODEL_BASE_URL": fake_openai.base_url}
    command = [sys.executable, "-m", "webdojo.cli", "tasks", "rubric", str(path), "--out",
               str(out), "--concurrency", "1"]  # fmt: skip
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while len(fake_openai.requests) < 4:  # the 4th question is asked: 3 replies are stored
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run never asked its 4th question"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr:
            proc.stderr.close()
    assert not out.exists()
    fake_openai.reset()  # also ends the hanging reply
    fake_openai.respond_with(lambda body: rubric_reply(2))
    result = _cli(str(path), "--out", str(out), "--model-base-url", fake_openai.base_url, "--json")
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert (summary["cached"], summary["generated"], len(fake_openai.requests)) == (3, 3, 3)
    assert [t.difficulty for t in read(out)] == [1, 1, 1, 2, 2, 2]
