"""InSTA (Trabucco et al. 2025, the task pool Weblica trains on): a CSV file::

    website,instruction,steps,criteria
    www.example.com,"Find the opening hours ...","['Go to the site'
     'Open the contact page']","['The hours are stated' 'The page is the official one']"

``steps`` and ``criteria`` hold numpy arrays as text (``str(array)``, see ``numpy_repr``),
parsed without evaluating them. The criteria are what a successful trajectory must establish,
so they become the rubric (one fact group, one fact per criterion); the steps are a plan, kept
as a list in ``meta["steps"]``. Rows have no id: the row number (from 0) is the id. Columns
beyond these four go into ``meta`` verbatim.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webdojo.tasks.sources.base import (
    INVALID_VALUE,
    WRONG_TYPE,
    Converted,
    Format,
    Opened,
    RawRecord,
    RecordError,
    require,
    rest,
    website_start,
)
from webdojo.tasks.sources.numpy_repr import parse_string_list

_USED = frozenset({"website", "instruction", "steps", "criteria"})


def convert(record: RawRecord) -> Converted:
    data = record.data or {}
    website = require(data, "website", str).strip()
    fields: dict[str, Any] = {
        "instruction": require(data, "instruction", str),
        "website": website,
        "start_url": website_start(website),
        "meta": rest(data, _USED),
    }
    steps = string_list(data, "steps")
    if steps:
        fields["meta"]["steps"] = steps
    criteria = string_list(data, "criteria")
    if criteria:
        group = {"id": 1, "description": "success criteria", "facts": criteria}
        fields["rubric"] = {"fact_groups": [group]}
    return Converted(str(record.position), fields)


def string_list(data: dict[str, Any], name: str) -> list[str]:
    """A column holding a numpy array of strings (blank or absent: none)."""
    text = data.get(name)
    if text is None or not str(text).strip():
        return []
    if isinstance(text, list):  # the same data read from parquet or JSON
        if not all(isinstance(item, str) for item in text):
            raise RecordError(WRONG_TYPE, "expected a list of strings", name)
        return text
    try:
        return parse_string_list(str(text))
    except ValueError as exc:
        raise RecordError(INVALID_VALUE, f"not a list of strings: {exc}", name) from None


def _open(path: Path) -> Opened:
    return Opened(convert)


FORMAT = Format(
    name="insta",
    description="InSTA CSV (website, instruction, steps, criteria as numpy-array text)",
    keys=frozenset({"website", "instruction"}),
    kinds=("csv", "parquet", "jsonl"),
    open=_open,
    field_names={"rubric": "criteria", "start_url": "website"},
)
