"""Small synthetic task sets for the split / sample / stats tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from webdojo.tasks.schema import Task
from webdojo.tasks.task_file import write_tasks


def rubric(facts: int) -> dict[str, Any]:
    return {"fact_groups": [{"id": 1, "facts": [f"fact {i}" for i in range(facts)]}]}


def task(task_id: str, website: str | None, difficulty: int | None = 2, **extra: Any) -> Task:
    data: dict[str, Any] = {
        "id": task_id,
        "instruction": extra.pop("instruction", f"Do the thing number {task_id} on the site."),
        "website": website,
        "start_url": extra.pop("start_url", website),
        "source": extra.pop("source", "test"),
    }
    if difficulty is not None:
        data["rubric"] = rubric(difficulty)
    data.update(extra)
    return Task.model_validate(data)


def mixed_set() -> list[Task]:
    """Tasks on 12 real websites (some under two hosts), a local site, tasks without a website,
    and decomposed subtasks (one of them on another website than its parent)."""
    tasks = []
    for s in range(12):
        hosts = [f"https://www.site{s}.co.uk/", f"https://shop.site{s}.co.uk/a"]
        for k in range(1 + s % 4):
            d = 1 + (s + k) % 9
            tasks.append(task(f"s{s}.t{k}", hosts[k % 2], d, domain="Entertainment",
                              subdomain="Music" if s % 2 else "Books & Reading"))  # fmt: skip
    tasks.append(task("s3.t0.sub1", "https://site3.co.uk/", 1, parent_id="s3.t0"))
    tasks.append(task("s3.t0.sub2", "https://elsewhere.org/", 1, parent_id="s3.t0"))
    tasks.append(task("shop.one", "shop", 2, start_url="index.html", source="builtin"))
    tasks.append(task("shop.two", "shop", 5, start_url="cart.html", source="builtin"))
    tasks.append(task("nosite.1", None, None, level="hard"))
    tasks.append(task("nosite.2", None, None))
    return tasks


def write(path: Path, tasks: list[Task]) -> Path:
    write_tasks(path, tasks)
    return path


def last_json(output: str) -> dict[str, Any]:
    return json.loads(output.strip().splitlines()[-1])
