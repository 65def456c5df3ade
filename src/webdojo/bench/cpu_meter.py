"""CPU utilization of this process tree (Chromium, server and worker processes included) and
of the whole machine, over a measured interval.

Browsers start and end renderer processes all the time, so the tree is sampled in a thread
(every ``interval_s``) and each process's last-seen CPU time (user + system) is kept after it
ends. Reaped children's times (``children_user``) are left out on purpose: they would count a
renderer twice, once as itself and once in the zygote that reaped it. What a process burns in
its last ``interval_s``, or a process that lives less than that, is missed: a small
undercount, never an overcount.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import psutil


@dataclass(frozen=True)
class CpuUsage:
    wall_s: float
    tree_cpu_s: float  # CPU seconds used by this process and all its descendants
    tree_util: float  # tree_cpu_s / (wall_s * cores): 1.0 = every core busy with our work
    system_util: float  # the machine's busy fraction (other users' work included)
    cores: int

    def to_json(self) -> dict[str, float]:
        return {
            "tree_cpu_s": round(self.tree_cpu_s, 2),
            "tree_util": round(self.tree_util, 3),
            "system_util": round(self.system_util, 3),
        }


def _total(times: Any) -> float:
    return float(times.user + times.system)


class CpuMeter:
    """``with CpuMeter() as meter: ...``; then ``meter.usage``."""

    def __init__(self, interval_s: float = 0.25) -> None:
        self.interval_s = interval_s
        self.cores = psutil.cpu_count() or 1
        self._root = psutil.Process(os.getpid())
        self._start: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-meter", daemon=True)
        self._t0 = 0.0
        self._sys0: Any = None
        self.usage: CpuUsage | None = None

    def _sample(self) -> dict[int, float]:
        seen: dict[int, float] = {}
        procs = [self._root]
        with contextlib.suppress(psutil.Error):
            procs += self._root.children(recursive=True)
        for proc in procs:
            try:
                seen[proc.pid] = _total(proc.cpu_times())
            except psutil.Error:
                continue  # it ended between listing and reading
        return seen

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._last.update(self._sample())

    def __enter__(self) -> CpuMeter:
        self._start = self._sample()
        self._last = dict(self._start)
        self._sys0 = psutil.cpu_times()
        self._t0 = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._last.update(self._sample())
        wall = time.perf_counter() - self._t0
        used = sum(cpu - self._start.get(pid, 0.0) for pid, cpu in self._last.items())
        self.usage = CpuUsage(
            wall_s=wall,
            tree_cpu_s=used,
            tree_util=used / (wall * self.cores) if wall > 0 else 0.0,
            system_util=_system_busy(self._sys0, psutil.cpu_times()),
            cores=self.cores,
        )


def _system_busy(before: Any, after: Any) -> float:
    fields = ("idle", "iowait")
    total = sum(getattr(after, f) - getattr(before, f) for f in after._fields)
    idle = sum(getattr(after, f, 0.0) - getattr(before, f, 0.0) for f in fields)
    return 1 - idle / total if total > 0 else 0.0
