"""Schema version 4: every episode record stores its repeat index; older lines get it from
their key, and older steps (which did not change) still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_builders import episode, step

from webdojo.store.records import SCHEMA_VERSION, parse_episode, parse_step, to_line
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import EPISODES, RunStore


def as_version(line: str, version: int) -> dict:
    """A current line as an older version wrote it: no ``repeat``, that ``schema_version``."""
    data = json.loads(line)
    data.pop("repeat", None)
    return {**data, "schema_version": version}


def test_version_4_is_current() -> None:
    assert SCHEMA_VERSION == 4


@pytest.mark.parametrize(("key", "repeat"), [("t#2", 2), ("t#0", 0), ("a#b#11", 11), ("t", 0)])
def test_a_v3_episode_gets_its_repeat_from_its_key(key: str, repeat: int) -> None:
    old = as_version(to_line(episode(key, True)), 3)
    assert "repeat" not in old
    record = parse_episode(json.dumps(old))
    assert (record.repeat, record.schema_version) == (repeat, SCHEMA_VERSION)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_steps_still_read(version: int) -> None:
    old = as_version(to_line(step("u", 0)), version)
    if version < 3:
        old.pop("observation")
    if version == 1:
        old.pop("schema_version")
    assert parse_step(old).schema_version == SCHEMA_VERSION


def test_a_new_record_stores_its_repeat(tmp_path: Path) -> None:
    record = episode("shop.cart#3", True)
    assert record.repeat == 3
    with RunStore(tmp_path) as store:
        store.append_episode(record)
    (line,) = (tmp_path / EPISODES).read_text().splitlines()
    assert json.loads(line)["repeat"] == 3 and json.loads(line)["schema_version"] == 4
    assert read_run(tmp_path, strict=True).episodes == {"shop.cart#3": record}


def test_a_stored_repeat_is_not_overwritten_by_the_key() -> None:
    """The field is the record's truth once stored; the key is only the fallback for v1-v3."""
    record = episode("t#1", True, repeat=5)
    assert parse_episode(to_line(record)).repeat == 5
