"""``webdojo bench memory``: PSS per stepping session of a ``webdojo serve`` process tree.

For each session count (default 8 and 32) a fresh server starts with the built-in sites; its
idle memory is read once its warm pool and browser are ready. Then that many sessions open on
built-in tasks (one site after another) and step at once, each scrolling its page down and
up with a JPEG screenshot per step, while a thread reads the PSS of every process in the
server's tree (the server, its workers, each Chromium and its renderers, GPU and utility
processes). PSS, not RSS: Chromium's processes share the binary and shared memory, which RSS
counts once per process.

Two figures per count: ``per_session_mb``, the tree's median PSS while stepping divided by
the sessions (what a machine must hold per session, fixed costs shared out), and
``marginal_mb``, the same minus the idle tree (what one more session costs). ``by_kind`` says
which processes hold it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import psutil

from webdojo.actions import Scroll
from webdojo.bench.percentiles import percentile
from webdojo.bench.rollout_legs import SHOT
from webdojo.errors import ConfigError
from webdojo.rollout.http_env import HttpEnv, HttpSession
from webdojo.server.child_process import ServerProcess
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task

TARGET_MB = 120.0  # issue 32: PSS per stepping session at 8 sessions
MB = 2**20
# Chromium names its child processes with --type=...; the main process has none.
KINDS = ("renderer", "gpu-process", "utility", "zygote")
SCROLLS = (Scroll(direction="down", amount=400), Scroll(direction="up", amount=400))


@dataclass
class CountResult:
    sessions: int
    idle_mb: float = 0.0  # the tree before any session: server, workers, warm pool, browsers
    stepping_mb: float = 0.0  # median of the samples while every session steps
    stepping_max_mb: float = 0.0
    samples: int = 0
    steps: int = 0
    step_p50_ms: float | None = None
    by_kind: dict[str, float] = field(default_factory=dict)  # median sample, per process kind
    processes: dict[str, int] = field(default_factory=dict)  # how many of each kind

    @property
    def per_session_mb(self) -> float:
        return round(self.stepping_mb / self.sessions, 1)

    @property
    def marginal_mb(self) -> float:
        return round((self.stepping_mb - self.idle_mb) / self.sessions, 1)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(per_session_mb=self.per_session_mb, marginal_mb=self.marginal_mb)
        return out


@dataclass
class MemoryBenchResult:
    counts: list[CountResult]
    window_s: float
    server_args: list[str]
    target_mb: float = TARGET_MB

    def to_json(self) -> dict[str, Any]:
        return {
            "counts": [c.to_json() for c in self.counts],
            "window_s": self.window_s,
            "server_args": self.server_args,
            "target_mb": self.target_mb,
        }


def process_kind(proc: psutil.Process) -> str:
    """``python`` (the server, a worker), ``driver`` (Playwright's node process), ``browser``
    (a Chromium main process) or the Chromium ``--type`` of a child process."""
    try:
        cmdline = proc.cmdline()
    except psutil.Error:
        return "gone"
    program = cmdline[0].rsplit("/", 1)[-1] if cmdline else "python"
    if "python" in program:
        return "python"
    if program == "node":
        return "driver"  # Playwright's driver, between the Python client and Chromium
    for arg in cmdline[1:]:
        if arg.startswith("--type="):
            kind = arg.removeprefix("--type=")
            return kind if kind in KINDS else "other"
    return "browser"


def tree_pss(root_pid: int) -> dict[str, tuple[float, int]]:
    """MB of PSS and the process count per kind, over ``root_pid`` and its descendants."""
    try:
        root = psutil.Process(root_pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return {}
    kinds: dict[str, tuple[float, int]] = {}
    for proc in tree:
        with contextlib.suppress(psutil.Error):
            pss = proc.memory_full_info().pss / MB
            kind = process_kind(proc)
            mb, n = kinds.get(kind, (0.0, 0))
            kinds[kind] = (mb + pss, n + 1)
    return kinds


def total_mb(sample: dict[str, tuple[float, int]]) -> float:
    return sum(mb for mb, _ in sample.values())


class PssSampler:
    """Reads the tree's PSS in a thread, one sample after another, until stopped (a reading
    of a loaded browser takes the kernel 0.1-0.5 s, so it must not run on the event loop)."""

    def __init__(self, root_pid: int, read: Callable[[int], dict[str, tuple[float, int]]]) -> None:
        self.root_pid = root_pid
        self.read = read
        self.samples: list[dict[str, tuple[float, int]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(self.read(self.root_pid))
            self._stop.wait(0.5)

    def __enter__(self) -> PssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def parse_counts(text: str) -> list[int]:
    """``--sessions``: comma-separated counts, each at least 1."""
    try:
        counts = [int(n) for n in text.split(",") if n.strip()]
    except ValueError:
        raise ConfigError(f"--sessions {text!r}: integers like 8,32") from None
    if not counts or min(counts) < 1:
        raise ConfigError(f"--sessions {text!r}: at least one count, each at least 1")
    return counts


def one_task_per_site(tasks: Sequence[Task]) -> list[Task]:
    seen: dict[str, Task] = {}
    for task in tasks:
        seen.setdefault(task.id.split(".", 1)[0], task)
    return list(seen.values())


def summarize(result: CountResult, samples: list[dict[str, tuple[float, int]]]) -> None:
    if not samples:
        return
    totals = [total_mb(s) for s in samples]
    # the median sample (the upper one of an even count), so that by_kind adds up to it
    middle = samples[sorted(range(len(totals)), key=totals.__getitem__)[len(totals) // 2]]
    result.stepping_mb = round(total_mb(middle), 1)
    result.stepping_max_mb = round(max(totals), 1)
    result.samples = len(samples)
    result.by_kind = {k: round(mb, 1) for k, (mb, _) in sorted(middle.items())}
    result.processes = {k: n for k, (_, n) in sorted(middle.items())}


async def _step_until(
    session: HttpSession, begin: float, end: float, durations: list[float]
) -> None:
    """Step until ``end``; the steps that start from ``begin`` on are timed."""
    for action in itertools.cycle(SCROLLS):
        if (started := time.perf_counter()) >= end:
            return
        await session.step(action, SHOT)
        if started >= begin:
            durations.append(time.perf_counter() - started)


async def _start_url(env: HttpEnv, task: Task) -> str:
    """Where the server starts ``task`` (its sites' address): the bench's sessions open that
    URL, because a task's session ends at its step cap."""
    session, observation = await env.open(task, SHOT)
    await session.aclose()
    return observation.url


async def _stepping(
    url: str, sessions: int, tasks: list[Task], warmup_s: float, window_s: float, pid: int
) -> tuple[CountResult, list[dict[str, tuple[float, int]]]]:
    result = CountResult(sessions)
    async with HttpEnv(url, max_connections=sessions + 4) as env:
        starts = [await _start_url(env, task) for task in tasks]
        picks = [starts[i % len(starts)] for i in range(sessions)]
        opened = await asyncio.gather(*(env.open_url(u, SHOT) for u in picks))
        try:
            durations: list[float] = []
            begin = time.perf_counter() + warmup_s
            steppers = [_step_until(s, begin, begin + window_s, durations) for s, _ in opened]
            run = asyncio.gather(*steppers)
            await asyncio.sleep(warmup_s)  # every session has stepped before the window
            with PssSampler(pid, tree_pss) as sampler:
                await run
            result.steps = len(durations)
            p50 = percentile(durations, 50)
            result.step_p50_ms = None if p50 is None else round(p50 * 1000, 1)
            return result, sampler.samples
        finally:
            await asyncio.gather(*(s.aclose() for s, _ in opened), return_exceptions=True)


def measure_count(
    sessions: int, server_args: list[str], warmup_s: float, window_s: float, settle_s: float
) -> CountResult:
    tasks = one_task_per_site(load_spec("builtin").tasks)
    args = ["--tasks", "builtin", "--max-sessions", str(sessions), *server_args]
    with ServerProcess(args) as server:
        time.sleep(settle_s)  # the warm pool and (with --spare-browser) the spare get ready
        idle = [total_mb(tree_pss(server.pid)) for _ in range(3)]
        result, samples = asyncio.run(
            _stepping(server.url, sessions, tasks, warmup_s, window_s, server.pid)
        )
        result.idle_mb = round(statistics.median(idle), 1)
    summarize(result, samples)
    return result


def run_memory_bench(
    counts: Sequence[int] = (8, 32),
    *,
    server_args: Sequence[str] = (),
    warmup_s: float = 5.0,
    window_s: float = 20.0,
    settle_s: float = 3.0,
    say: Callable[[str], None] = lambda _: None,
) -> MemoryBenchResult:
    result = MemoryBenchResult([], window_s, list(server_args))
    for sessions in counts:
        say(f"{sessions} sessions stepping for {window_s:g} s")
        result.counts.append(
            measure_count(sessions, list(server_args), warmup_s, window_s, settle_s)
        )
    return result


def memory_table(result: MemoryBenchResult) -> Any:
    from rich.table import Table

    title = f"PSS of the server's process tree, MB (target {result.target_mb:g} per session)"
    table = Table(title=title)
    table.add_column("")
    for c in result.counts:
        table.add_column(f"{c.sessions} sessions", justify="right")
    rows: dict[str, list[Any]] = {
        "idle (before any session)": [c.idle_mb for c in result.counts],
        "stepping, median": [c.stepping_mb for c in result.counts],
        "stepping, max": [c.stepping_max_mb for c in result.counts],
        "per session": [c.per_session_mb for c in result.counts],
        "marginal (stepping - idle) / sessions": [c.marginal_mb for c in result.counts],
    }
    kinds = sorted({k for c in result.counts for k in c.by_kind})
    for kind in kinds:
        rows[f"  {kind} (processes)"] = [
            f"{c.by_kind.get(kind, 0):g} ({c.processes.get(kind, 0)})" for c in result.counts
        ]
    rows["step p50, ms"] = [c.step_p50_ms for c in result.counts]
    for name, values in rows.items():
        table.add_row(name, *(f"{v:g}" if isinstance(v, float) else str(v) for v in values))
    return table
