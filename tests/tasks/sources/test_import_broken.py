"""Bad input, on deliberately broken copies of the real files: every problem is an error that
names file, line and field, or (with skip_invalid) a skipped record with its reason. Nothing is
dropped silently, and a failed import writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from import_helpers import run_import

from shared_data import shared_file
from webdojo.errors import TaskFileError


@pytest.fixture
def voyager(tmp_path: Path) -> list[str]:
    """The real WebVoyager lines (its answers file is copied next to each broken copy)."""
    (tmp_path / "src").mkdir()
    answers = shared_file("tasks/webvoyager/reference_answer.json")
    (tmp_path / "src" / answers.name).write_bytes(answers.read_bytes())
    return shared_file("tasks/webvoyager/WebVoyager_data.jsonl").read_text().splitlines()


def broken_copy(tmp_path: Path, lines: list[str], name: str = "WebVoyager_data.jsonl") -> Path:
    path = tmp_path / "src" / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def edit(line: str, **changes: object) -> str:
    record = json.loads(line)
    for key, value in changes.items():
        if value is ...:
            del record[key]
        else:
            record[key] = value
    return json.dumps(record)


@pytest.mark.parametrize(
    ("line", "breakage", "message"),
    [
        (5, lambda text: text[:40], r":5: truncated JSON \(.*\) \(truncated JSON\)"),
        (10, lambda text: edit(text, ques=...), r":10: ques: required field is missing \(missing field\)"),
        (12, lambda text: edit(text, web=123), r":12: web: expected a string, got an integer \(wrong type\)"),
        (13, lambda text: edit(text, ques="  "), r":13: ques: is blank \(missing field\)"),
        (20, lambda text: "[1, 2]", r":20: expected a JSON object, got list \(not an object\)"),
        (30, lambda text: text.replace('"ques"', '"ques" "x"'), r":30: invalid JSON \(Expecting ':' delimiter"),
    ],
)  # fmt: skip
def test_strict_names_file_line_and_field(
    tmp_path: Path, voyager: list[str], line: int, breakage: object, message: str
) -> None:
    lines = list(voyager)
    lines[line - 1] = breakage(lines[line - 1])  # type: ignore[operator]
    path = broken_copy(tmp_path, lines)
    out = tmp_path / "imported.jsonl"
    out.write_text("the old file\n")
    with pytest.raises(TaskFileError, match=f"WebVoyager_data.jsonl{message}"):
        run_import(tmp_path, path)
    assert out.read_text() == "the old file\n"  # a failed import writes nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["imported.jsonl", "src"]


def test_duplicates_are_found_after_sanitizing(tmp_path: Path, voyager: list[str]) -> None:
    bbc = next(i for i, line in enumerate(voyager) if '"BBC News--0"' in line)
    lines = [*voyager, voyager[0], edit(voyager[bbc], id="BBC_News--0")]
    path = broken_copy(tmp_path, lines)
    with pytest.raises(
        TaskFileError,
        match=rf":644: id: duplicate id 'webvoyager:Allrecipes--0' \(first at {path}:1\)",
    ):
        run_import(tmp_path, path)
    report, tasks = run_import(tmp_path, path, skip_invalid=True)
    assert len(tasks) == 643 and report.reasons() == {"duplicate id": 2}
    assert (
        report.skipped[1].detail
        == f"id: duplicate id 'webvoyager:BBC_News--0' (first at {path}:{bbc + 1})"
    )


def test_skip_invalid_lists_every_bad_line_with_counts(tmp_path: Path, voyager: list[str]) -> None:
    lines = list(voyager)
    lines[1] = lines[1][:-15]  # truncated
    lines[2] = edit(lines[2], ques=...)  # missing field
    lines[3] = edit(lines[3], id=...)  # missing id
    lines[4] = edit(lines[4], web=["https://x.test"])  # wrong type
    lines[5] = edit(lines[5], ques=42)  # wrong type
    lines.insert(7, "")  # a blank line is not a record
    lines.append(voyager[9])  # duplicate of line 10
    path = broken_copy(tmp_path, lines)
    report, tasks = run_import(tmp_path, path, skip_invalid=True)
    assert len(tasks) == 643 - 5 and report.tasks == len(tasks)
    assert report.reasons() == {
        "wrong type": 2,
        "missing field": 2,
        "truncated JSON": 1,
        "duplicate id": 1,
    }
    assert [(s.where.removeprefix(str(path)), s.reason) for s in report.skipped] == [
        (":2", "truncated JSON"), (":3", "missing field"), (":4", "missing field"),
        (":5", "wrong type"), (":6", "wrong type"), (":645", "duplicate id"),
    ]  # fmt: skip
    assert report.skipped[2].detail == "id: required field is missing"
    assert report.sources[0].skipped == 6 and report.to_json()["skipped"] == 6


def test_a_truncated_json_list(tmp_path: Path) -> None:
    source = shared_file("tasks/online_mind2web/Online_Mind2Web.abp_2026-03.json")
    text = source.read_text()
    cut = text.index('"task_id"', len(text) // 2) + 20  # in the middle of an element
    path = tmp_path / "online.json"
    path.write_text(text[:cut])
    element_line = text[:cut].rindex("{")
    line = text.count("\n", 0, element_line) + 1
    with pytest.raises(
        TaskFileError,
        match=rf"online.json:{line}: truncated JSON .*the rest of the file is unreadable",
    ):
        run_import(tmp_path, path)
    report, tasks = run_import(tmp_path, path, skip_invalid=True)
    whole = json.loads(text)
    assert len(tasks) == text[:cut].count('"task_id"') - 1  # the elements before the cut one
    assert [t.meta["task_id"] for t in tasks] == [r["task_id"] for r in whole[: len(tasks)]]
    assert [(s.where, s.reason) for s in report.skipped] == [(f"{path}:{line}", "truncated JSON")]


def test_a_list_element_that_is_not_an_object(tmp_path: Path) -> None:
    rows = json.loads(
        shared_file("tasks/mind2web_live/mind2web-live_test_20241024.json").read_text()
    )
    rows[3] = "not a task"
    rows[5]["evaluation"][0]["match_function_name"] = "pixel_match"
    rows[6]["evaluation"][1]["content"]["colour"] = "red"
    path = tmp_path / "live.json"
    path.write_text(json.dumps(rows, indent=2))
    report, tasks = run_import(tmp_path, path, skip_invalid=True)
    assert len(tasks) == 101
    details = [(s.reason, s.detail) for s in report.skipped]
    assert details[0] == ("not an object", "expected a JSON object, got str")
    assert details[1][0] == "invalid value" and details[1][1].startswith(
        "evaluation (eval_rules.0.match): Input should be"
    )
    assert details[2] == ("invalid value", "evaluation[1]: unknown key(s) content.colour")


@pytest.mark.parametrize(
    ("name", "text"),
    [("empty.jsonl", ""), ("blank.jsonl", "\n  \n"), ("empty.json", ""), ("list.json", "[]"),
     ("header.csv", "website,instruction,steps,criteria\n"), ("nothing.csv", "")],
)  # fmt: skip
def test_an_empty_file_is_an_error(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(TaskFileError, match=rf"{name}: empty file \(no records\)"):
        run_import(tmp_path, path, skip_invalid=True)
    with pytest.raises(TaskFileError, match="empty file"):
        run_import(tmp_path, path, fmt="insta")


def test_unknown_formats_list_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "mystery.jsonl"
    path.write_text('{"prompt_text": "hi", "label": 1}\n')
    with pytest.raises(
        TaskFileError,
        match=r"cannot tell the format: its first record has keys \[label, prompt_text\]; known formats: deepshop \(.*webvoyager",
    ):
        run_import(tmp_path, path)
    odd = tmp_path / "tasks.txt"
    odd.write_text("hello\n")
    with pytest.raises(TaskFileError, match=r"unknown file kind '.txt'.*known formats"):
        run_import(tmp_path, odd)
    with pytest.raises(
        TaskFileError, match=r"unknown format 'webarena'; known formats: deepshop, webvoyager"
    ):
        run_import(tmp_path, path, fmt="webarena")
    answers = shared_file("tasks/webvoyager/reference_answer.json")
    with pytest.raises(TaskFileError, match="this is WebVoyager's answer file"):
        run_import(tmp_path, answers)


def test_a_file_of_only_broken_records(tmp_path: Path, voyager: list[str]) -> None:
    path = broken_copy(tmp_path, [line[:30] for line in voyager[:3]])
    with pytest.raises(
        TaskFileError, match=r"truncated JSON.*none of the first 3 records can be read"
    ):
        run_import(tmp_path, path)
    with pytest.raises(TaskFileError, match=r"truncated JSON.*none of the first 3"):
        run_import(tmp_path, path, skip_invalid=True)
    with pytest.raises(
        TaskFileError,
        match=r"no task could be imported: all 3 records were skipped \(truncated JSON: 3\)",
    ):
        run_import(tmp_path, path, fmt="webvoyager", skip_invalid=True)
    assert not (tmp_path / "imported.jsonl").exists()


def test_a_missing_source(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match=r"nope\.jsonl: no such file"):
        run_import(tmp_path, tmp_path / "nope.jsonl")
