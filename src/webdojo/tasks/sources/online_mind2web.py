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

_USED = frozenset({"confirmed_task", "website", "level"})


def convert(record: RawRecord) -> Converted:
    data = record.data or {}
    task_id = require(data, "task_id", str)
    website = require(data, "website", str)
    fields: dict[str, Any] = {
        "instruction": require(data, "confirmed_task", str),
        "website": website,
        "start_url": website,
        "level": level_of(data, "level"),
        "meta": rest(data, _USED),
    }
    optional(data, "reference_length", int)
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
