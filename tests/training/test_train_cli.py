"""``webdojo train sft|rl`` on a selection made from a real scripted run (headless Chromium)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from webdojo.cli import app
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.tasks.loader import load_spec
from webdojo.training.select_runs import SelectSettings, select

pytest.importorskip("webdojo.training.contexts", reason="selection_examples is not merged yet")
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def selection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("train-cli")
    config = RunConfig(tasks="builtin:login", limit=2, out=str(root / "run"))
    asyncio.run(run_job(config, load_spec(config.tasks), make_policy("scripted")))
    select([root / "run"], root / "sel", SelectSettings(rule="bc"))
    return root / "sel"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["train", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("mode", ["sft", "rl"])
def test_train_prints_its_result_as_the_last_json_line(
    mode: str, selection: Path, tmp_path: Path
) -> None:
    code, output = invoke(mode, "--data", str(selection), "--out", str(tmp_path / "o"),
                          "--steps", "2", "--batch-size", "2", "--json")  # fmt: skip
    assert code == 0, output
    result = json.loads(output.strip().splitlines()[-1])
    assert result["steps"] == 2 and result["loss_first"] > 0 and result["samples_per_s"] > 0
    assert Path(result["checkpoint"]).name == "step-000002"
    assert (result["device"], result["dtype"]) == ("cpu", "float32")  # no GPU, no autocast
    lines = (tmp_path / "o" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in lines] == [1, 2]


def test_bad_input_exits_2(selection: Path, tmp_path: Path) -> None:
    code, output = invoke("sft", "--data", str(tmp_path / "none"), "--out", str(tmp_path / "a"))
    assert code == 2 and "webdojo select" in output
    code, output = invoke("sft", "--data", str(selection), "--model", str(tmp_path / "nothing"),
                          "--out", str(tmp_path / "b"))  # fmt: skip
    assert code == 2 and "not 'tiny'" in output
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "samples.jsonl").write_text("")
    code, output = invoke("rl", "--data", str(empty), "--out", str(tmp_path / "c"))
    assert code == 2 and "empty_training_data" in output
