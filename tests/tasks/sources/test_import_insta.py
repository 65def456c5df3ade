"""InSTA's CSV, whose steps and criteria columns are numpy arrays as text: parsed by a small
tokenizer, never evaluated. The fixtures are written the way pandas writes such a frame."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from import_helpers import run_import

from webdojo.errors import TaskFileError
from webdojo.tasks.sources.numpy_repr import parse_string_list

TRICKY = [
    ("['Go to x'\n 'Click y']", ["Go to x", "Click y"]),  # numpy's str(): newline + space
    ("['a'  'b'\n\n 'c']", ["a", "b", "c"]),
    ('["it\'s open" \'say "hi"\']', ["it's open", 'say "hi"']),  # both quote kinds
    ("['don\\'t stop' 'tab\\there' 'caf\\xe9']", ["don't stop", "tab\there", "café"]),
    ("array(['a', 'b'], dtype=object)", ["a", "b"]),  # numpy's repr()
    ("array(['x'\n       'y'], dtype='<U1')", ["x", "y"]),
    ('["json", "list"]', ["json", "list"]),
    ("['brackets [inside] and, commas']", ["brackets [inside] and, commas"]),
    ("[]", []),
    ("  ['padded']  ", ["padded"]),
]


@pytest.mark.parametrize(("text", "items"), TRICKY)
def test_numpy_array_text_is_parsed(text: str, items: list[str]) -> None:
    assert parse_string_list(text) == items


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("['a' ... 'z']", "summarized with '...'"),
        ("['a'", "expected a list in brackets"),
        ("['a' 'b", "expected a list in brackets"),
        ("['unterminated]", "unterminated string"),
        ("['a' 3]", "expected a quoted string at character 5"),
        ("[b'bytes']", "bytes literal"),
        ("['a',, 'b']", "unexpected ','"),
        ("__import__('os').system('true')", "expected a list in brackets"),
        ("['a' + 'b']", "expected a quoted string"),
        ("[f'{1}']", "expected a quoted string"),
    ],
)
def test_anything_else_is_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_string_list(text)


def write_csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["website", "instruction", "steps", "criteria"], *rows])
    return path


def test_insta_rows_become_tasks(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "insta.csv", [
        ["www.example.com", "Find the opening hours.", "['Open the site'\n 'Go to \"Contact\"']",
         "['The hours are stated'\n \"It's the official page\"]"],
        ["https://shop.test/", "Buy a lamp", "[]", ""],
    ])  # fmt: skip
    report, tasks = run_import(tmp_path, path)
    assert report.formats == "insta" and [t.id for t in tasks] == ["insta:0", "insta:1"]
    first, second = tasks
    assert first.website == "www.example.com" and first.start_url == "https://www.example.com"
    assert first.facts() == ["The hours are stated", "It's the official page"]
    assert first.difficulty == 2 and first.meta == {"steps": ["Open the site", 'Go to "Contact"']}
    assert second.rubric is None and second.meta == {} and second.start_url == "https://shop.test/"


def test_a_bad_cell_names_the_line_it_starts_on(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "insta.csv", [
        ["a.com", "one", "['x'\n 'y'\n 'z']", "['ok']"],  # lines 2-4
        ["b.com", "two", "['x']", "['fine' ... 'lost']"],  # line 5
    ])  # fmt: skip
    with pytest.raises(
        TaskFileError,
        match=r"insta.csv:5: criteria: not a list of strings: the array was summarized",
    ):
        run_import(tmp_path, path)
    report, tasks = run_import(tmp_path, path, skip_invalid=True)
    assert len(tasks) == 1 and [(s.where, s.reason) for s in report.skipped] == [
        (f"{path}:5", "invalid value")
    ]


def test_a_row_with_the_wrong_number_of_fields(tmp_path: Path) -> None:
    path = tmp_path / "insta.csv"
    path.write_text("website,instruction,steps,criteria\na.com,one,[],[]\nb.com,two\n")
    with pytest.raises(
        TaskFileError, match=r"insta.csv:3: 2 fields, but the header has 4 \(bad row\)"
    ):
        run_import(tmp_path, path)
