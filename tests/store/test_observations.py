"""Schema v3 steps: the observation each step acted on is stored and can be rebuilt exactly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from record_builders import step

from webdojo.errors import RecordSchemaError
from webdojo.observation import Box, Element, Observation, Tab
from webdojo.store.observations import load_observation
from webdojo.store.records import SCHEMA_VERSION, parse_step
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import RunStore


def observation(**changes: object) -> Observation:
    fields: dict[str, object] = {
        "url": "http://127.0.0.1/shop/", "title": "Shop", "viewport_width": 1280,
        "viewport_height": 720, "screenshot": b"\xff\xd8 jpeg", "axtree": "[3] button 'Buy'",
        "tabs": [Tab(index=0, url="http://127.0.0.1/shop/", title="Shop", active=True)],
        "elements": [Element(id=3, role="button", name="Buy", tag="button",
                             box=Box(x=1, y=2, width=3, height=4), in_viewport=True)],
        "timings_ms": {"screenshot": 12.5},
    }  # fmt: skip
    return Observation.model_validate({**fields, **changes})


def test_an_observation_is_stored_once_and_rebuilt(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        obs = observation()
        rel = store.add_observation(obs)
        again = store.add_observation(observation(timings_ms={"screenshot": 99.0}))
        shot = store.add_screenshot(obs.screenshot or b"", "jpg")
    assert rel == again  # capture timings do not defeat the deduplication
    record = step("u", 0, screenshot=shot, observation=rel)
    rebuilt = load_observation(tmp_path, record)
    assert rebuilt == obs.model_copy(update={"timings_ms": {}})
    (tmp_path / rel).unlink()
    with pytest.raises(RecordSchemaError, match="cannot be read"):
        load_observation(tmp_path, record)


def test_steps_of_version_2_read_as_version_3_without_an_observation() -> None:
    line = json.loads(step("u", 0).model_dump_json()) | {"schema_version": 2}
    line.pop("observation")
    old = parse_step(line)
    assert old.schema_version == SCHEMA_VERSION == 4 and old.observation is None
    assert load_observation(Path("."), old) is None


@pytest.mark.browser
def test_a_real_run_stores_what_each_step_saw(tmp_path: Path) -> None:
    from webdojo.policies import make_policy
    from webdojo.rollout.run import RunConfig, run_job
    from webdojo.tasks.loader import load_spec

    config = RunConfig(tasks="builtin:login", policy="scripted", limit=1, seed=0, out=str(tmp_path))
    asyncio.run(run_job(config, load_spec("builtin:login"), make_policy("scripted", seed=0)))
    steps = list(read_run(tmp_path).finished_steps())
    assert steps and all(s.observation is not None for s in steps)
    for record in steps:
        seen = load_observation(tmp_path, record)
        assert seen is not None and seen.url == record.url and seen.title == record.title
        assert seen.screenshot == (tmp_path / str(record.screenshot)).read_bytes()
        assert seen.elements  # the scripted policy observes the element list
