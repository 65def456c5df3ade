"""``webdojo verify``: check a run's stored rewards again, from the stored final states.

Every scored episode record keeps what its verifier read (``EpisodeRecord.final_state``), so
the task's programmatic verifier can run again without a browser, at any time: after a
verifier fix, to audit a run from another machine, or to check that nothing was lost between
the rollout and the file. An episode agrees when the verdict now equals the stored reward.

Episodes that cannot be checked are listed apart, never counted as agreeing:

* ``fault``: the episode was never scored (reward None), so there is nothing to check;
* ``no_final_state``: a record of schema version 1, written before final states were stored;
* ``unknown_task``: the task set named in ``config.json`` no longer has the task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table

from webdojo.errors import ConfigError
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_config import CONFIG, RunConfigRecord, read_config
from webdojo.store.run_reader import read_run
from webdojo.tasks.loader import load_spec
from webdojo.tasks.qa_tasks import load_qa_tasks
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult, verify


@dataclass
class Disagreement:
    key: str
    stored: float  # the reward in the record
    now: float  # the reward the verifier gives now
    reasons: list[str]  # the verifier's reasons now


@dataclass
class ReverifyReport:
    run: str
    tasks: str  # the task spec the verifier's tasks came from
    checked: int = 0  # scored episodes verified again
    agree: int = 0
    disagree: list[Disagreement] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)  # why -> episode keys

    @property
    def ok(self) -> bool:
        return not self.disagree

    def skip(self, why: str, key: str) -> None:
        self.skipped.setdefault(why, []).append(key)

    def to_json(self) -> dict[str, Any]:
        """``{"episodes": n, "agree": k, "disagree": [keys]}`` plus the skipped keys."""
        return {
            "episodes": self.checked,
            "agree": self.agree,
            "disagree": [d.key for d in self.disagree],
            "skipped": {why: len(keys) for why, keys in sorted(self.skipped.items())},
            "run": self.run,
            "tasks": self.tasks,
        }


def reverify_run(root: Path, tasks: str | None = None) -> ReverifyReport:
    """Verify every scored episode of ``root`` again. ``tasks`` overrides the task spec of
    the run's ``config.json``. Raises ``ConfigError`` when neither names a task set."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError(f"{root} is not a run directory")
    config = read_config(root) or RunConfigRecord()
    spec = tasks or config.tasks
    if not spec:
        raise ConfigError(f"{root / CONFIG} names no task set: pass --tasks")
    # a run on the offline wiki read its QA sets with their exact-match verifiers: the same here
    load = load_qa_tasks if config.wiki else load_spec
    by_id = {task.id: task for task in load(spec).tasks}
    report = ReverifyReport(run=str(root), tasks=spec)
    for record in read_run(root, strict=True).episodes.values():
        _check(record, by_id.get(record.task_id), report)
    return report


# why ``verify_stored`` could not verify a record -> the same in words (the judge's reasons)
CANNOT_VERIFY = {
    "fault": "the episode ended in a fault: there is no final state to verify",
    "no_final_state": "the record stores no final state (a run of record schema version 1)",
    "unknown_task": "the task is not in the run's task set",
    "no_verifier": "the task has no programmatic verifier",
}


def verify_stored(record: EpisodeRecord, task: Task | None) -> VerifyResult | str:
    """The task's verifier run again on the record's stored final state, or why it cannot
    run: one of the keys of ``CANNOT_VERIFY``. Shared by ``webdojo verify`` and the
    programmatic judge, so both read a stored episode the same way."""
    if record.fault is not None:
        return "fault"
    if record.final_state is None:
        return "no_final_state"
    if task is None:
        return "unknown_task"
    verdict = verify(task, record.final_state)
    return "no_verifier" if verdict is None else verdict


def _check(record: EpisodeRecord, task: Task | None, report: ReverifyReport) -> None:
    if record.fault is None and record.reward is None:
        report.skip("not_verified", record.key)
        return
    verdict = verify_stored(record, task)
    if isinstance(verdict, str):
        report.skip(verdict, record.key)
        return
    assert record.reward is not None  # a record with a final state and no fault was scored
    report.checked += 1
    now = float(verdict.passed)
    if now == record.reward:
        report.agree += 1
    else:
        report.disagree.append(Disagreement(record.key, record.reward, now, verdict.reasons))


def reverify_table(report: ReverifyReport, shown: int = 20) -> Table:
    """The console view: the counts, then the first ``shown`` disagreements with reasons."""
    table = Table(title=f"Verified again: {report.run}", title_justify="left")
    for name in ("episode", "stored reward", "reward now", "why (now)"):
        table.add_column(name, overflow="fold")
    for item in report.disagree[:shown]:
        failed = [r for r in item.reasons if r.startswith("fail")] or item.reasons
        table.add_row(item.key, f"{item.stored:g}", f"{item.now:g}", "; ".join(failed))
    table.caption = (
        f"{report.agree}/{report.checked} scored episodes agree with their stored reward"
        + "".join(f"; {len(keys)} skipped ({why})" for why, keys in report.skipped.items())
    )
    return table
