"""WebGym's task set (Hugging Face ``microsoft/webgym_tasks``, ~292k train + 1.2k test), one
task per JSONL line or parquet row::

    {"task_id": "...", "task_name": "Find ...", "website": "https://www.kayak.com/",
     "domain": "Travel & Transportation", "subdomain": "Travel & Accommodation",
     "difficulty": 4,
     "evaluator_reference": [{"id": 1, "description": "...", "facts": ["...", "..."]}, ...],
     "reference_answer": "...", "benchmark_name": "mind2web-live"}

``evaluator_reference`` (a list of fact groups, or that list as JSON text, as Arrow stores it)
becomes the rubric; ``difficulty`` must equal its number of facts. The answer is
``reference_answer`` or, in the dataset card's spelling, ``definite_answer`` (a golden answer
when not blank). Without ``task_id`` the row number is the id. A website without a scheme
starts at ``https://``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webdojo.tasks.sources.base import (
    INVALID_JSON,
    INVALID_VALUE,
    WRONG_TYPE,
    Converted,
    Format,
    Opened,
    RawRecord,
    RecordError,
    optional,
    require,
    rest,
    scalar_text,
    website_start,
)
from webdojo.tasks.taxonomy import canonical_domain, canonical_subdomain

_ANSWER_KEYS = ("reference_answer", "definite_answer")
_USED = frozenset(
    {
        "task_name",
        "website",
        "domain",
        "subdomain",
        "difficulty",
        "evaluator_reference",
        *_ANSWER_KEYS,
    }
)


def convert(record: RawRecord) -> Converted:
    data = record.data or {}
    task_id = data.get("task_id")
    source_id = str(record.position) if task_id in (None, "") else scalar_text(task_id, "task_id")
    website = require(data, "website", str)
    fields: dict[str, Any] = {
        "instruction": require(data, "task_name", str),
        "website": website,
        "start_url": website_start(website),
        "domain": _label(data, "domain", canonical_domain),
        "subdomain": _label(data, "subdomain", lambda text: canonical_subdomain(text)[0]),
        "difficulty": difficulty_of(data.get("difficulty")),
        "meta": rest(data, _USED),
    }
    groups = fact_groups(data.get("evaluator_reference"))
    if groups:
        fields["rubric"] = {"fact_groups": groups}
    answers = [a for key in _ANSWER_KEYS if (a := _answer(data, key))]
    fields["reference_answers"] = [{"type": "golden", "answer": a} for a in dict.fromkeys(answers)]
    return Converted(source_id, fields)


def difficulty_of(value: Any) -> int | None:
    """An integer, or its text (``"4"``), or nothing."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise RecordError(WRONG_TYPE, f"expected an integer, got {value!r}", "difficulty")


def fact_groups(value: Any) -> list[Any]:
    """The fact groups, from a list or from JSON text of one; nothing when absent or empty."""
    name = "evaluator_reference"
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise RecordError(INVALID_JSON, f"is text but not JSON ({exc.msg})", name) from None
    if not isinstance(value, list):
        raise RecordError(WRONG_TYPE, "expected a list of fact groups", name)
    for i, group in enumerate(value):
        if not isinstance(group, dict) or "facts" not in group:
            raise RecordError(INVALID_VALUE, "expected {id, description, facts}", f"{name}[{i}]")
    return value


def _label(data: dict[str, Any], name: str, canonical: Callable[[str], str]) -> str | None:
    """A taxonomy label, checked here so that an unknown one is blamed on its field."""
    label = optional(data, name, str)
    if label is None:
        return None
    try:
        return canonical(label)
    except ValueError as exc:
        raise RecordError(INVALID_VALUE, str(exc), name) from None


def _answer(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    text = scalar_text(value, key)
    return text if text.strip() else None


def _open(path: Path) -> Opened:
    return Opened(convert)


FORMAT = Format(
    name="webgym",
    description="WebGym task set (Hugging Face JSONL or parquet: task_name, website, "
    "evaluator_reference, ...)",
    keys=frozenset({"task_name", "website"}),
    kinds=("jsonl", "parquet", "json"),
    open=_open,
    field_names={
        "instruction": "task_name",
        "start_url": "website",
        "rubric": "evaluator_reference",
        "reference_answers": "reference_answer",
    },
)
