"""Mind2Web-2 (Gou et al. 2025): agentic-search tasks with no fixed website::

    {"task_id": "ad_patent", "task_description": "Find three U.S. patents ..."}

The agent chooses where to go, so ``website`` and ``start_url`` stay None. Other fields (some
tasks carry ``eval_notes``) go into ``meta``.
"""

from __future__ import annotations

from pathlib import Path

from webdojo.tasks.sources.base import Converted, Format, Opened, RawRecord, require, rest

_USED = frozenset({"task_description"})


def convert(record: RawRecord) -> Converted:
    data = record.data or {}
    task_id = require(data, "task_id", str)
    fields = {"instruction": require(data, "task_description", str), "meta": rest(data, _USED)}
    return Converted(task_id, fields)


def _open(path: Path) -> Opened:
    return Opened(convert)


FORMAT = Format(
    name="mind2web2",
    description="Mind2Web-2 JSONL (task_id, task_description)",
    keys=frozenset({"task_id", "task_description"}),
    kinds=("jsonl", "json"),
    open=_open,
    field_names={"instruction": "task_description"},
)
