"""The human-label JSONL format: reading, bad lines (file:line: field), majority merging."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webdojo.errors import ConfigError, LabelFileError
from webdojo.judges.human_labels import merge_labels, read_labels


def write(path: Path, *rows: dict | str) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n",
        encoding="utf-8",
    )
    return path


def label(key: str, value: str, who: str, run: str = "runs/x", **extra: str) -> dict:
    return {"run": run, "key": key, "label": value, "annotator": who, **extra}


def test_reads_lines_and_resolves_runs_from_the_file_directory(tmp_path: Path) -> None:
    (tmp_path / "labels").mkdir()
    path = write(
        tmp_path / "labels" / "a.jsonl",
        label("t#0", "success", "ana", note="fine"),
        "",
        label("t#1", "website_failure", "ana", run=str(tmp_path / "abs")),
    )
    lines = read_labels(path)
    assert [ln.label.key for ln in lines] == ["t#0", "t#1"]
    assert lines[0].run_dir == tmp_path / "labels" / "runs" / "x"
    assert lines[1].run_dir == tmp_path / "abs"
    assert lines[0].where == f"{path}:1" and lines[1].where == f"{path}:3"
    assert lines[0].label.note == "fine" and lines[1].label.note == ""


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", ":1: not JSON"),
        ("[1, 2]", ":1: a label line is a JSON object"),
        (json.dumps(label("t#0", "great", "ana")), ":1: label: Input should be 'success'"),
        (
            json.dumps({"run": "r", "key": "t#0", "label": "success"}),
            ":1: annotator: Field required",
        ),
        (json.dumps(label("t#0", "success", "")), ":1: annotator: String should have at least 1"),
        (json.dumps(label("t#0", "success", "ana", score="1")), ":1: score: unknown field"),
        (json.dumps(label("", "success", "ana")), ":1: key: String should have at least 1"),
    ],
)
def test_bad_lines_name_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    path = write(tmp_path / "bad.jsonl", line)
    with pytest.raises(LabelFileError, match="bad.jsonl" + message) as info:
        read_labels(path)
    assert info.value.code == "bad_label_file" and isinstance(info.value, ConfigError)


def test_the_line_number_counts_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "l.jsonl", label("t#0", "success", "a"), "", "{oops")
    with pytest.raises(LabelFileError, match=r"l\.jsonl:3: not JSON"):
        read_labels(path)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(LabelFileError, match="cannot read the label file"):
        read_labels(tmp_path / "nope.jsonl")
    with pytest.raises(LabelFileError, match="no labels"):
        read_labels(write(tmp_path / "empty.jsonl", ""))


def test_majority_over_annotators_and_files_ties_left_out(tmp_path: Path) -> None:
    first = write(
        tmp_path / "a.jsonl",
        label("t#0", "success", "ana"),
        label("t#1", "success", "ana"),
        label("t#2", "failure", "ana"),
    )
    second = write(
        tmp_path / "b.jsonl",
        label("t#0", "success", "bo"),
        label("t#1", "failure", "bo"),
        label("t#0", "failure", "cy"),
    )
    merged = merge_labels([*read_labels(first), *read_labels(second)])
    run = (tmp_path / "runs" / "x").resolve()
    assert merged.labels == {(run, "t#0"): "success", (run, "t#2"): "failure"}
    assert merged.ties == [(run, "t#1")]  # one success, one failure: no label
    assert merged.multiply_labelled == 2 and merged.unanimous == 0
    assert merged.runs() == [run]


def test_one_annotator_twice_on_one_trajectory_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path / "a.jsonl", label("t#0", "success", "ana"), label("t#0", "failure", "ana")
    )
    with pytest.raises(LabelFileError, match=r"a\.jsonl:2: annotator 'ana' already labelled t#0"):
        merge_labels(read_labels(path))
