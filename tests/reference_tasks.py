"""Built-in tasks for tests whose model stand-in tells tasks apart by their instruction."""

from __future__ import annotations

from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task


def short_tasks(n: int) -> list[Task]:
    """The ``n`` built-in tasks with the shortest solutions whose instructions no other's
    contain (a stand-in finds the task by the instruction in the prompt)."""
    found: list[Task] = []
    for task in sorted(load_spec("builtin").tasks, key=lambda t: (len(t.solution), t.id)):
        if all(
            task.instruction not in t.instruction and t.instruction not in task.instruction
            for t in found
        ):
            found.append(task)
    return found[:n]


def one_per_site() -> list[Task]:
    """The built-in task with the shortest solution on each site, in site order: every site's
    pages and verifier kinds once, for tests of a path rather than of every task (the
    ``core`` suite's test solves them all)."""
    first: dict[str, Task] = {}
    for task in sorted(load_spec("builtin").tasks, key=lambda t: (len(t.solution), t.id)):
        first.setdefault(task.website, task)
    return [first[site] for site in sorted(first)]


def spread_tasks(n: int) -> list[Task]:
    """``n`` built-in tasks, spread over the sites (every ``len // n``-th by id)."""
    tasks = sorted(load_spec("builtin").tasks, key=lambda t: t.id)
    return tasks[:: max(1, len(tasks) // n)][:n]
