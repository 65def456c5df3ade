"""``webdojo export``: the table, the JSON line, and exit 2 (nothing written) on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from export_runs import as_schema_v2, copy_run, first_screenshot, retarget, select_bc
from typer.testing import CliRunner

from webdojo.cli import app
from webdojo.training.samples import SAMPLES

pytestmark = pytest.mark.browser


def run_export(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["export", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def test_the_command_prints_a_table_and_the_json_line(scripted: Path, tmp_path: Path) -> None:
    selection = select_bc(scripted, tmp_path / "sel")
    out = tmp_path / "out"
    code, stdout, stderr = run_export(selection, "--format", "sharegpt", "--out", out,
                                      "--max-images", "1", "--json")  # fmt: skip
    assert code == 0, stderr
    line = json.loads(stdout.strip().splitlines()[-1])
    samples = len((selection / SAMPLES).read_text().splitlines())
    assert (line["samples"], line["out"], line["format"]) == (samples, str(out), "sharegpt")
    assert line["images"] == len(list((out / "images").iterdir())) > 0
    assert "image parts" in stdout and "written to" in stdout
    rows = json.loads((out / "train.json").read_text())
    assert all(len(row["images"]) == 1 for row in rows)  # --max-images 1: the current page only
    again = run_export(selection, "--format", "sharegpt", "--out", out)
    assert again[0] == 2 and "not empty" in again[2]
    forced = run_export(selection, "--format", "hf", "--out", out, "--force", "--template", "qwen")
    assert forced[0] == 0 and (out / "state.json").is_file() and not (out / "images").exists()


def test_bad_input_exits_2_and_writes_nothing(scripted: Path, tmp_path: Path) -> None:
    selection = select_bc(scripted, tmp_path / "sel")
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / SAMPLES).write_text("")
    old = retarget(selection, as_schema_v2(scripted, tmp_path / "v2"), tmp_path / "old")
    damaged = copy_run(scripted, tmp_path / "damaged")
    gone = first_screenshot(damaged)
    gone.unlink()
    cases = [
        ((empty, "--format", "openai"), "holds no selection"),
        ((tmp_path / "blank", "--format", "openai"), "holds no samples"),
        ((selection, "--format", "csv"), "unknown export format 'csv'"),
        ((retarget(selection, damaged, tmp_path / "d"), "--format", "verl"), str(gone)),
        ((old, "--format", "openai", "--template", "browseragent"), "predates schema v3"),
        ((selection, "--format", "openai", "--template", "browseragent"), "accessibility tree"),
        ((selection, "--format", "openai", "--template", "gpt"), "unknown prompt template"),
    ]
    for args, message in cases:
        code, _, stderr = run_export(*args, "--out", tmp_path / "out")
        assert code == 2 and message in " ".join(stderr.split()), (args, stderr)
        assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
    ok = run_export(old, "--format", "openai", "--out", tmp_path / "out")  # v2, qwen: rebuilt
    assert ok[0] == 0, ok[2]
