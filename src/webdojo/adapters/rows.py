"""A trainer's dataset row -> the webdojo task it names (every adapter reads rows this way).

A row names its task by id (``task_id``, or ``task`` as a string), or carries a whole task
dict under ``task``. Trainers nest the columns differently: verl passes ``extra_info`` (where
``webdojo export --format verl`` writes ``task_id``) beside the top-level columns, so
``row_fields`` merges the two before ``task_for`` reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral
from typing import Any

from pydantic import ValidationError

from webdojo.environment.make import find_task
from webdojo.errors import TaskFileError
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.schema import Task

MINIWOB_PREFIXES = ("miniwob:", "miniwob.")  # the spec's spelling and the task id's
ROW_KEYS = ("task_id", "task", "seed")  # the columns a row's task is read from


def task_for(row: Mapping[str, Any], spec: str = "builtin") -> TaskSet:
    """The task a dataset row names, with the local sites it needs: a full task dict under
    ``task``, or an id under ``task_id`` (or ``task``): one of ``spec``'s, a built-in or a
    MiniWoB++ one (``environment.make.find_task``). ``TaskFileError`` for a row that names
    none, ``UnknownTask`` for an id that is not known."""
    if not isinstance(row, Mapping):
        raise TaskFileError(f"a row is a mapping with a task_id, not {type(row).__name__}")
    given = row.get("task")
    if isinstance(given, Mapping):
        try:
            return find_task(Task.model_validate(dict(given)))
        except ValidationError as exc:
            raise TaskFileError(f"the row's task is not a valid task: {exc}") from exc
    task_id = row.get("task_id", given)
    if not isinstance(task_id, str) or not task_id.strip():
        raise TaskFileError(
            "the row names no task: give a `task_id` (e.g. 'shop.add-runner' or "
            f"'miniwob:click-test') or a full task under `task`; its keys: {sorted(row)}"
        )
    task_id = task_id.strip()
    own = spec != "builtin" and not task_id.startswith(MINIWOB_PREFIXES)
    return find_task(task_id, spec if own else None)


def check_runnable(task: Task) -> None:
    """Refuse, before any browser work, a task whose episode could give no reward."""
    if task.verifier is None:
        message = "has no programmatic verifier, so an episode has no reward (judge it)"
        raise TaskFileError(f"task {task.id!r} {message}", task=task.id)


def row_fields(columns: Mapping[str, Any]) -> dict[str, Any]:
    """The task fields of a row whose columns may nest them under ``extra_info`` (verl's
    RLHFDataset layout); a top-level column wins over the nested one."""
    nested = columns.get("extra_info")
    fields = (
        {k: v for k, v in nested.items() if k in ROW_KEYS} if isinstance(nested, Mapping) else {}
    )
    fields.update({k: columns[k] for k in ROW_KEYS if columns.get(k) is not None})
    return fields


def row_seed(row: Mapping[str, Any], default: int | None = None) -> int | None:
    """The row's ``seed`` when it is an integer, else ``default``."""
    seed = as_int(row.get("seed"))
    return default if seed is None else seed


def as_int(value: Any) -> int | None:
    """``value`` when it is an integer (numpy's too: parquet columns arrive as numpy scalars),
    else None."""
    return int(value) if isinstance(value, Integral) and not isinstance(value, bool) else None
