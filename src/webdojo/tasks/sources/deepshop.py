"""DeepShop (Lyu et al. 2025): shopping tasks in WebVoyager's layout plus the query's parts
and a difficulty label::

    {"web_name": "Amazon", "id": "Amazon--14", "ques": "Find the new surge protector ...",
     "web": "https://www.amazon.com/...", "attribute": "...", "filter": "...", "sort": "None",
     "category": "Electronics", "difficulty": "easy"}

``difficulty`` (easy / medium / hard) becomes ``Task.level``; ``attribute``, ``filter``,
``sort`` and ``category`` stay in ``meta`` verbatim (``"None"`` included: it is the source's
way of saying the query has no such part).
"""

from __future__ import annotations

from pathlib import Path

from webdojo.tasks.sources.base import Converted, Format, Opened, RawRecord
from webdojo.tasks.sources.online_mind2web import website_task


def convert(record: RawRecord) -> Converted:
    return website_task(record.data or {}, "id", "ques", "web", "difficulty")


def _open(path: Path) -> Opened:
    return Opened(convert)


FORMAT = Format(
    name="deepshop",
    description="DeepShop JSONL (WebVoyager fields + attribute, filter, sort, category, difficulty)",
    keys=frozenset({"id", "ques", "web", "difficulty"}),
    kinds=("jsonl", "json"),
    open=_open,
    field_names={
        "instruction": "ques",
        "website": "web",
        "start_url": "web",
        "level": "difficulty",
    },
)
