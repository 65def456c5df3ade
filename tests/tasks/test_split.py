"""The OOD split by website, the registrable domains it uses, and ``webdojo tasks split``."""

from __future__ import annotations

from pathlib import Path

import pytest
from shape_tasks import last_json, mixed_set, task, write
from typer.testing import CliRunner

from webdojo.cli import app
from webdojo.errors import ConfigError, TaskFileError
from webdojo.tasks.split import split_file
from webdojo.tasks.task_file import iter_tasks
from webdojo.tasks.websites import NO_WEBSITE, registrable_domain, site_key


@pytest.mark.parametrize(
    ("website", "key"),
    [
        ("https://www.allrecipes.com/recipes/", "allrecipes.com"),
        ("allrecipes.com", "allrecipes.com"),
        ("https://en.m.wikipedia.org/wiki/X", "wikipedia.org"),
        ("www.bbc.co.uk/news", "bbc.co.uk"),
        ("HTTPS://WWW.BBC.CO.UK:443", "bbc.co.uk"),
        ("https://alice.github.io/site", "alice.github.io"),  # the list's private section
        ("http://127.0.0.1:8000/shop/", "127.0.0.1"),
        ("http://[::1]:8000/", "::1"),
        ("http://localhost:3000/", "localhost"),
        ("shop", "shop"),
        ("Shop", "shop"),
        ("co.uk", "co.uk"),  # a bare public suffix is its own key
    ],
)
def test_registrable_domain(website: str, key: str) -> None:
    assert registrable_domain(website) == key


def test_site_key_of_local_and_missing_websites() -> None:
    assert site_key(task("a", "shop", start_url="index.html")) == "shop"
    assert site_key(task("b", None, start_url="https://www.example.com/x")) == "example.com"
    assert site_key(task("c", None, start_url=None)) == NO_WEBSITE


def _ids(path: Path) -> list[str]:
    return [t.id for t in iter_tasks(path)]


def _keys(path: Path) -> set[str]:
    return {site_key(t) for t in iter_tasks(path)}


def test_split_keeps_test_websites_out_of_training(tmp_path: Path) -> None:
    source = write(tmp_path / "tasks.jsonl", mixed_set())
    result = split_file(source, tmp_path / "out", seed=3, test_sites=5)
    train, test = tmp_path / "out" / "train.jsonl", tmp_path / "out" / "test.jsonl"
    test_tasks = list(iter_tasks(test))
    assert result.test == len(test_tasks) == 5
    test_keys = [site_key(t) for t in test_tasks]
    assert len(set(test_keys)) == 5  # one task per test website
    assert not _keys(train) & set(result.test_websites)
    assert set(test_keys) <= set(result.test_websites)
    assert result.train + result.test + result.removed == len(mixed_set()) == 36
    assert len(_ids(train)) == result.train
    assert NO_WEBSITE in _keys(train)  # tasks without a website always train
    assert result.websites == 15  # 12 sites, elsewhere.org, shop, (none)
    assert result.merged == 2 and result.orphans == 0  # site3.co.uk + elsewhere.org
    assert sum(result.frequency) == result.train


def test_parents_and_subtasks_never_straddle(tmp_path: Path) -> None:
    source = write(tmp_path / "tasks.jsonl", mixed_set())
    family = {"s3.t0", "s3.t0.sub1", "s3.t0.sub2"}
    sides = set()
    for seed in range(12):
        result = split_file(source, tmp_path / f"o{seed}", seed=seed, test_sites=6)
        train = set(_ids(tmp_path / f"o{seed}" / "train.jsonl"))
        test = set(_ids(tmp_path / f"o{seed}" / "test.jsonl"))
        assert not (family & train and family & test)
        if family & test:
            assert "elsewhere.org" in result.test_websites and "site3.co.uk" in result.test_websites
            assert test & family == {"s3.t0"}  # an original is preferred as the test task
        sides.add(bool(family & train))
    assert sides == {True, False}  # the family went to each side with some seed


def test_split_is_deterministic_by_seed(tmp_path: Path) -> None:
    source = write(tmp_path / "tasks.jsonl", mixed_set())
    runs = {}
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        split_file(source, tmp_path / name, seed=seed, test_sites=4)
        runs[name] = (tmp_path / name / "test.jsonl").read_bytes()
    assert runs["a"] == runs["b"]
    assert runs["a"] != runs["c"]
    # lines are copied unchanged
    lines = set(source.read_text().splitlines())
    assert set(runs["a"].decode().splitlines()) <= lines


def test_test_ratio_and_bad_counts(tmp_path: Path) -> None:
    source = write(tmp_path / "tasks.jsonl", mixed_set())
    assert split_file(source, tmp_path / "r", test_ratio=0.25).test == 3  # 13 groups x 0.25
    assert split_file(source, tmp_path / "d").test == 1  # 1% of 13, at least one
    with pytest.raises(ConfigError, match="fewer than that"):
        split_file(source, tmp_path / "x", test_sites=13)
    with pytest.raises(ConfigError, match="between 0 and 1"):
        split_file(source, tmp_path / "x", test_ratio=1.5)


def test_bad_files_name_the_line(tmp_path: Path) -> None:
    tasks = mixed_set()
    path = write(tmp_path / "dup.jsonl", [*tasks[:3], tasks[1]])
    with pytest.raises(
        TaskFileError, match=r"dup.jsonl:4: id: 's1.t0' is already the id of line 2"
    ):
        split_file(path, tmp_path / "o", test_sites=1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(tasks[0].model_dump_json() + "\n" + '{"id": "x"}\n')
    with pytest.raises(TaskFileError, match=r"bad.jsonl:2: instruction"):
        split_file(bad, tmp_path / "o", test_sites=1)


def test_split_command(tmp_path: Path) -> None:
    source = write(tmp_path / "tasks.jsonl", mixed_set())
    out = tmp_path / "out"
    args = ["tasks", "split", str(source), "--out", str(out), "--seed", "5", "--test-sites", "4"]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = last_json(result.output)
    assert data["test"] == 4 and data["out"] == str(out)
    assert data["train"] + data["test"] + data["removed"] == 36
    assert data["websites"] == 15
    assert "Train tasks per website" in result.output
    svg = (out / "website_frequency.svg").read_text()
    assert svg.startswith("<svg") and "tasks (log scale)" in svg
    assert (out / "split.json").exists()
    bad = CliRunner().invoke(app, [*args[:-2], "--test-sites", "99"])
    assert bad.exit_code == 2 and "fewer than that" in bad.output
    both = CliRunner().invoke(app, [*args, "--test-ratio", "0.5"])
    assert both.exit_code == 2
