"""``LocalPool``: N worker processes on this machine, each with one Chromium (WebGym's
master/worker layout; the server process is the master).

Placement, deadlines, the heartbeat, ``SessionLost`` and restarts are ``ManagedPool``'s (see
there); this module starts the workers, as ``WorkerProcess``es. What processes add:

* Death is seen at once: a worker whose process ends (killed, crashed, out of memory) closes
  its socket, which fails the calls in flight on it and reports the death to the pool.
* A dead Chromium inside a live worker is the worker's business: its sessions raise
  ``BrowserClosed`` and the worker launches a new browser.
* Health looks closer than the heartbeat: a browser reported alive whose process has died
  since (same machine: a read of /proc) is reported dead at once, as its sessions' steps are.
* Each worker runs with a ``TMPDIR`` of its own, removed once it has exited, however it
  ended; at start, those of servers that were killed are removed (``scratch``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webdojo.background import Background
from webdojo.browser.host import process_running
from webdojo.server.pool.base import WorkerStatus
from webdojo.server.pool.managed import ManagedPool, ManagedPoolConfig, Slot
from webdojo.server.worker import scratch
from webdojo.server.worker.process import WorkerProcess


@dataclass(frozen=True)
class LocalPoolConfig(ManagedPoolConfig):
    """``workers`` worker processes; every field is ``ManagedPoolConfig``'s."""

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"a LocalPool needs at least 1 worker, not {self.workers}")


class LocalPool(ManagedPool[WorkerProcess]):
    """``LocalPool(LocalPoolConfig(workers=4))`` or ``LocalPool(workers=4, worker=WorkerConfig())``
    (keywords override the fields of ``config``)."""

    config: LocalPoolConfig

    def __init__(self, config: LocalPoolConfig | None = None, **overrides: Any) -> None:
        super().__init__(dataclasses.replace(config or LocalPoolConfig(), **overrides), "local")
        self._cleanups = Background()  # scratch directories removed once unused

    async def start(self) -> None:
        scratch.sweep_stale(self._cleanups)  # left by a server that was killed
        await super().start()

    async def aclose(self) -> None:
        await super().aclose()
        await self._cleanups.wait()

    def _status(self, slot: Slot[WorkerProcess]) -> WorkerStatus:
        """Between heartbeats, a browser dies unseen: check its process now (the worker
        reports it as (pid, create time), so a reused pid is not taken for it)."""
        found = super()._status(slot)
        process = slot.last_stats.get("browser_process")
        if found.browser == "alive" and process and not process_running(*process):
            return dataclasses.replace(found, browser="dead")
        return found

    async def _spawn_worker(self, slot: Slot[WorkerProcess], generation: int) -> WorkerProcess:
        tmp = scratch.new_dir(slot.name)
        try:
            worker = await WorkerProcess.spawn(
                slot.name,
                generation,
                self.config.worker,
                self._worker_died,
                self.config.start_timeout_s,
                env={"TMPDIR": str(tmp)},
            )
        except BaseException:
            self._cleanups.spawn(scratch.remove_when_unused(tmp), quiet=True)
            raise
        self._cleanups.spawn(self._remove_after(worker, tmp), quiet=True)
        return worker

    async def _remove_after(self, worker: WorkerProcess, tmp: Path) -> None:
        await worker.exited()
        await scratch.remove_when_unused(tmp)
