"""The run store is append-only, content-addressed, tolerant of interrupted writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_builders import STOP, episode, step

from webdojo.errors import ConfigError
from webdojo.store.run_config import RunConfigRecord
from webdojo.store.run_reader import finished_keys, read_episodes, read_run
from webdojo.store.run_store import EPISODES, RunStore
from webdojo.store.summary import summarize


def test_screenshots_are_content_addressed(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        a = store.add_screenshot(b"same bytes", "jpg")
        b = store.add_screenshot(b"same bytes", "jpg")
        c = store.add_screenshot(b"other", "png")
    assert a == b != c
    assert (tmp_path / a).read_bytes() == b"same bytes"
    assert a.startswith("screenshots/") and c.endswith(".png")


def test_truncated_last_line_is_skipped_and_resume_appends(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.append_episode(episode("a#0", True))
        store.append_episode(episode("b#0", None, fault="infra"))
    with open(tmp_path / EPISODES, "a") as handle:
        handle.write('{"key": "c#0", "succ')  # the process died mid-write
    assert list(read_episodes(tmp_path)) == ["a#0", "b#0"]
    # faulted episodes were never scored: a resume runs them again
    assert finished_keys(tmp_path) == {"a#0"}
    with RunStore(tmp_path) as store:  # the resume cuts the torn line off: whole lines only
        store.append_episode(episode("b#0", False))
    assert "c#0" not in (tmp_path / EPISODES).read_text()
    assert not read_run(tmp_path, strict=True).skipped
    assert finished_keys(tmp_path) == {"a#0", "b#0"}
    assert read_episodes(tmp_path)["b#0"].success is False


def test_config_mismatch_on_resume_is_refused(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.write_config(
            RunConfigRecord.model_validate({"tasks": "builtin", "policy": "scripted", "seed": 0})
        )
        store.write_config(
            RunConfigRecord.model_validate(
                {"tasks": "builtin", "policy": "scripted", "seed": 0, "limit": 3}
            )
        )
        with pytest.raises(ConfigError, match="policy"):
            store.write_config(
                RunConfigRecord.model_validate({"tasks": "builtin", "policy": "random", "seed": 0})
            )
    assert json.loads((tmp_path / "config.json").read_text())["format_version"] == 2


def test_summary_counts_faults_apart_and_computes_repetition(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        for i, (shot, nxt) in enumerate([("s1", "s1"), ("s1", "s2")]):
            store.append_step(step("a#0-e", i, screenshot=shot, next_screenshot=nxt))
        store.append_step(step("a#0-e", 2, screenshot="s2", next_screenshot="s2", action=STOP))
        # an attempt cut off before its episode record: never counted
        store.append_step(step("stale", 0, key="d#0", screenshot="x", next_screenshot="x"))
        store.append_episode(episode("a#0", True, steps=3))
        store.append_episode(episode("b#0", False, site="wiki", difficulty=5, steps=7))
        store.append_episode(episode("c#0", None, fault="infra", site="wiki", difficulty=5))
    summary = summarize(tmp_path)
    data = summary.to_json()
    assert data["episodes"] == 3
    assert data["success_rate"] == 0.5  # the infra fault is not a failure
    assert data["by_site"]["wiki"] == {
        "episodes": 1,
        "successes": 0,
        "success_rate": 0.0,
        "mean_steps": 7,
        "faults": 1,
    }
    assert data["by_difficulty"]["1"]["success_rate"] == 1.0
    assert data["faults"] == {"browser_closed": 1}
    # steps: (s1->s1) repeated, (s1->s2) not; the stop step and the stale attempt are left out
    assert (summary.repeated_steps, summary.total_steps) == (1, 2)
    assert data["repetition_share"] == 0.5
