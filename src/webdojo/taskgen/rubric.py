"""Rubric generation (WebGym §3.2, prompt of appendix E.5): the model splits each task's
instruction into fact groups; the task's difficulty is the number of facts.

The reply must be one JSON object ``{"fact_groups": [{"id", "description", "facts"}],
"difficulty"}``, validated here (``RubricReply``); a reply that fails goes back to the model with
the error (``ask.py``). The model's stated ``difficulty`` is not trusted: the difficulty is always
recomputed from the facts (the facts are what a judge checks; a miscount is not worth another
call). A stated difficulty that disagrees is counted in the summary (``difficulty_mismatch``).

A task keeps its rubric unless ``force``. A source's own ``level`` or ``difficulty`` that the new
rubric contradicts moves to ``meta["webdojo"]`` (``source_level``, ``source_difficulty``): the
rubric decides the difficulty, and nothing is lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from webdojo.models import ModelClient
from webdojo.models.ask import ReplyRejected
from webdojo.models.reply_cache import ReplyCache, content_key
from webdojo.taskgen.prompts import RUBRIC_PROMPT_VERSION, RUBRIC_REPAIR, rubric_messages
from webdojo.taskgen.runner import GenConfig, GenReport, Job, OnResult, asker, run_jobs
from webdojo.tasks.schema import MAX_DIFFICULTY, FactGroup, Rubric, Task, difficulty_level
from webdojo.tasks.task_file import bulk, describe, iter_tasks, write_tasks

# --- the reply ---------------------------------------------------------------------------


class GroupReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int = Field(ge=1)
    description: str = ""
    facts: list[str] = Field(min_length=1)

    @field_validator("facts")
    @classmethod
    def _facts_are_text(cls, facts: list[str]) -> list[str]:
        cleaned = [f.strip() for f in facts]
        if not all(cleaned):
            raise ValueError("a fact is empty")
        return cleaned


class RubricReply(BaseModel):
    """The JSON the rubric prompt asks for."""

    model_config = ConfigDict(extra="forbid")

    fact_groups: list[GroupReply] = Field(min_length=1)
    difficulty: int | None = None  # the model's own count; recomputed, see the module doc

    @model_validator(mode="after")
    def _sane(self) -> RubricReply:
        ids = [g.id for g in self.fact_groups]
        if len(set(ids)) != len(ids):
            raise ValueError(f"group ids must be distinct, got {ids}")
        n = sum(len(g.facts) for g in self.fact_groups)
        if n > MAX_DIFFICULTY:
            raise ValueError(f"{n} facts; at most {MAX_DIFFICULTY}: merge the finest ones")
        return self


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


def json_object(text: str) -> Any:
    """The JSON object in a reply: the whole text, a fenced block, or the span from the first
    ``{`` to the last ``}`` (models like to add a sentence around it)."""
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    elif not text.startswith("{") and "{" in text:
        text = text[text.index("{") : text.rindex("}") + 1]
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ReplyRejected(f"the reply is not valid JSON ({exc})") from exc


def parse_rubric(text: str) -> dict[str, Any]:
    """The value cached for a rubric reply: its groups, and the model's stated difficulty."""
    data = json_object(text)
    if not isinstance(data, dict):
        raise ReplyRejected(f"expected a JSON object, got a JSON {type(data).__name__}")
    try:
        reply = RubricReply.model_validate(data)
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()]
        raise ReplyRejected("; ".join(problems[:5])) from exc
    groups = [g.model_dump() for g in reply.fact_groups]
    return {"fact_groups": groups, "stated_difficulty": reply.difficulty}


# --- applying it ------------------------------------------------------------------------


def rubric_key(model: str, instruction: str) -> str:
    return content_key("rubric", RUBRIC_PROMPT_VERSION, model, instruction)


def with_rubric(task: Task, value: dict[str, Any], model: str) -> Task:
    """``task`` with the generated rubric; difficulty and level follow from it."""
    rubric = Rubric(fact_groups=[FactGroup(**g) for g in value["fact_groups"]])
    n = rubric.n_facts()
    ours = dict(task.meta.get("webdojo") or {})
    ours.update(rubric_model=model, rubric_prompt=RUBRIC_PROMPT_VERSION)
    if task.rubric is None and task.difficulty is not None and task.difficulty != n:
        ours["source_difficulty"] = task.difficulty
    if task.rubric is None and task.level is not None and task.level != difficulty_level(n):
        ours["source_level"] = task.level
    data = task.model_dump()
    data.update(rubric=rubric, difficulty=None, level=None, meta={**task.meta, "webdojo": ours})
    return Task.model_validate(data)


def needs_rubric(task: Task, force: bool) -> bool:
    return force or task.rubric is None


# --- the command ------------------------------------------------------------------------


async def generate_rubrics(
    path: Path,
    out: Path,
    client: ModelClient,
    cache: ReplyCache,
    config: GenConfig,
    *,
    on_start: Callable[[int], None] | None = None,
    on_result: OnResult | None = None,
) -> GenReport:
    """Give every task of ``path`` a rubric and write them all to ``out`` (input order). A task
    whose rubric could not be made is written unchanged and listed in ``report.failed``."""
    report = GenReport("rubric")
    todo: dict[str, str] = {}  # instruction -> the first task id asking it
    with bulk():  # read (and validate) the whole file before the first model call
        for task in iter_tasks(path):
            report.tasks += 1
            if needs_rubric(task, config.force):
                todo.setdefault(task.instruction, task.id)
            else:
                report.kept += 1
    model = await client.model_name()
    jobs = [  # tasks with the same instruction share one question
        Job(
            rubric_key(model, text),
            task_id,
            asker(client, rubric_messages(text), parse_rubric, RUBRIC_REPAIR, config, report.usage),
        )
        for text, task_id in todo.items()
    ]
    if on_start is not None:
        on_start(len(jobs))
    tally = await run_jobs(
        jobs,
        cache,
        concurrency=config.concurrency,
        on_result=on_result,
        max_consecutive_errors=config.stop_after_errors,
    )
    report.generated, report.cached = tally.generated, tally.cached
    report.cost = config.price.cost(report.usage)
    report.written = write_tasks(
        out, _with_rubrics(path, model, cache, tally.failures, config, report)
    )
    return report


def _with_rubrics(
    path: Path,
    model: str,
    cache: ReplyCache,
    failures: dict[str, str],
    config: GenConfig,
    report: GenReport,
) -> Any:
    """The output tasks, streamed in input order; failures are recorded in ``report``."""
    mismatch = 0
    for task in iter_tasks(path):
        if not needs_rubric(task, config.force):
            yield task
            continue
        key = rubric_key(model, task.instruction)
        value = cache.get(key)
        if value is None:
            report.failed.append((task.id, failures.get(key, "no reply")))
            yield task
            continue
        try:
            done = with_rubric(task, value, model)
        except ValidationError as exc:
            report.failed.append((task.id, f"the rubric does not fit the task: {describe(exc)}"))
            yield task
            continue
        stated = value.get("stated_difficulty")
        mismatch += stated is not None and stated != done.difficulty
        yield done
    report.extra["difficulty_mismatch"] = mismatch
