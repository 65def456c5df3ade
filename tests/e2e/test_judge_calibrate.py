"""``webdojo judge calibrate`` end to end: real headless Chromium rollouts of a few built-in tasks
with the scripted, random and perturbed policies, judged by model judges on the local fake
endpoint (127.0.0.1) that say "success" to everything, so the figures are known exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes.openai_server import FakeOpenAIServer
from judges.model_runs import Script
from webdojo.cli import app
from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import read_verdicts

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOT_SUCCESS = "1. Analysis: not shown on any screenshot.\n2. Verdict: NOT SUCCESS"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["judge", "calibrate", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(autouse=True)
def no_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WEBDOJO_MODEL_BASE_URL", "OPENAI_BASE_URL", "WEBDOJO_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """Two built-in tasks rolled out with each policy in Chromium, calibrated with the
    programmatic judge (no model); the other tests reuse these rollouts."""
    out = tmp_path_factory.mktemp("calibration") / "calib"
    code, stdout, stderr = invoke("--judge", "programmatic", "--limit", "2", "--out", out, "--json")
    assert code == 0, stderr
    return out, last_json(stdout)


def test_the_programmatic_judge_agrees_with_the_verifiers(calibrated: tuple[Path, dict]) -> None:
    out, summary = calibrated
    assert summary["n"] == 6 and summary["accuracy"] == 1.0 and summary["false_positives"] == 0
    assert summary["precision"] == 1.0 and summary["recall"] == 1.0
    assert {k: v["n"] for k, v in summary["by_source"].items()} == {
        "scripted": 2, "random": 2, "perturbed": 2
    }  # fmt: skip
    assert summary["confusion"]["success"]["success"] == 2
    assert summary["confusion"]["failure"]["failure"] == 4
    records = read_run(out / "perturbed").episodes.values()
    assert len(records) == 2 and all(r.reward == 0.0 for r in records)


def test_a_judge_that_says_success_to_everything(
    calibrated: tuple[Path, dict], fake_openai: FakeOpenAIServer
) -> None:
    out, _ = calibrated
    # website-failure and task-only prompting: SUCCESS always; rubric facts: never
    fake_openai.respond_with(Script(replies={"fact": NOT_SUCCESS}))
    labels = out.parent / "labels.jsonl"
    key = "admin.deactivate-priya#0"  # the first task picked: the scripted policy solves it
    labels.write_text(
        json.dumps({"run": "calib/scripted", "key": key, "label": "failure", "annotator": "a"})
        + "\n"
    )
    model = ["--model-base-url", fake_openai.base_url, "--model", fake_openai.model]
    args = ["--judge", "website-failure", "--limit", "2", "--out", out, *model]
    code, stdout, stderr = invoke(*args, "--labels", labels, "--compare-prompts", "--json")
    assert code == 0, stderr
    summary = last_json(stdout)
    # 2 scripted successes, 2 perturbed and 2 random failures, 1 human "failure"
    assert summary["n"] == 7 and summary["recall"] == 1.0
    assert summary["false_positives"] == 5 and summary["precision"] == round(2 / 7, 4)
    assert summary["confusion"]["failure"]["success"] == 5
    assert summary["confusion"]["success"]["success"] == 2
    by_source = summary["by_source"]
    human = f"labels:{(out / 'scripted').resolve()}"
    assert set(by_source) == {"scripted", "random", "perturbed", human}
    assert by_source["scripted"]["accuracy"] == 1.0 and by_source["perturbed"]["accuracy"] == 0.0
    assert by_source["perturbed"]["false_positives"] == 2
    assert by_source[human]["confusion"] == {"failure": {"success": 1}}
    assert summary["human_labels"]["trajectories"] == 1
    compared = summary["rubric_vs_task"]
    assert compared["n"] == 7 and compared["rubric"]["precision"] is None  # never said success
    assert compared["task"]["precision"] == round(2 / 7, 4) and compared["rubric"]["recall"] == 0.0
    assert compared["delta"]["recall"] == -1.0 and compared["same_label"] == 0
    assert "confusion (rows: truth, columns: judge)" in stdout and "overall" in stdout
    assert len(read_verdicts(out / "scripted", "website-failure")) == 2

    # again, with one rollout passed as --runs: nothing is rolled out or asked anew
    asked = len(fake_openai.requests)
    policies = ["--policies", "scripted,perturbed", "--runs", out / "random"]
    code, stdout, stderr = invoke(*args, *policies, "--json")
    assert code == 0, stderr
    again = last_json(stdout)
    assert again["n"] == 6 and again["precision"] == round(2 / 6, 4)
    assert set(again["by_source"]) == {"scripted", "perturbed", f"run:{out / 'random'}"}
    assert "rubric_vs_task" not in again and len(fake_openai.requests) == asked


def test_a_down_endpoint_exits_3_and_writes_no_verdict(calibrated: tuple[Path, dict]) -> None:
    out, _ = calibrated
    model = ["--model-base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    spec = "website-failure@down"
    code, _, err = invoke("--judge", spec, "--policies", "", "--runs", out / "scripted", *model)
    assert code == 3 and "cannot reach model endpoint" in err
    assert read_verdicts(out / "scripted", spec) == {}


def test_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run": "r", "key": "k#0", "label": "yes", "annotator": "a"}\n')
    code, _, err = invoke("--judge", "website-failure", "--policies", "", "--labels", bad)
    assert code == 2 and "bad.jsonl:1: label:" in err
    code, _, err = invoke("--judge", "website-failure", "--policies", "")
    assert code == 2 and "nothing to calibrate on" in err
    code, _, err = invoke("--judge", "x", "--policies", "openai", "--out", tmp_path / "o")
    assert code == 2 and "not a calibration policy" in err
