"""``webdojo judge`` through the real Typer app: the default command, JSON, exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_runs import LabelJudge, write_run
from typer.testing import CliRunner

from webdojo.cli import app
from webdojo.judges import spec as judge_spec
from webdojo.store.verdicts import verdict_path
from webdojo.tasks.blocklist import Blocklist


@pytest.fixture(autouse=True)
def scripted_judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(judge_spec.JUDGES, "scripted", (LabelJudge, {}))
    monkeypatch.delenv("WEBDOJO_MODEL_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    LabelJudge.LABELS, LabelJudge.calls = {"b": "failure"}, []
    yield


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["judge", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def test_judge_run_dir_prints_a_table_and_the_json_line(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True, "b#0": False, "c#0": "fault"})
    code, out, err = invoke(run, "--judge", "scripted", "--json")
    assert code == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert {k: summary[k] for k in ("judged", "reward_mean", "model_calls")} == {
        "judged": 3, "reward_mean": 0.5, "model_calls": 2
    }  # fmt: skip
    assert summary["labels"]["infra_error"] == 1 and "pass_at_k" not in summary
    assert "scripted on" in out and "3 judged (3 now)" in out
    code, out, _ = invoke("run", run, "--judge", "scripted", "--json")  # the explicit form
    assert code == 0 and json.loads(out.strip().splitlines()[-1])["new"] == 0


def test_bad_input_exits_2_and_a_down_endpoint_exits_3_writing_nothing(tmp_path: Path) -> None:
    code, _, err = invoke(tmp_path / "missing", "--judge", "scripted")
    assert code == 2 and "not a run directory" in err
    run = write_run(tmp_path / "run", {"a#0": True})
    code, _, err = invoke(run, "--judge", "no-such-judge")
    assert code == 2 and "unknown judge 'no-such-judge'" in err
    LabelJudge.needs_model = True
    try:
        code, _, err = invoke(run, "--judge", "scripted")
        assert code == 2 and "needs a model endpoint" in err
        url = "http://127.0.0.1:9/v1"
        code, _, err = invoke(run, "--judge", "scripted", "--model-base-url", url, "--model", "m")
        assert code == 3 and "cannot reach model endpoint" in err
    finally:
        LabelJudge.needs_model = False
    assert not verdict_path(run, "scripted").exists() and LabelJudge.calls == []


def test_help_lists_the_judges() -> None:
    code, out, _ = invoke("run", "--help")
    assert code == 0 and "website-failure" in out and "unanimous" in out


def test_blocked_verdicts_send_their_websites_to_the_blocklist(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    remote = {"instruction": "find it", "website": "https://shop.example.co.uk/"}
    tasks.write_text(
        json.dumps({"id": "a", **remote})
        + "\n"
        + json.dumps({"id": "b", "instruction": "x", "website": "https://news.example.org/"})
        + "\n"
    )
    run = write_run(tmp_path / "run", {"a#0": None, "b#0": None}, tasks=str(tasks))
    LabelJudge.LABELS = {"a": "blocked", "b": "failure"}
    blocklist = tmp_path / "blocklist.json"
    code, out, err = invoke(run, "--judge", "scripted", "--blocklist", blocklist, "--json")
    assert code == 0, err
    assert json.loads(out.strip().splitlines()[-1])["blocked_websites"] == 1
    assert Blocklist.load(blocklist).active() == {"example.co.uk"}
