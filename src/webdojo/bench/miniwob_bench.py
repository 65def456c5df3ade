"""``webdojo bench miniwob``: a policy's success on every MiniWoB++ task, as a markdown table.

Each task runs ``episodes`` times (different seeds: each repeat is its own episode seed, so
the page draws a different instance) through the ordinary rollout job, and the table gives per
task the success rate (the page's raw reward > 0), the mean raw reward the page reported (an
episode the page never ended counts 0), and how episodes ended: ``done`` (the page ended it),
``stopped`` (the policy stopped), ``step_cap``, ``fault``. Faults are left out of the rates.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.policies.base import Policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.records import EpisodeRecord
from webdojo.tasks.loader import load_spec
from webdojo.tasks.miniwob import task_name

OUTCOMES = ("done", "stopped", "step_cap", "fault")


@dataclass
class TaskRow:
    name: str
    episodes: int = 0
    successes: int = 0
    scored: int = 0  # episodes with a verdict (not faults)
    reward_sum: float = 0.0  # the page's raw rewards, 0 where the page never ended
    outcomes: Counter[str] = field(default_factory=Counter)

    @property
    def success(self) -> float | None:
        return None if not self.scored else self.successes / self.scored

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "episodes": self.episodes,
            "success": self.success,
            "mean_raw_reward": None if not self.scored else self.reward_sum / self.scored,
            "outcomes": dict(self.outcomes),
        }


@dataclass
class MiniwobBench:
    policy: str
    episodes: int  # per task
    seed: int
    rows: list[TaskRow]
    wall_s: float = 0.0

    def overall(self) -> float | None:
        scored = sum(r.scored for r in self.rows)
        return None if not scored else sum(r.successes for r in self.rows) / scored

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "episodes_per_task": self.episodes,
            "seed": self.seed,
            "tasks": len(self.rows),
            "success": self.overall(),
            "wall_s": round(self.wall_s, 1),
            "rows": [r.to_json() for r in self.rows],
        }


async def run_miniwob_bench(
    policy: Policy,
    *,
    tasks: str = "miniwob",
    episodes: int = 3,
    seed: int = 0,
    concurrency: int = 4,
    out: Path | None = None,
) -> MiniwobBench:
    """Run ``policy`` ``episodes`` times on each task of the spec; the run lands in ``out``
    (a temporary directory when None)."""
    import time

    task_set = load_spec(tasks)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="webdojo-miniwob-") as scratch:
        config = RunConfig(
            tasks=tasks,
            policy=policy.name,
            concurrency=concurrency,
            repeats=episodes,
            seed=seed,
            out=str(out or Path(scratch) / "run"),
        )
        records = await run_job(config, task_set, policy)
    rows = {t.id: TaskRow(name) for t in task_set.tasks if (name := task_name(t))}
    for record in records:
        _count(rows, record)
    return MiniwobBench(
        policy.name, episodes, seed, list(rows.values()), time.perf_counter() - started
    )


def _count(rows: dict[str, TaskRow], record: EpisodeRecord) -> None:
    row = rows.get(record.task_id)
    if row is None:
        return
    row.episodes += 1
    row.outcomes[str(record.outcome)] += 1
    if record.success is None:
        return
    row.scored += 1
    row.successes += bool(record.success)
    row.reward_sum += raw_reward(record)


def raw_reward(record: EpisodeRecord) -> float:
    """The raw reward the page stored, 0 when it never ended the episode."""
    storage = record.final_state.storage if record.final_state is not None else None
    result = storage.get("webdojo.miniwob") if isinstance(storage, dict) else None
    value = result.get("raw_reward") if isinstance(result, dict) else None
    return float(value) if isinstance(value, int | float) else 0.0


def markdown_table(bench: MiniwobBench, solved: set[str] | None = None) -> str:
    """The per-task table; ``solved`` marks the tasks with a scripted solver."""
    solved = solved or set()
    lines = [
        "| task | episodes | success | mean raw reward | done / stopped / step cap / fault |"
        + (" scripted solver |" if solved else ""),
        "|---|---:|---:|---:|---|" + ("---|" if solved else ""),
    ]
    for row in sorted(bench.rows, key=lambda r: r.name):
        data = row.to_json()
        ends = " / ".join(str(row.outcomes.get(o, 0)) for o in OUTCOMES)
        cells = [
            f"`{row.name}`",
            str(row.episodes),
            _pct(data["success"]),
            "-" if data["mean_raw_reward"] is None else f"{data['mean_raw_reward']:+.2f}",
            ends,
        ]
        if solved:
            cells.append("yes" if row.name in solved else "")
        lines.append("| " + " | ".join(cells) + " |")
    total = sum(r.episodes for r in bench.rows)
    lines.append(
        f"\n{len(bench.rows)} tasks, {bench.episodes} episodes each ({total} in all), policy "
        f"`{bench.policy}`, run seed {bench.seed}: overall success {_pct(bench.overall())}."
    )
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"
