"""``webdojo bench tasks``: time and peak memory of the task-set commands at WebGym's scale.

It writes a synthetic WebGym-format file of ``n`` rows (``bench.tasks_data``), then runs each
phase in a fresh child process and reads that child's own peak resident memory from
``os.wait4`` (so no phase is charged for another's memory, and this process's is not counted):

1. import: ``webdojo tasks import --format webgym`` of the rows into a task file
2. split: ``webdojo tasks split`` (OOD split, 1% of the websites to test)
3. stats: ``webdojo tasks stats --html`` on the imported file
4. sample: ``webdojo tasks sample --ratio 2:5:3 --caps 10,20,30`` of n/10 tasks from train

The target is under 30 s and 2 GB a phase.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.bench.tasks_data import write_webgym_rows

TARGET_S, TARGET_MB = 30.0, 2048.0
PHASES = ("import", "split", "stats", "sample")


def _module(name: str) -> list[str]:
    return [sys.executable, "-m", name]


def import_command(raw: Path, out: Path) -> list[str]:
    """The import phase: WebGym rows in ``raw`` -> a task file ``out``, by the real importer."""
    return [
        *_module("webdojo.cli"),
        "tasks",
        "import",
        str(raw),
        "--out",
        str(out),
        "--format",
        "webgym",
        "--json",
    ]


@dataclass
class PhaseResult:
    name: str
    seconds: float  # wall time
    cpu_s: float  # user + system CPU time: on a busy shared machine, less noisy than wall
    peak_mb: float
    ok: bool
    output_tail: str = ""


@dataclass
class TasksBenchResult:
    n: int
    generate_s: float
    phases: dict[str, PhaseResult] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"n": self.n}
        for name in PHASES:
            phase = self.phases.get(name)
            data[f"{name}_s"] = None if phase is None else round(phase.seconds, 2)
        data["cpu_s_by_phase"] = {k: round(p.cpu_s, 2) for k, p in self.phases.items()}
        data["peak_mb"] = round(max((p.peak_mb for p in self.phases.values()), default=0), 1)
        data["peak_mb_by_phase"] = {k: round(p.peak_mb, 1) for k, p in self.phases.items()}
        data["generate_s"] = round(self.generate_s, 2)
        data["ok"] = all(p.ok for p in self.phases.values()) and len(self.phases) == len(PHASES)
        return data

    @property
    def within_target(self) -> bool:
        return all(
            p.ok and p.seconds < TARGET_S and p.peak_mb < TARGET_MB for p in self.phases.values()
        )


def run_phase(name: str, argv: list[str], log_dir: Path) -> PhaseResult:
    """Run ``argv`` as a child; its wall time and its own peak RSS (``os.wait4``)."""
    import subprocess

    log = log_dir / f"{name}.log"
    with log.open("w", encoding="utf-8") as handle:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=handle, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait
    tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
    # ru_maxrss is in kilobytes on Linux
    cpu = usage.ru_utime + usage.ru_stime
    return PhaseResult(name, seconds, cpu, usage.ru_maxrss / 1024, proc.returncode == 0, tail)


def phase_commands(work: Path, n: int) -> dict[str, list[str]]:
    raw, tasks, split = work / "webgym_rows.jsonl", work / "tasks.jsonl", work / "split"
    cli = _module("webdojo.cli")
    return {
        "import": import_command(raw, tasks),
        "split": [*cli, "tasks", "split", str(tasks), "--out", str(split), "--json"],
        "stats": [
            *cli,
            "tasks",
            "stats",
            str(tasks),
            "--html",
            str(work / "stats.html"),
            "--json",
        ],
        "sample": [
            *cli,
            "tasks",
            "sample",
            str(split / "train.jsonl"),
            "--n",
            str(max(1, n // 10)),
            "--ratio",
            "2:5:3",
            "--caps",
            "10,20,30",
            "--state",
            str(work / "sample_state.json"),
            "--out",
            str(work / "sample.jsonl"),
            "--json",
        ],
    }


def run_tasks_bench(
    n: int = 300_000, work: Path | None = None, log: Any = None, seed: int = 0
) -> TasksBenchResult:
    """Generate ``n`` rows in ``work`` (a temporary directory when None) and run the phases."""
    with tempfile.TemporaryDirectory(prefix="webdojo-tasks-bench-") as tmp:
        work = Path(work) if work is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        write_webgym_rows(work / "webgym_rows.jsonl", n, seed)
        result = TasksBenchResult(n=n, generate_s=time.perf_counter() - started)
        if log:
            log(f"generated {n:,} WebGym rows in {result.generate_s:.1f} s")
        for name, argv in phase_commands(work, n).items():
            phase = run_phase(name, argv, work)
            result.phases[name] = phase
            if log:
                log(
                    f"{name}: {phase.seconds:.1f} s ({phase.cpu_s:.1f} s CPU), "
                    f"peak {phase.peak_mb:.0f} MB"
                    + ("" if phase.ok else f" FAILED:\n{phase.output_tail}")
                )
            if not phase.ok:
                break
        return result


def tasks_bench_table(result: TasksBenchResult) -> Any:
    from rich.table import Table

    table = Table(title=f"Task-set commands on {result.n:,} tasks", title_justify="left")
    for col, justify in (
        ("phase", "left"),
        ("time", "right"),
        ("CPU time", "right"),
        ("peak memory", "right"),
        ("within 30 s / 2 GB", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for name, p in result.phases.items():
        label = name
        fits = p.ok and p.seconds < TARGET_S and p.peak_mb < TARGET_MB
        status = "yes" if fits else ("[red]failed[/red]" if not p.ok else "[red]no[/red]")
        table.add_row(
            label, f"{p.seconds:.1f} s", f"{p.cpu_s:.1f} s", f"{p.peak_mb:,.0f} MB", status
        )
    return table
