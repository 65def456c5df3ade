"""Suites: the shipped ones load and hash stably, suite files resolve their paths, and every
bad suite fails with ``bad_suite`` before anything runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from webdojo.errors import SuiteError
from webdojo.eval.suites import load_suite, shipped_names
from webdojo.tasks.loader import builtin_root


def test_core_is_the_default_and_holds_builtin_and_miniwob() -> None:
    core = load_suite(None)
    assert core.name == "core" and "core" in shipped_names()
    sources = core.sources()
    assert sum(1 for s in sources.values() if s == "builtin") == 63
    miniwob = sorted(t for t, s in sources.items() if s == "miniwob")
    assert len(miniwob) == 20 and "miniwob.click-checkboxes" not in miniwob
    assert len(core.parts) == 1  # same archive, ZIM and judge: one run directory
    assert core.hash.startswith("sha256:") and core.hash == load_suite("core").hash


def test_the_hash_follows_the_pages(tmp_path: Path) -> None:
    """A changed page of a served site changes the suite's hash; the suite file's place
    does not."""
    sites = tmp_path / "sites"
    shutil.copytree(builtin_root() / "login", sites / "login")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: mine\nsets:\n  - name: login\n    tasks: sites\n")
    before = load_suite(str(suite)).hash
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path, moved, ignore=shutil.ignore_patterns("elsewhere"))
    assert load_suite(str(moved / "s.yaml")).hash == before
    page = sites / "login" / "index.html"
    page.write_text(page.read_text() + "<!-- changed -->")
    assert load_suite(str(suite)).hash != before


def test_a_task_file_is_a_suite_of_one_set(tmp_path: Path) -> None:
    rows = [
        t.model_dump(mode="json", exclude_none=True)
        for t in load_suite("builtin").parts[0].tasks.tasks[:3]
    ]
    path = tmp_path / "three tasks.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    suite = load_suite(str(path))
    assert suite.task_count == 3 and suite.suite.sets[0].name == "three-tasks"
    assert set(suite.parts[0].tasks.sites) == {t.website for t in suite.parts[0].tasks.tasks}


def test_sets_that_run_differently_are_separate_parts(tmp_path: Path) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text(
        "name: two\nrepeats: 3\nsets:\n"
        "  - {name: login, tasks: 'builtin:login'}\n"
        "  - {name: forms, tasks: 'builtin:forms', judge: programmatic}\n"
    )
    loaded = load_suite(str(suite))
    assert [p.name for p in loaded.parts] == ["login", "forms"]
    assert loaded.parts[1].judge == "programmatic" and loaded.suite.repeats == 3


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("name: x\nsets: []\n", "sets"),
        ("name: x\nsets:\n  - {name: a, tasks: builtin, colour: red}\n", "colour"),
        ("name: x\nrepeats: 0\nsets:\n  - {name: a, tasks: builtin}\n", "repeats"),
        ("name: x\nsets:\n  - {name: a, tasks: ./nowhere.jsonl}\n", "nowhere"),
        ("name: x\nsets:\n  - {name: a, tasks: builtin, archive: gone.warc.gz}\n", "archive"),
        ("name: x\nsets:\n  - {name: a, tasks: builtin, archive: .}\n", "is not an archive"),
        (
            "name: x\nsets:\n  - {name: a, tasks: 'builtin:login'}\n  - {name: b, tasks: 'builtin:login'}\n",
            "duplicate task id",
        ),
        ("- just\n- a list\n", "mapping"),
        ("name: [unclosed\n", "YAML"),
    ],
)
def test_a_bad_suite_file_names_its_fault(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        load_suite(str(path))
    assert caught.value.code == "bad_suite" and words in str(caught.value)


def test_an_unknown_suite_lists_the_shipped_ones() -> None:
    with pytest.raises(SuiteError, match="core"):
        load_suite("no-such-suite")
