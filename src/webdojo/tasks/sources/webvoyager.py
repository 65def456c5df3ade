"""WebVoyager (He et al. 2024): 643 tasks on 15 live websites, ``WebVoyager_data.jsonl``::

    {"web_name": "Allrecipes", "id": "Allrecipes--0", "ques": "Provide a recipe ...",
     "web": "https://www.allrecipes.com/"}

and its answers, ``reference_answer.json`` next to it, keyed by site name and the number after
``--`` in the id::

    {"Allrecipes": {"notice": "...", "answers": [{"id": 0, "type": "possible", "ans": "..."}]}}

``golden`` answers are the one right answer; ``possible`` ones were right when written (live
content changes). The site's notice, verbatim, goes into ``meta["answer_notice"]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webdojo.errors import TaskFileError
from webdojo.tasks.sources.base import (
    Converted,
    Format,
    Opened,
    RawRecord,
    optional,
    require,
    rest,
)

ANSWERS_FILE = "reference_answer.json"
_USED = frozenset({"ques", "web"})

Answers = dict[tuple[str, int], dict[str, Any]]  # (site, number) -> {"type", "ans", "notice"}


def read_answers(path: Path) -> Answers:
    """The reference answers file, flattened; a malformed file raises TaskFileError."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TaskFileError(f"{path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise TaskFileError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from exc
    if not isinstance(data, dict):
        raise TaskFileError(f"{path}: expected an object keyed by site name")
    answers: Answers = {}
    for site, entry in data.items():
        items = entry.get("answers") if isinstance(entry, dict) else None
        if not isinstance(items, list):
            raise TaskFileError(f"{path}: {site}.answers: expected a list")
        for i, item in enumerate(items):
            where = f"{path}: {site}.answers[{i}]"
            if not isinstance(item, dict) or not isinstance(item.get("id"), int):
                raise TaskFileError(f"{where}.id: expected an integer")
            if item.get("type") not in ("golden", "possible"):
                raise TaskFileError(f"{where}.type: expected 'golden' or 'possible'")
            if not isinstance(item.get("ans"), str):
                raise TaskFileError(f"{where}.ans: expected a string")
            notice = entry.get("notice")
            answers[(site, item["id"])] = {**item, "notice": notice}
    return answers


def open_webvoyager(path: Path) -> Opened:
    answers_path = path.parent / ANSWERS_FILE
    answers = read_answers(answers_path) if answers_path.is_file() else None
    unanswered: list[str] = []

    def convert_one(record: RawRecord) -> Converted:
        converted = convert(record, answers)
        if answers is not None and "reference_answers" not in converted.fields:
            unanswered.append(converted.source_id)
        return converted

    def notes() -> list[str]:
        if answers is None:
            return [f"no {ANSWERS_FILE} next to {path.name}: the tasks have no reference answers"]
        if unanswered:
            return [
                f"{len(unanswered)} task(s) have no answer in {ANSWERS_FILE}: "
                + ", ".join(unanswered[:5])
                + (" ..." if len(unanswered) > 5 else "")
            ]
        return []

    return Opened(convert_one, notes)


def convert(record: RawRecord, answers: Answers | None) -> Converted:
    data = record.data or {}
    task_id = require(data, "id", str)
    fields: dict[str, Any] = {
        "instruction": require(data, "ques", str),
        "website": require(data, "web", str),
        "meta": rest(data, _USED),
    }
    fields["start_url"] = fields["website"]
    optional(data, "web_name", str)
    site, _, number = task_id.rpartition("--")
    answer = answers.get((site, int(number))) if answers and number.isdigit() else None
    if answer is not None:
        fields["reference_answers"] = [{"type": answer["type"], "answer": answer["ans"]}]
        if answer["notice"]:
            fields["meta"]["answer_notice"] = answer["notice"]
    return Converted(task_id, fields)


FORMAT = Format(
    name="webvoyager",
    description="WebVoyager_data.jsonl (+ reference_answer.json next to it)",
    keys=frozenset({"web_name", "id", "ques", "web"}),
    excludes=frozenset({"attribute", "filter", "sort", "category", "difficulty"}),
    kinds=("jsonl", "json"),
    open=open_webvoyager,
    field_names={"instruction": "ques", "website": "web", "start_url": "web"},
)
