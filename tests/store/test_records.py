"""The typed record contract: round trips, old runs upgraded, newer runs refused by name, cut-off
attempts never counted, and a run directory that loads as a Hugging Face dataset as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_builders import STOP, episode, step

from webdojo.actions import Scroll, Type
from webdojo.errors import ErrorInfo, RecordSchemaError
from webdojo.observation import FinalState
from webdojo.store.records import SCHEMA_VERSION
from webdojo.store.run_reader import finished_keys, read_run
from webdojo.store.run_store import EPISODES, STEPS, RunStore
from webdojo.store.summary import summarize

# A step and an episode exactly as webdojo 0.1 wrote them (untyped, no schema_version).
V1_STEP = {
    "episode": "old1", "key": "shop.cart#0", "task_id": "shop.cart", "step": 0,
    "url": "http://127.0.0.1:1/shop/", "title": "Shop", "viewport": [1280, 720],
    "text": "click(element=3)",
    "action": {"type": "click", "element": 3, "x": None, "y": None, "space": "pixel"},
    "target": {"id": 3, "role": "button", "name": "Add",
               "box": {"x": 1.0, "y": 2.0, "width": 3.0, "height": 4.0}},
    "memory": {"progress": "added"}, "error": {"code": "parse_error", "fault": "agent",
    "message": "bad", "details": {"raw": "??"}}, "dialogs": [],
    "screenshot": "screenshots/aa/a.jpg", "next_screenshot": "screenshots/bb/b.jpg",
    "policy_s": 0.5, "env_s": 0.1, "usage": {"prompt_tokens": 10},
}  # fmt: skip
V1_EPISODE = {
    "key": "shop.cart#0", "episode": "old1", "task_id": "shop.cart", "site": "shop",
    "difficulty": 2, "level": "easy", "policy": "scripted", "outcome": "stopped", "steps": 1,
    "answer": None, "final_url": "http://127.0.0.1:1/shop/",
    "verifier": {"passed": True, "reasons": ["ok: cart"]}, "success": True, "reward": 1.0,
    "fault": None, "error": None, "started_at": 1700000000.0, "wall_s": 2.5,
}  # fmt: skip


def write_lines(path: Path, *records: dict) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")


def test_records_round_trip_through_the_store(tmp_path: Path) -> None:
    steps = [
        step("u1", 0, memory={"plan": ["a", 1]}, usage={"prompt_tokens": 7}),
        step("u1", 1, action=Type(element=4, text="ß ✓"), memory="a conclusion"),
        step("u1", 2, action=None, text="garbage", error=ErrorInfo(
            code="parse_error", fault="agent", message="no action", details={"raw": [1, {}]})),
        step("u1", 3, action=STOP),
    ]  # fmt: skip
    final = FinalState(url="u", title="t", storage={"cart": [{"id": 1}]}, text="x", answer="a")
    record = episode("a#0", True, episode="u1", steps=4, final_state=final)
    with RunStore(tmp_path) as store:
        for s in steps:
            store.append_step(s)
        store.append_episode(record)
    run = read_run(tmp_path, strict=True)
    assert run.episodes == {"a#0": record}
    assert run.steps_of("a#0") == steps
    assert run.steps_of("a#0")[2].error.details == {"raw": [1, {}]}  # type: ignore[union-attr]
    assert run.episodes["a#0"].final_state.storage == {"cart": [{"id": 1}]}  # type: ignore[union-attr]
    line = json.loads((tmp_path / STEPS).read_text().splitlines()[0])
    assert line["schema_version"] == SCHEMA_VERSION
    assert line["memory"] == '{"plan": ["a", 1]}'  # free-form JSON is JSON text on disk


def test_a_v1_run_is_upgraded_and_can_be_resumed(tmp_path: Path) -> None:
    write_lines(tmp_path / STEPS, V1_STEP)
    write_lines(tmp_path / EPISODES, V1_EPISODE)
    run = read_run(tmp_path, strict=True)
    old = run.episodes["shop.cart#0"]
    assert old.schema_version == SCHEMA_VERSION and old.final_state is None
    assert old.success is True and old.verifier is not None and old.verifier.reasons == ["ok: cart"]
    (first,) = run.steps_of("shop.cart#0")
    assert first.memory == {"progress": "added"} and first.error is not None
    assert first.error.details == {"raw": "??"} and first.target is not None
    assert first.action is not None and first.action.type == "click"
    # a resume appends typed records beside the old ones; both read back
    with RunStore(tmp_path) as store:
        store.append_step(step("new1", 0, key="b#0"))
        store.append_episode(episode("b#0", False, episode="new1", steps=1))
    assert set(read_run(tmp_path, strict=True).episodes) == {"shop.cart#0", "b#0"}
    assert summarize(tmp_path).to_json()["success_rate"] == 0.5


def test_a_newer_schema_is_refused_by_name(tmp_path: Path) -> None:
    write_lines(tmp_path / EPISODES, {**V1_EPISODE, "schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(RecordSchemaError, match=f"schema_version {SCHEMA_VERSION + 1}") as info:
        read_run(tmp_path)
    assert info.value.code == "bad_record"


def test_invalid_and_truncated_lines(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.append_episode(episode("a#0", True))
    write_lines(tmp_path / EPISODES, {**V1_EPISODE, "outcome": "exploded"})
    write_lines(tmp_path / EPISODES, {**V1_EPISODE, "key": "b#0", "schema_version": "2"})
    with open(tmp_path / EPISODES, "a") as handle:
        handle.write('{"key": "c#0", "succ')  # the process died mid-write
    run = read_run(tmp_path)
    assert list(run.episodes) == ["a#0"] and run.skipped == {EPISODES: 1}
    assert len(run.invalid) == 2 and "line 2" in run.invalid[0] and "outcome" in run.invalid[0]
    assert "line 3" in run.invalid[1] and "invalid schema_version '2'" in run.invalid[1]
    with pytest.raises(RecordSchemaError, match="line 2"):
        read_run(tmp_path, strict=True)


def test_steps_of_cut_off_attempts_are_never_exposed_as_finished(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.append_step(step("cut", 0, key="a#0"))  # interrupted: no episode record
        store.append_step(step("cut", 1, key="a#0"))
        store.append_step(step("done", 0, key="a#0"))  # the resumed attempt
        store.append_episode(episode("a#0", True, episode="done", steps=1))
        store.append_step(step("open", 0, key="b#0"))  # still running
    run = read_run(tmp_path)
    assert [s.episode for s in run.finished_steps()] == ["done"]
    assert [s.episode for s in run.steps_of("a#0")] == ["done"]
    assert run.steps_of("b#0") == [] and [s.step for s in run.unfinished_steps("b#0")] == [0]
    assert run.superseded == 1 and "cut" not in run.attempts


def test_faulted_episodes_run_again_on_resume(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.append_episode(episode("a#0", True))
        store.append_episode(episode("b#0", None, fault="infra"))
        store.append_episode(episode("c#0", None, fault="env"))
    assert finished_keys(tmp_path) == {"a#0"}


@pytest.mark.slow
def test_a_run_directory_loads_as_a_hugging_face_dataset(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    with RunStore(tmp_path / "run") as store:
        store.append_step(step("u1", 0, memory={"k": [1, 2]}))
        store.append_step(step("u1", 1, action=Scroll(direction="down"), memory="text memory"))
        store.append_step(
            step(
                "u1",
                2,
                action=None,
                error=ErrorInfo(
                    code="parse_error", fault="agent", message="m", details={"raw": "x"}
                ),
            )
        )
        store.append_step(step("u1", 3, action=STOP))
        store.append_episode(episode("a#0", True, episode="u1", steps=4))
        store.append_episode(episode("b#0", None, fault="infra"))
    loaded = {
        name: datasets.load_dataset(
            "json",
            data_files=str(tmp_path / "run" / f"{name}.jsonl"),
            split="train",
            cache_dir=str(tmp_path / "hf-cache"),
        )
        for name in ("steps", "episodes")
    }  # fmt: skip
    assert loaded["steps"].num_rows == 4 and loaded["episodes"].num_rows == 2
    assert loaded["episodes"]["reward"] == [1.0, None]
    assert json.loads(loaded["steps"][0]["memory"]) == {"k": [1, 2]}
    assert loaded["steps"]["step"] == [0, 1, 2, 3]
    assert loaded["steps"][2]["action"] is None and loaded["steps"][1]["memory"] == '"text memory"'
