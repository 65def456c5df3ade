"""``webdojo tasks import`` through the real Typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from import_helpers import cli, jsonl, last_json

from shared_data import shared_file


def test_detects_reports_and_writes(tmp_path: Path) -> None:
    out = tmp_path / "wv.jsonl"
    voyager = shared_file("tasks/webvoyager/WebVoyager_data.jsonl")
    result = cli(voyager, shared_file("qa/flashrag_nq_test.jsonl"), "--out", out, "--json")
    assert result.exit_code == 0, result.output
    assert "format webvoyager" in result.stdout and "format flashrag" in result.stdout
    summary = last_json(result)
    assert {k: summary[k] for k in ("tasks", "skipped", "format", "out")} == {
        "tasks": 660, "skipped": 0, "format": "webvoyager,flashrag", "out": str(out)
    }  # fmt: skip
    assert [s["tasks"] for s in summary["sources"]] == [643, 17]
    assert len(jsonl(out)) == 660


def test_builtin_export(tmp_path: Path) -> None:
    out = tmp_path / "builtin.jsonl"
    result = cli("builtin", "--out", out, "--json")
    assert result.exit_code == 0, result.output
    assert last_json(result)["tasks"] == 63 and len(jsonl(out)) == 63


def test_a_bad_record_exits_2_naming_file_line_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # short paths, so the table does not fold them
    lines = shared_file("tasks/deepshop/deepshop_example.jsonl").read_text().splitlines()
    record = json.loads(lines[3])
    record["difficulty"] = "impossible"
    lines[3] = json.dumps(record)
    source = Path("deepshop.jsonl")
    source.write_text("\n".join(lines))
    out = Path("out.jsonl")
    result = cli(source, "--out", out)
    assert result.exit_code == 2 and not out.exists()
    assert (
        f"{source}:4: difficulty: expected easy, medium or hard, got 'impossible'" in result.stderr
    )
    assert "--skip-invalid" in result.stderr

    result = cli(source, "--out", out, "--skip-invalid", "--json")
    assert result.exit_code == 0, result.output
    assert "Skipped records" in result.stdout and "Skipped per reason" in result.stdout
    assert "│ deepshop.jsonl:4 │ invalid value │ difficulty: expected easy" in result.stdout
    summary = last_json(result)
    assert (summary["tasks"], summary["skipped"], summary["reasons"]) == (
        9,
        1,
        {"invalid value": 1},
    )


def test_format_override_and_unknown_formats(tmp_path: Path) -> None:
    source = tmp_path / "tasks.jsonl"
    row = {"task_id": "t1", "task_description": "x", "task_name": "Find y", "website": "a.test"}
    source.write_text(json.dumps(row) + "\n")
    result = cli(source, "--out", tmp_path / "a.jsonl", "--json")
    assert last_json(result)["format"] == "mind2web2"  # detected
    result = cli(source, "--out", tmp_path / "b.jsonl", "--format", "webgym", "--json")
    assert result.exit_code == 0, result.output
    assert "given with --format" in result.stdout and last_json(result)["format"] == "webgym"
    assert jsonl(tmp_path / "b.jsonl")[0]["id"] == "webgym:t1"

    result = cli(source, "--out", tmp_path / "c.jsonl", "--format", "webarena")
    assert result.exit_code == 2 and "known formats: deepshop, webvoyager" in result.stderr
    source.write_text('{"q": 1}\n')
    result = cli(source, "--out", tmp_path / "c.jsonl")
    assert result.exit_code == 2 and "cannot tell the format" in result.stderr
    source.write_text("")
    result = cli(source, "--out", tmp_path / "c.jsonl")
    assert result.exit_code == 2 and "empty file" in result.stderr


def test_past_a_thousand_skips_all_go_to_a_side_file(tmp_path: Path) -> None:
    source = tmp_path / "qa.jsonl"
    good = {"id": "q0", "question": "why", "golden_answers": ["because"]}
    bad = [f'{{"id": "q{i}", "question": "why", "golden_answers": [' for i in range(1, 1006)]
    source.write_text("\n".join([json.dumps(good), *bad]) + "\n")
    out = tmp_path / "qa.out.jsonl"
    result = cli(source, "--out", out, "--skip-invalid", "--json")
    assert result.exit_code == 0, result.output
    side = tmp_path / "qa.out.skipped.jsonl"
    assert "1,000 of 1,005 skipped records shown" in result.stdout
    skipped = jsonl(side)
    assert len(skipped) == 1005 and skipped[-1]["where"] == f"{source}:1006"
    assert {s["reason"] for s in skipped} == {"truncated JSON"}
    assert last_json(result)["skipped"] == 1005


def test_a_long_source_path_stays_on_one_line(tmp_path: Path) -> None:
    deep = tmp_path / ("nested-directory-" * 6) / "qa"
    deep.mkdir(parents=True)
    source = deep / "nq.jsonl"
    record = {"id": "q1", "question": "who wrote it?", "golden_answers": ["someone"]}
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = cli(source, "--out", tmp_path / "out.jsonl")
    assert result.exit_code == 0, result.output
    assert f"{source}: format flashrag" in result.stdout.splitlines()[0]
