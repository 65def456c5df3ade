"""Mind2Web-Live (WebCanvas, Pan et al. 2024): tasks with a rule-based evaluation, a JSON list::

    {"index": 0, "task": "Find the store location ...", "reference_task_length": 8,
     "evaluation": [
       {"match_function_name": "url_included_match",
        "content": {"key": "", "reference_answer": "gamestop.", "url": "https://www.gamestop.com/"}},
       {"match_function_name": "element_path_exactly_match", "method": "selector",
        "content": {"reference_answer": "#scoreRange", "netloc": "ign", "url": "https://www.ign.com/"}}]}

Each evaluation step becomes an ``EvalRule`` (match, reference, key, url, netloc, path, method)
that a judge can check later. The source names no website: it is the scheme and host of the
first URL rule's ``url`` (of any rule's, if no URL rule has one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webdojo.tasks.sources.base import (
    INVALID_VALUE,
    MISSING_FIELD,
    WRONG_TYPE,
    Converted,
    Format,
    Opened,
    RawRecord,
    RecordError,
    check_type,
    require,
    rest,
)

_USED = frozenset({"task", "evaluation"})
_CONTENT_KEYS = {"reference_answer", "key", "url", "netloc", "path"}


def convert(record: RawRecord) -> Converted:
    data = record.data or {}
    index = require(data, "index", int)
    steps = require(data, "evaluation", list)
    rules = [eval_rule(step, f"evaluation[{i}]") for i, step in enumerate(steps)]
    website = website_of(rules)
    fields: dict[str, Any] = {
        "instruction": require(data, "task", str),
        "website": website,
        "start_url": website,
        "eval_rules": rules,
        "meta": rest(data, _USED),
    }
    return Converted(str(index), fields)


def eval_rule(step: Any, name: str) -> dict[str, Any]:
    """One evaluation step as EvalRule fields; unknown keys are an error, not dropped."""
    step = check_type(step, name, dict)
    match = require(step, "match_function_name", str)
    content = check_type(step.get("content"), f"{name}.content", dict)
    unknown = sorted(set(content) - _CONTENT_KEYS)
    extra = sorted(set(step) - {"match_function_name", "content", "method"})
    if unknown or extra:
        names = [f"content.{k}" for k in unknown] + extra
        raise RecordError(INVALID_VALUE, f"unknown key(s) {', '.join(names)}", name)
    reference = content.get("reference_answer")
    if not isinstance(reference, str):
        raise RecordError(MISSING_FIELD, "needs a string", f"{name}.content.reference_answer")
    rule: dict[str, Any] = {"match": match, "reference": reference}
    for key in ("key", "url", "netloc", "path"):
        if content.get(key) is not None:
            rule[key] = _text(content[key], f"{name}.content.{key}")
    if step.get("method") is not None:
        rule["method"] = _text(step["method"], f"{name}.method")
    return rule


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise RecordError(WRONG_TYPE, f"expected a string, got {type(value).__name__}", name)
    return value


def website_of(rules: list[dict[str, Any]]) -> str | None:
    """``scheme://host/`` of the first URL rule's url, else of the first rule with a url."""
    urls = [r.get("url") for r in rules if r["match"].startswith("url_")]
    urls += [r.get("url") for r in rules]
    for url in urls:
        if url:
            parts = urlsplit(url)
            if parts.scheme and parts.netloc:
                return f"{parts.scheme}://{parts.netloc}/"
    return None


def _open(path: Path) -> Opened:
    return Opened(convert)


FORMAT = Format(
    name="mind2web_live",
    description="Mind2Web-Live JSON list (index, task, evaluation rules)",
    keys=frozenset({"index", "task", "evaluation"}),
    kinds=("json", "jsonl"),
    open=_open,
    field_names={"instruction": "task", "eval_rules": "evaluation"},
)
