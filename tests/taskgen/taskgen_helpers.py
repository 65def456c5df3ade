"""Small builders shared by the taskgen tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webdojo.tasks.schema import FactGroup, Rubric, Task


def groups(*sizes: int) -> list[FactGroup]:
    """Fact groups with ids 1.. and ``sizes[i]`` facts each."""
    return [
        FactGroup(id=i, description=f"group {i}", facts=[f"fact {i}.{j}" for j in range(1, n + 1)])
        for i, n in enumerate(sizes, 1)
    ]


def task(
    task_id: str, instruction: str | None = None, sizes: tuple[int, ...] = (), **kw: Any
) -> Task:
    rubric = Rubric(fact_groups=groups(*sizes)) if sizes else None
    return Task(id=task_id, instruction=instruction or f"Do the thing number {task_id}.",
                rubric=rubric, **kw)  # fmt: skip


def write(path: Path, tasks: list[Task]) -> Path:
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks), encoding="utf-8")
    return path


def read(path: Path) -> list[Task]:
    return [Task.model_validate_json(line) for line in path.read_text().splitlines() if line]


def rubric_reply(*sizes: int, difficulty: int | None = None) -> str:
    """A rubric reply as the model should write it."""
    fact_groups = [g.model_dump() for g in groups(*sizes)]
    stated = sum(sizes) if difficulty is None else difficulty
    return json.dumps({"fact_groups": fact_groups, "difficulty": stated})


def last_user_text(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])
