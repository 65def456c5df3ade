"""Online-Mind2Web (Xue et al. 2025): 300 tasks on 136 live websites, a JSON list::

    {"task_id": "ade4c09ad3fdb1607209750924cd232f", "confirmed_task": "Compare ...",
     "website": "https://www.flightaware.com/", "reference_length": 4, "level": "easy"}

Both published versions (2025-06 and the 2026-03 refresh) have these fields; 254 ids are shared,
some with a changed task, so import them into separate files. ``level`` (easy / medium / hard,
from the human step count ``reference_length``) becomes ``Task.level``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webdojo.tasks.schema import LEVELS
from webdojo.tasks.sources.base import (
    INVALID_VALUE,
    Converted,
    Format,
    Opened,
    RawRecord,
    RecordError,
    optional,
    require,
    rest,
)


def convert(record: RawRecord) -> Converted:
    data = record.data or {}
    converted = website_task(data, "task_id", "confirmed_task", "website", "level")
    optional(data, "reference_length", int)
    return converted


def website_task(
    data: dict[str, Any], id_key: str, task_key: str, website_key: str, level_key: str
) -> Converted:
    """A task that starts on its website's home page with a level label, from the source's own
    field names (Online-Mind2Web, DeepShop); its other fields go to ``meta``."""
    task_id = require(data, id_key, str)
    website = require(data, website_key, str)
    fields: dict[str, Any] = {
        "instruction": require(data, task_key, str),
        "website": website,
        "start_url": website,
        "level": level_of(data, level_key),
        "meta": rest(data, frozenset({task_key, website_key, level_key})),
    }
    return Converted(task_id, fields)


def level_of(data: dict[str, Any], name: str) -> str | None:
    """An easy / medium / hard label (any case), or None when absent."""
    level = optional(data, name, str)
    if level is None:
        return None
    if level.strip().lower() not in LEVELS:
        raise RecordError(INVALID_VALUE, f"expected easy, medium or hard, got {level!r}", name)
    return level.strip().lower()


def _open(path: Path) -> Opened:
    return Opened(convert)


FORMAT = Format(
    name="online_mind2web",
    description="Online-Mind2Web JSON list (task_id, confirmed_task, website, level)",
    keys=frozenset({"task_id", "confirmed_task", "website"}),
    kinds=("json", "jsonl"),
    open=_open,
    field_names={"instruction": "confirmed_task", "start_url": "website"},
)
