"""Run directories for the judges that need no model: a task, the pages an agent visited with
what it did there, and its answer, written as a real run and read back as a ``Trajectory``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from store import record_builders as rb  # tests/ is on sys.path (tests/conftest.py)
from webdojo.actions import Action, Click, Stop
from webdojo.judges.trajectory import Trajectory, trajectories
from webdojo.observation import FinalState
from webdojo.store.records import to_line
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import CONFIG, EPISODES, STEPS
from webdojo.tasks.schema import Task

TASKS_FILE = "tasks.json"


def write_episode(
    root: Path,
    task: Task,
    pages: list[tuple[str, Action]],
    *,
    final_url: str | None = None,
    answer: str | None = None,
    key: str | None = None,
    **episode: Any,
) -> Trajectory:
    """Append one episode of ``task`` to the run at ``root``: a step per (URL, action) of
    ``pages``, then a stop with ``answer`` when one is given. ``final_url`` defaults to the last
    page's URL; ``episode`` overrides episode record fields (fault, final_state...). The task
    joins the run's task file. Returns the trajectory as ``webdojo judge`` reads it."""
    root.mkdir(parents=True, exist_ok=True)
    tasks = _add_task(root, task)
    key = key or f"{task.id}#0"
    uid = f"{key}-e"
    steps = list(pages)
    if answer is not None:
        steps.append((steps[-1][0] if steps else "about:blank", Stop(answer=answer)))
    with open(root / STEPS, "a", encoding="utf-8") as handle:
        for index, (url, action) in enumerate(steps):
            record = rb.step(uid, index, key=key, url=url, action=action,
                             screenshot=None, next_screenshot=None)  # fmt: skip
            handle.write(to_line(record) + "\n")
    final = final_url or (steps[-1][0] if steps else "about:blank")
    fields: dict[str, Any] = {
        "steps": len(steps),
        "answer": answer,
        "final_url": final,
        "final_state": FinalState(url=final, title="", text="", answer=answer),
        **episode,
    }
    record = rb.episode(key, None, **fields)
    with open(root / EPISODES, "a", encoding="utf-8") as handle:
        handle.write(to_line(record) + "\n")
    run = read_run(root)
    return next(t for t in trajectories(run, tasks) if t.key == key)


def _add_task(root: Path, task: Task) -> dict[str, Task]:
    path = root / TASKS_FILE
    rows = json.loads(path.read_text()) if path.exists() else []
    rows = [r for r in rows if r["id"] != task.id] + [task.model_dump(mode="json")]
    path.write_text(json.dumps(rows), encoding="utf-8")
    (root / CONFIG).write_text(json.dumps({"tasks": str(path)}), encoding="utf-8")
    return {r["id"]: Task.model_validate(r) for r in rows}


def clicks(*urls: str) -> list[tuple[str, Action]]:
    """A click on each page, in order."""
    return [(url, Click(x=10, y=20)) for url in urls]
