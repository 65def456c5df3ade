"""Runs of other versions in the viewer and the report: webdojo 0.1's untyped records (read
the same as today's), and records of a newer schema (a clear problem, never a crash)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from webdojo.errors import ErrorInfo
from webdojo.store.records import (
    EpisodeRecord,
    StepRecord,
    parse_episode,
    parse_step,
)
from webdojo.store.run_reader import read_run
from webdojo.viewer.app import create_app
from webdojo.viewer.compare import compare_runs
from webdojo.viewer.report import render_report
from webdojo.viewer.runs import load_run
from webdojo.viewer.server import ViewerServer
from webdojo.viewer.views import episode_detail, overview

pytestmark = pytest.mark.browser  # the run fixtures drive Chromium
ALL_RUNS = pytest.mark.parametrize("run_name", ["scripted_run", "random_run", "edge_run"])

# --- webdojo 0.1 --------------------------------------------------------------------------
# The line shapes below are those of webdojo 0.1 (format_version 1, no schema_version):
# ``EpisodeRun._record_step`` and ``episode_record`` in its rollout/episode.py, written by its
# ``RunStore._append`` as compact JSON. Free-form JSON (memory, error details) was stored as
# JSON objects, errors without their None fields, and episodes had no final state.


def _v1_error(error: ErrorInfo | None) -> dict[str, Any] | None:
    # 0.1: ``error.model_dump(mode="json", exclude_none=True)`` of an ``ErrorInfo``
    return None if error is None else error.model_dump(exclude_none=True)


def v1_step(step: StepRecord) -> dict[str, Any]:
    target = step.target
    return {
        "episode": step.episode,
        "key": step.key,
        "task_id": step.task_id,
        "step": step.step,
        "url": step.url,
        "title": step.title,
        "viewport": list(step.viewport),
        "text": step.text,
        "action": None if step.action is None else step.action.model_dump(mode="json"),
        "target": None
        if target is None
        else {
            "id": target.id,
            "role": target.role,
            "name": target.name,
            "box": target.box.model_dump(),
        },
        "memory": step.memory,
        "error": _v1_error(step.error),
        "dialogs": step.dialogs,
        "screenshot": step.screenshot,
        "next_screenshot": step.next_screenshot,
        "policy_s": round(step.policy_s, 4),
        "env_s": round(step.env_s, 4),
        "usage": step.usage,
    }


def v1_episode(record: EpisodeRecord) -> dict[str, Any]:
    verifier = record.verifier
    return {
        "key": record.key,
        "episode": record.episode,
        "task_id": record.task_id,
        "site": record.site,
        "difficulty": record.difficulty,
        "level": record.level,
        "policy": record.policy,
        "outcome": record.outcome.value,
        "steps": record.steps,
        "answer": record.answer,
        "final_url": record.final_url,
        "verifier": None
        if verifier is None
        else {"passed": verifier.passed, "reasons": verifier.reasons},
        "success": record.success,
        "reward": record.reward,
        "fault": record.fault,
        "error": _v1_error(record.error),
        "started_at": record.started_at,
        "wall_s": round(record.wall_s, 3),
    }


def v1_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def as_written_by_0_1(src: Path, dst: Path) -> Path:
    """A copy of the run ``src`` as webdojo 0.1 would have written it (every attempt kept, in
    file order, superseded and unfinished ones included)."""
    shutil.copytree(src, dst)
    config = json.loads((dst / "config.json").read_text(encoding="utf-8"))
    (dst / "config.json").write_text(json.dumps({**config, "format_version": 1}, indent=2))
    steps = (src / "steps.jsonl").read_text(encoding="utf-8").splitlines()
    episodes = (src / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    (dst / "steps.jsonl").write_text(
        "".join(v1_line(v1_step(parse_step(line))) for line in steps), encoding="utf-8"
    )
    (dst / "episodes.jsonl").write_text(
        "".join(v1_line(v1_episode(parse_episode(line))) for line in episodes), encoding="utf-8"
    )
    return dst


def _stat_cards(html: str) -> list[tuple[str, str]]:
    return re.findall(
        r'<div class="stat"><div class="v">([^<]*)</div><div class="k">([^<]*)<', html
    )


@ALL_RUNS
def test_a_run_written_by_webdojo_0_1_shows_the_same(
    run_name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    today = request.getfixturevalue(run_name)
    old = as_written_by_0_1(today, tmp_path / "v1")
    assert '"schema_version"' not in (old / "steps.jsonl").read_text()
    run, now = load_run(old), load_run(today)
    assert run.format_version == 1 and now.format_version == 2
    assert run.problems == now.problems  # nothing to report about the older version
    view, expected = overview(run), overview(now)
    for part in ("totals", "by_site", "by_difficulty", "episodes", "choices"):
        assert view[part] == expected[part], part
    for key in [*now.episodes, *now.unfinished]:
        assert episode_detail(run, key, "f/") == episode_detail(now, key, "f/")
    cards = _stat_cards(render_report(run, examples=2))
    assert cards and cards == _stat_cards(render_report(now, examples=2))
    changes = compare_runs(run, now)["counts"]
    assert changes["same"] == len(expected["episodes"]) and sum(changes.values()) == changes["same"]


V1_STEP = (
    '{"episode":"e1","key":"shop.cart#0","task_id":"shop.cart","step":0,'
    '"url":"http://127.0.0.1:8000/shop/","title":"Shop","viewport":[1280,720],'
    '"text":"click 5","action":{"type":"click","element":5,"x":null,"y":null,"space":"pixel"},'
    '"target":{"id":5,"role":"button","name":"Add","box":{"x":10.0,"y":20.0,"width":30.0,'
    '"height":40.0}},"memory":{"plan":["a","b"]},"error":{"code":"element_gone","fault":"env",'
    '"message":"gone","retryable":false,"details":{"element":5}},"dialogs":[],'
    '"screenshot":null,"next_screenshot":null,"policy_s":0.5,"env_s":0.25,"usage":{}}\n'
)
V1_EPISODE = (
    '{"key":"shop.cart#0","episode":"e1","task_id":"shop.cart","site":"shop","difficulty":2,'
    '"level":"easy","policy":"scripted","outcome":"step_cap","steps":1,"answer":null,'
    '"final_url":"http://127.0.0.1:8000/shop/","verifier":{"passed":false,"reasons":'
    '["fail: cart is empty"]},"success":false,"reward":0.0,"fault":null,"error":null,'
    '"started_at":1700000000.0,"wall_s":0.9}\n'
)


def test_v1_lines_keep_their_json_in_the_views(tmp_path: Path) -> None:
    """Free-form JSON of a 0.1 line (memory, error details) reaches the page as JSON, as it
    did in 0.1's viewer, not as the JSON text today's lines store."""
    (tmp_path / "config.json").write_text('{"format_version": 1, "policy": "scripted"}')
    (tmp_path / "steps.jsonl").write_text(V1_STEP)
    (tmp_path / "episodes.jsonl").write_text(V1_EPISODE)
    run = load_run(tmp_path)
    assert not any("invalid" in p or "schema" in p for p in run.problems), run.problems
    detail = episode_detail(run, "shop.cart#0")
    assert detail is not None and detail["status"] == "failure"
    (step,) = detail["steps"]
    assert step["memory"] == {"plan": ["a", "b"]}
    assert step["error"]["details"] == {"element": 5}
    assert step["action"] == {"type": "click", "element": 5, "x": None, "y": None,
                              "space": "pixel"}  # fmt: skip
    assert step["target"]["box"] == {"x": 10.0, "y": 20.0, "width": 30.0, "height": 40.0}
    assert step["action_text"] == "click(element=5)" and step["overlay"]["point"] == [25.0, 40.0]
    assert detail["record"]["verifier"] == {"passed": False, "reasons": ["fail: cart is empty"]}
    assert overview(run)["totals"]["statuses"]["failure"] == 1
    json.dumps(detail)  # what the HTTP API sends


# --- a newer schema -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["episodes.jsonl", "steps.jsonl"])
def test_a_newer_schema_is_a_problem_naming_the_version(
    name: str, scripted_run: Path, tmp_path: Path
) -> None:
    root = tmp_path / "run"
    shutil.copytree(scripted_run, root)
    first = json.loads((root / name).read_text().splitlines()[0])
    with open(root / name, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({**first, "schema_version": 7, "new_field": 1}) + "\n")
    run = load_run(root)
    assert any("schema_version 7" in p and "upgrade webdojo" in p for p in run.problems)
    data = overview(run)
    assert data["totals"]["all_episodes"] == 0 and data["episodes"] == []
    assert any("schema_version 7" in p for p in data["run"]["problems"])
    html = render_report(run)
    assert "schema_version 7" in html and "No episode with recorded steps" in html
    compared = compare_runs(load_run(scripted_run), run)
    assert compared["counts"]["only_a"] == len(read_run(scripted_run).episodes)
    with ViewerServer(create_app([root])) as server:
        response = httpx.get(server.url + "api/runs/a/overview", timeout=60)
        assert response.status_code == 200
        assert any("schema_version 7" in p for p in response.json()["run"]["problems"])
