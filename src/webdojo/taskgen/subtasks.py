"""``webdojo tasks decompose``: plan WebGym's decomposition of a task file (``decompose.py``),
have the model write each child's instruction (prompt of appendix E.6), and write the parents
with their children.

The reply is plain text, checked here: not empty, one line, not JSON, not the parent's
instruction again, and of a sane length; a bad one goes back to the model with the reason.

Only tasks with a rubric and no ``parent_id`` are decomposed (a child's subsets are already
among its parent's). A child whose id is already in the input is kept as it is unless
``force``. The output holds every input task and, right after each parent, its new children;
with ``children_only``, just the children (new ones and those kept from the input).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from webdojo.models import ModelClient
from webdojo.models.ask import ReplyRejected
from webdojo.models.reply_cache import ReplyCache, content_key
from webdojo.models.usage import Usage
from webdojo.taskgen.decompose import (
    Subset,
    candidate_subsets,
    child_id,
    child_task,
    is_eligible,
    subset_difficulty,
    subset_name,
)
from webdojo.taskgen.prompts import (
    DECOMPOSE_PROMPT_VERSION,
    DECOMPOSE_REPAIR,
    decompose_messages,
    groups_key,
)
from webdojo.taskgen.runner import GenConfig, GenReport, Job, OnResult, asker, run_jobs
from webdojo.tasks.schema import Task
from webdojo.tasks.task_file import bulk, describe, iter_tasks, write_tasks

MIN_CHARS = 10
MAX_CHARS = 2000

# --- the plan (no model) ----------------------------------------------------------------


@dataclass(frozen=True)
class PlannedChild:
    id: str
    parent_id: str
    parent_instruction: str
    subset: Subset

    @property
    def difficulty(self) -> int:
        return subset_difficulty(self.subset)


@dataclass
class Plan:
    tasks: int = 0  # tasks read
    no_rubric: int = 0  # cannot be decomposed: no rubric (run `webdojo tasks rubric` first)
    children_in_input: int = 0  # have a parent_id: not decomposed again
    not_eligible: int = 0  # fewer than 2 groups, or no group of 3+ facts
    parents: dict[str, list[PlannedChild]] = field(default_factory=dict)  # eligible, by id
    existing: set[str] = field(default_factory=set)  # child ids already in the input
    shapes: dict[str, str] = field(default_factory=dict)  # parent id -> "g1:2 g2:3 g3:4"

    def children(self) -> Iterator[PlannedChild]:
        for kids in self.parents.values():
            yield from kids

    def to_make(self, force: bool) -> list[PlannedChild]:
        return [c for c in self.children() if force or c.id not in self.existing]

    def to_json(self, force: bool, cached: int | None) -> dict[str, Any]:
        make = self.to_make(force)
        histogram = Counter(c.difficulty for c in make)
        return {
            "tasks": self.tasks,
            "eligible": len(self.parents),
            "not_eligible": self.not_eligible,
            "no_rubric": self.no_rubric,
            "children_in_input": self.children_in_input,
            "children": sum(len(k) for k in self.parents.values()),
            "existing": len(self.existing) if not force else 0,
            "to_generate": len(make),
            "cached": cached,  # None: the model is not known without asking the endpoint
            "calls": None if cached is None else len(make) - cached,
            "difficulties": {str(d): histogram[d] for d in sorted(histogram)},
        }


def plan_decomposition(path: Path) -> Plan:
    """Read ``path`` and list every child Algorithm 1 makes from it."""
    plan = Plan()
    ids: set[str] = set()
    with bulk():
        for task in iter_tasks(path):
            plan.tasks += 1
            ids.add(task.id)
            if task.parent_id is not None:
                plan.children_in_input += 1
            elif task.rubric is None:
                plan.no_rubric += 1
            elif not is_eligible(task.rubric.fact_groups):
                plan.not_eligible += 1
            elif task.id not in plan.parents:  # a repeated id is decomposed once
                groups = task.rubric.fact_groups
                plan.shapes[task.id] = " ".join(f"g{g.id}:{len(g.facts)}" for g in groups)
                plan.parents[task.id] = [
                    PlannedChild(child_id(task.id, s), task.id, task.instruction, s)
                    for s in candidate_subsets(task.rubric.fact_groups)
                ]
    plan.existing = {c.id for c in plan.children() if c.id in ids}
    return plan


def child_key(model: str, child: PlannedChild) -> str:
    return content_key(
        "decompose",
        DECOMPOSE_PROMPT_VERSION,
        model,
        child.parent_instruction,
        groups_key(child.subset),
    )


def count_cached(plan: Plan, model: str, cache: ReplyCache, force: bool) -> int:
    return sum(child_key(model, c) in cache for c in plan.to_make(force))


# --- the reply ------------------------------------------------------------------------------

_LABEL = re.compile(r"^(new task|task)\s*:\s*", re.I)


def _normalized(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".")


def instruction_parser(parent_instruction: str) -> Callable[[str], dict[str, Any]]:
    """A parser of rewrite replies for this parent (see the module docstring)."""
    longest = min(MAX_CHARS, max(2 * len(parent_instruction), len(parent_instruction) + 300))

    def parse(text: str) -> dict[str, Any]:
        lines = [line.strip() for line in text.strip().strip("`").splitlines() if line.strip()]
        if len(lines) != 1:
            raise ReplyRejected(f"expected the new task on one line, got {len(lines)} lines")
        line = _LABEL.sub("", lines[0]).strip().strip("\"'“”").strip()
        if line.startswith(("{", "[")):
            raise ReplyRejected("the reply is JSON; write the new task as plain text")
        if len(line) < MIN_CHARS:
            raise ReplyRejected(f"the new task is too short ({len(line)} characters)")
        if len(line) > longest:
            raise ReplyRejected(
                f"the new task is too long ({len(line)} characters; at most {longest})"
            )
        if _normalized(line) == _normalized(parent_instruction):
            raise ReplyRejected(
                "the new task repeats the original task; ask only for the given fact groups"
            )
        return {"instruction": line}

    return parse


# --- the command ----------------------------------------------------------------------------


async def decompose_tasks(
    path: Path,
    out: Path,
    client: ModelClient,
    cache: ReplyCache,
    config: GenConfig,
    *,
    children_only: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_result: OnResult | None = None,
) -> GenReport:
    """Decompose every eligible task of ``path`` and write the result to ``out``; a child whose
    instruction could not be written is left out and listed in ``report.failed``."""
    plan = plan_decomposition(path)
    model = await client.model_name()
    report = GenReport("decompose", tasks=plan.tasks)
    make = plan.to_make(config.force)
    report.kept = (
        sum(1 for c in plan.children() if c.id in plan.existing) if not config.force else 0
    )
    jobs: dict[str, Job] = {}
    for child in make:
        key = child_key(model, child)
        if key not in jobs:  # the same parent instruction and groups: one question
            jobs[key] = Job(key, child.id, _asker(client, child, config, report.usage))
    if on_start is not None:
        on_start(len(jobs))
    tally = await run_jobs(
        list(jobs.values()),
        cache,
        concurrency=config.concurrency,
        on_result=on_result,
        max_consecutive_errors=config.stop_after_errors,
    )
    report.generated, report.cached = tally.generated, tally.cached
    report.cost = config.price.cost(report.usage)
    made: dict[str, str] = {}
    for child in make:
        key = child_key(model, child)
        value = cache.get(key)
        if value is None:
            report.failed.append((child.id, tally.failures.get(key, "no reply")))
        else:
            made[child.id] = value["instruction"]
    report.extra.update(eligible=len(plan.parents), no_rubric=plan.no_rubric)
    report.written = write_tasks(out, _output(path, plan, made, model, children_only, report))
    return report


def _asker(client: ModelClient, child: PlannedChild, config: GenConfig, usage: Usage) -> Any:
    messages = decompose_messages(child.parent_instruction, child.subset)
    parse = instruction_parser(child.parent_instruction)
    return asker(client, messages, parse, DECOMPOSE_REPAIR, config, usage)


def _output(
    path: Path,
    plan: Plan,
    made: dict[str, str],
    model: str,
    children_only: bool,
    report: GenReport,
) -> Iterator[Task]:
    """The output tasks in input order, each parent followed by its new children."""
    provenance = {"decompose_model": model, "decompose_prompt": DECOMPOSE_PROMPT_VERSION}
    children_written = 0
    for task in iter_tasks(path):
        if task.id in made and task.id in plan.existing:
            continue  # --force: replaced by the child written after its parent
        if not children_only or task.id in plan.existing:
            yield task
        for child in plan.parents.pop(task.id, []):
            if child.id not in made:
                continue
            try:
                yield child_task(task, child.subset, made[child.id], provenance)
            except ValidationError as exc:
                report.failed.append((child.id, describe(exc)))
                continue
            children_written += 1
    report.extra["children"] = children_written


def plan_rows(plan: Plan, limit: int) -> list[tuple[str, str, str]]:
    """(parent id, group sizes, children with difficulties) for the first ``limit`` parents."""
    rows = []
    for parent_id, kids in list(plan.parents.items())[:limit]:
        shown = ", ".join(f"{subset_name(k.subset)}={k.difficulty}" for k in kids)
        rows.append((parent_id, plan.shapes[parent_id], shown))
    return rows
