"""Question-answering sets (NQ, HotpotQA, Bamboogle, ...) in the two formats they circulate in.

FlashRAG JSONL (``RUC-NLPIR/FlashRAG_datasets``)::

    {"id": "test_0", "question": "who got the first nobel prize in physics",
     "golden_answers": ["Wilhelm Conrad Röntgen"]}

verl parquet (Search-R1 and the verl examples), one row per question::

    {"data_source": "nq", "prompt": [{"role": "user", "content": "... question ..."}],
     "ability": "fact-reasoning", "reward_model": {"style": "rule", "ground_truth": {"target": [...]}},
     "extra_info": {"split": "test", "index": 0, "question": "...", "answer": "..."}}

Every answer is a golden reference answer. No website: an offline Wikipedia environment will
serve them. A verl row's id is ``data_source/split/index``; its question is
``extra_info.question``, else the last user message of the prompt (which may wrap the question
in a template; the prompt itself stays in ``meta``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webdojo.tasks.sources.base import (
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
    scalar_text,
)


def convert_flashrag(record: RawRecord) -> Converted:
    data = record.data or {}
    task_id = scalar_text(require(data, "id", object), "id")
    answers = require(data, "golden_answers", list)
    if not answers:
        raise RecordError(MISSING_FIELD, "is an empty list", "golden_answers")
    fields: dict[str, Any] = {
        "instruction": require(data, "question", str),
        "reference_answers": golden(answers, "golden_answers"),
        "meta": rest(data, {"question", "golden_answers"}),
    }
    return Converted(task_id, fields)


def golden(answers: list[Any], name: str) -> list[dict[str, str]]:
    texts = [scalar_text(a, f"{name}[{i}]") for i, a in enumerate(answers)]
    return [{"type": "golden", "answer": t} for t in texts]


def convert_verl(record: RawRecord) -> Converted:
    data = record.data or {}
    source = require(data, "data_source", str)
    extra = data.get("extra_info") or {}
    extra = check_type(extra, "extra_info", dict)
    reward = check_type(require(data, "reward_model", dict), "reward_model", dict)
    if reward.get("ground_truth") is None:
        raise RecordError(MISSING_FIELD, "required field is missing", "reward_model.ground_truth")
    answers = ground_truth(reward["ground_truth"], "reward_model.ground_truth")
    index = extra.get("index", record.position)
    parts = [source, extra.get("split"), scalar_text(index, "extra_info.index")]
    fields: dict[str, Any] = {
        "instruction": question_of(data, extra),
        "reference_answers": [{"type": "golden", "answer": a} for a in answers],
        "meta": rest(data, set()),
    }
    return Converted("/".join(str(p) for p in parts if p not in (None, "")), fields)


def ground_truth(value: Any, name: str) -> list[str]:
    """verl's ground truth: text, a list of texts, or ``{"target": ...}`` (Search-R1)."""
    if isinstance(value, dict):
        for key in ("target", "answer", "ground_truth"):
            if key in value:
                return ground_truth(value[key], f"{name}.{key}")
        raise RecordError(WRONG_TYPE, "an object without 'target'", name)
    if isinstance(value, list):
        if not value:
            raise RecordError(MISSING_FIELD, "is an empty list", name)
        return [scalar_text(v, f"{name}[{i}]") for i, v in enumerate(value)]
    return [scalar_text(value, name)]


def question_of(data: dict[str, Any], extra: dict[str, Any]) -> str:
    question = extra.get("question")
    if isinstance(question, str) and question.strip():
        return question
    prompt = require(data, "prompt", list)
    users = [m for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
    if not users or not isinstance(users[-1].get("content"), str):
        raise RecordError(MISSING_FIELD, "no user message with text content", "prompt")
    return str(users[-1]["content"])


def _open_flashrag(path: Path) -> Opened:
    return Opened(convert_flashrag)


def _open_verl(path: Path) -> Opened:
    return Opened(convert_verl)


FLASHRAG = Format(
    name="flashrag",
    description="FlashRAG QA JSONL (id, question, golden_answers)",
    keys=frozenset({"id", "question", "golden_answers"}),
    kinds=("jsonl", "json", "parquet"),
    open=_open_flashrag,
    field_names={"instruction": "question", "reference_answers": "golden_answers"},
)

VERL_QA = Format(
    name="verl_qa",
    description="verl QA parquet (data_source, prompt, reward_model.ground_truth, extra_info)",
    keys=frozenset({"data_source", "prompt", "reward_model"}),
    kinds=("parquet", "jsonl"),
    open=_open_verl,
    field_names={"instruction": "extra_info.question", "reference_answers": "reward_model"},
)
