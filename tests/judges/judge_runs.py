"""Run directories and a scripted judge for the judge tests (a plain module, importable)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from store import record_builders as rb  # tests/ is on sys.path (tests/conftest.py)
from webdojo.errors import ModelError
from webdojo.judges.base import Judge, JudgeOptions, make_verdict
from webdojo.judges.trajectory import Trajectory
from webdojo.store.records import to_line
from webdojo.store.run_store import CONFIG, EPISODES, STEPS
from webdojo.store.verdicts import Criterion, JudgeUsage, Label, Verdict


def write_run(root: Path, outcomes: dict[str, bool | str | None], tasks: str = "builtin") -> Path:
    """A run directory with one finished episode per key: True/False = scored, None = no
    verifier, "fault" = an infra fault. Each episode has two steps with real files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / CONFIG).write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
    shots = root / "screenshots"
    shots.mkdir(exist_ok=True)
    with open(root / STEPS, "w") as steps, open(root / EPISODES, "w") as episodes:
        for key, outcome in outcomes.items():
            uid = key + "-e"
            for index in range(2):
                record = rb.step(uid, index, key=key)
                for rel in (record.screenshot, record.next_screenshot):
                    assert rel is not None
                    (root / rel).write_bytes(b"\xff\xd8 not decoded by these tests")
                steps.write(to_line(record) + "\n")
            fault = "infra" if outcome == "fault" else None
            success = None if outcome == "fault" else outcome
            assert success is None or isinstance(success, bool)
            episodes.write(to_line(rb.episode(key, success, fault=fault, steps=2)) + "\n")
    return root


class LabelJudge(Judge):
    """Answers the label in ``LABELS`` for a task id (default success); "down" raises the
    endpoint's error. Counts its calls, like a model judge would."""

    LABELS: ClassVar[dict[str, Label | str]] = {}
    calls: ClassVar[list[str]] = []

    def __init__(self, options: JudgeOptions) -> None:
        self.options = options

    async def judge(self, trajectory: Trajectory) -> Verdict:
        LabelJudge.calls.append(trajectory.key)
        label = self.LABELS.get(trajectory.record.task_id, "success")
        if label == "down":
            raise ModelError("model endpoint http://127.0.0.1:9/v1 answered HTTP 503: down")
        reason = f"scripted {label}"
        criteria = [Criterion(name="task", kind="task", passed=label == "success", reason=reason)]
        return make_verdict(self.name, trajectory, label, criteria, usage=JudgeUsage(calls=1))  # type: ignore[arg-type]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
