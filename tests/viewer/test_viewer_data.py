"""The viewer's data layer: reading whole, half-written, old and missing run directories."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from viewer_runs import latest_episodes, read_jsonl

from webdojo.store.records import parse_step
from webdojo.store.summary import summarize
from webdojo.viewer.compare import compare_runs
from webdojo.viewer.runs import load_run
from webdojo.viewer.views import episode_detail, episode_rows, overview, status_of

pytestmark = pytest.mark.browser  # the run fixtures drive Chromium
ALL_RUNS = pytest.mark.parametrize("run_name", ["scripted_run", "random_run", "edge_run"])


def copy_run(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


# --- a whole run --------------------------------------------------------------------------


@ALL_RUNS
def test_overview_numbers_are_the_store_summary(
    run_name: str, request: pytest.FixtureRequest
) -> None:
    root = request.getfixturevalue(run_name)
    data = overview(load_run(root))
    summary = summarize(root).to_json()
    totals = data["totals"]
    assert totals["success_rate"] == summary["success_rate"]
    assert totals["mean_steps"] == summary["mean_steps"]
    assert totals["repetition_share"] == summary["repetition_share"]
    assert totals["fault_codes"] == summary["faults"]
    assert {r["name"]: r["success_rate"] for r in data["by_site"]} == {
        k: v["success_rate"] for k, v in summary["by_site"].items()
    }
    assert {r["name"]: r["episodes"] for r in data["by_difficulty"]} == {
        k: v["episodes"] for k, v in summary["by_difficulty"].items()
    }


@ALL_RUNS
def test_every_episode_key_is_listed_once(run_name: str, request: pytest.FixtureRequest) -> None:
    root = request.getfixturevalue(run_name)
    run = load_run(root)
    rows = episode_rows(run)
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys))
    step_keys = {s["key"] for s in read_jsonl(root / "steps.jsonl")}
    assert set(keys) == set(latest_episodes(root)) | step_keys
    for row in rows:
        record = latest_episodes(root).get(row["key"])
        if record is None:
            assert row["status"] == "unfinished"
        else:
            assert row["steps"] == record["steps"]
            assert row["wall_s"] == record["wall_s"]


@ALL_RUNS
def test_episode_detail_follows_the_latest_attempt(
    run_name: str, request: pytest.FixtureRequest
) -> None:
    root = request.getfixturevalue(run_name)
    run = load_run(root)
    for key, record in latest_episodes(root).items():
        detail = episode_detail(run, key)
        assert detail is not None
        steps = [s for s in read_jsonl(root / "steps.jsonl") if s["episode"] == record["episode"]]
        assert [s["step"] for s in detail["steps"]] == [s["step"] for s in steps]
        assert detail["repeats"] == sum(parse_step(s).repeated for s in steps)
    assert episode_detail(run, "no-such-task#0") is None


def test_task_instructions_come_from_the_task_set(scripted_run: Path) -> None:
    run = load_run(scripted_run)
    key = next(iter(latest_episodes(scripted_run)))
    detail = episode_detail(run, key)
    assert detail is not None and detail["task"] is not None
    assert detail["task"]["instruction"]
    assert detail["task"]["facts"]


def test_compare_lists_per_task_changes(scripted_run: Path, random_run: Path) -> None:
    result = compare_runs(load_run(scripted_run), load_run(random_run))
    a, b = latest_episodes(scripted_run), latest_episodes(random_run)
    for row in result["rows"]:
        won_a = (a.get(row["key"]) or {}).get("success") is True
        won_b = (b.get(row["key"]) or {}).get("success") is True
        if row["change"] == "gained":
            assert won_b and not won_a
        if row["change"] == "lost":
            assert won_a and not won_b
    assert sum(result["counts"].values()) == len(result["rows"])


# --- bad input ----------------------------------------------------------------------------


def test_missing_directory_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    run = load_run(tmp_path / "nope")
    assert "does not exist" in run.problems[0]
    data = overview(run)
    assert data["episodes"] == [] and data["totals"]["all_episodes"] == 0


def test_directory_that_is_not_a_run(tmp_path: Path) -> None:
    run = load_run(tmp_path)
    assert any("is it a run directory" in p for p in run.problems)


def test_interrupted_run_shows_what_it_has(interrupted_run: Path, random_run: Path) -> None:
    run = load_run(interrupted_run)
    assert any("steps.jsonl: 1 unreadable line" in p for p in run.problems)
    assert any("never finished" in p for p in run.problems)
    rows = {r["key"]: r for r in episode_rows(run)}
    assert set(rows) == set(latest_episodes(random_run))  # every episode is still listed
    lost = set(latest_episodes(random_run)) - set(latest_episodes(interrupted_run))
    assert len(lost) == 2 and all(rows[k]["status"] == "unfinished" for k in lost)
    key = sorted(lost)[0]
    detail = episode_detail(run, key)
    assert detail is not None and detail["record"] is None and detail["steps"]


def test_unreadable_record_file(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"format_version": 2}')
    (tmp_path / "steps.jsonl").mkdir()  # a directory where the file should be
    run = load_run(tmp_path)
    assert any("the records cannot be read" in p for p in run.problems)
    assert overview(run)["episodes"] == []


def test_truncated_episode_line(edge_run: Path, tmp_path: Path) -> None:
    root = copy_run(edge_run, tmp_path / "run")
    with open(root / "episodes.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"key": "x#0", "succ')
    run = load_run(root)
    assert any("episodes.jsonl: 1 unreadable line" in p for p in run.problems)
    assert len(episode_rows(run)) == len(episode_rows(load_run(edge_run)))


def test_superseded_attempts_are_hidden(edge_run: Path) -> None:
    # the edge run's first episode was first lost to an infra fault, then run again
    records = list(read_jsonl(edge_run / "episodes.jsonl"))
    first = records[0]["key"]
    assert [r["key"] for r in records].count(first) == 2
    row = next(r for r in episode_rows(load_run(edge_run)) if r["key"] == first)
    assert records[0]["fault"] == "infra"
    run = load_run(edge_run)
    assert run.superseded == 1  # and the cut-short attempt of another episode is hidden too
    assert any("earlier attempt(s)" in p for p in run.problems)
    assert row["status"] == status_of(run.episodes[first]) != "fault"


def test_run_with_steps_only(scripted_run: Path, tmp_path: Path) -> None:
    root = copy_run(scripted_run, tmp_path / "run")
    (root / "episodes.jsonl").unlink()
    run = load_run(root)
    assert any("no episodes.jsonl" in p for p in run.problems)
    rows = episode_rows(run)
    assert rows and all(r["status"] == "unfinished" for r in rows)
    detail = episode_detail(run, rows[0]["key"])
    assert detail is not None and detail["steps"] and detail["record"] is None


def test_missing_screenshots_and_config(scripted_run: Path, tmp_path: Path) -> None:
    root = copy_run(scripted_run, tmp_path / "run")
    shutil.rmtree(root / "screenshots")
    (root / "config.json").unlink()
    run = load_run(root)
    assert any("no config.json" in p for p in run.problems)
    assert any("screenshots" in p and "missing" in p for p in run.problems)
    key = next(iter(latest_episodes(root)))
    detail = episode_detail(run, key, file_url="f/")
    assert detail is not None
    assert all(s["screenshot_url"] is None for s in detail["steps"])
    assert any("instruction" in p for p in detail["problems"])


def test_invalid_records_are_reported(scripted_run: Path, tmp_path: Path) -> None:
    root = copy_run(scripted_run, tmp_path / "run")
    lines = list(read_jsonl(root / "episodes.jsonl"))
    broken = {k: v for k, v in lines[0].items() if k != "site"}
    junk = [1, 2]  # JSON, but not a record at all
    (root / "episodes.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in [broken, *lines[1:], junk])
    )
    run = load_run(root)
    assert any("2 invalid record(s)" in p and "site" in p for p in run.problems)
    assert len(run.episodes) == len(lines) - 1 and overview(run)["episodes"]
    key = lines[0]["key"]  # its steps are still shown, as an episode that never finished
    assert next(r for r in episode_rows(run) if r["key"] == key)["status"] == "unfinished"


def test_unloadable_task_set_is_reported(scripted_run: Path, tmp_path: Path) -> None:
    root = copy_run(scripted_run, tmp_path / "run")
    config = json.loads((root / "config.json").read_text())
    config["tasks"] = str(tmp_path / "gone.json")
    (root / "config.json").write_text(json.dumps(config))
    run = load_run(root)
    assert any("could not be loaded" in p for p in run.problems)
    assert overview(run)["episodes"]
