"""``LocalPool``: N worker processes on this machine, each with one Chromium (WebGym's
master/worker layout; the server process is the master).

* Placement: a new session goes to the live worker with the fewest sessions (creates in
  flight included), and sticks to it.
* Death: a worker whose process ends (killed, crashed, out of memory) is seen at once (its
  socket closes). Calls in flight on it and every later call on its sessions raise
  ``SessionLost`` (retryable); the pool starts a new worker in its slot (``restarts``), with a
  backoff when workers keep dying young. The pool itself never goes down with a worker.
* Hangs: every call has a deadline a bit above the worker's own (``WorkerConfig.deadline_s`` +
  ``rpc_margin_s``), and a heartbeat (``stats`` every ``heartbeat_interval_s``) must answer
  within ``heartbeat_timeout_s``. A worker that misses either is killed and handled as dead:
  its event loop is stuck, so its sessions are as good as lost.
* A dead Chromium inside a live worker is the worker's business: its sessions raise
  ``BrowserClosed`` and the worker launches a new browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.errors import InfraError, SessionLost, UnknownSession, WebdojoError
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server import ipc
from webdojo.server.pool import Pool, PoolStats
from webdojo.server.worker_config import RPC_MARGIN_S, WorkerConfig
from webdojo.server.worker_process import WorkerProcess
from webdojo.server.worker_queues import Op

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LocalPoolConfig:
    workers: int = 2  # worker processes, one Chromium each
    worker: WorkerConfig = field(default_factory=WorkerConfig)  # what each worker runs
    start_timeout_s: float = 120.0  # a worker must launch its browser and report ready in this
    rpc_margin_s: float = RPC_MARGIN_S  # added to a worker's own deadline for each call
    heartbeat_interval_s: float = 1.0  # how often each worker's stats are fetched
    heartbeat_timeout_s: float = 30.0  # a worker silent this long is hung: killed, restarted
    restart_backoff_s: float = 0.5  # first delay before restarting a worker that died young
    max_restart_backoff_s: float = 30.0
    young_s: float = 10.0  # a worker that dies sooner than this after starting "died young"

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"a LocalPool needs at least 1 worker, not {self.workers}")


@dataclass
class _Slot:
    """A worker position; its process is replaced when it dies."""

    name: str
    process: WorkerProcess | None = None
    generation: int = 0
    sessions: set[str] = field(default_factory=set)  # sessions of the current process
    creating: int = 0  # creates in flight (placement counts them)
    started_at: float = 0.0
    failures: int = 0  # consecutive young deaths or failed starts (restart backoff)
    restarting: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.alive

    def load(self) -> int:
        return len(self.sessions) + self.creating


@dataclass(frozen=True)
class _Placement:
    slot: _Slot
    generation: int
    options: SessionOptions


class LocalPool(Pool):
    """``LocalPool(LocalPoolConfig(workers=4))`` or ``LocalPool(workers=4, worker=WorkerConfig())``
    (keywords override the fields of ``config``)."""

    def __init__(self, config: LocalPoolConfig | None = None, **overrides: Any) -> None:
        self.config = dataclasses.replace(config or LocalPoolConfig(), **overrides)
        self._slots = [_Slot(f"local-{i}") for i in range(self.config.workers)]
        self._placements: dict[str, _Placement] = {}
        self._restarts = 0
        self._heartbeat: asyncio.Task[None] | None = None
        self._closing = False
        self._orphans: set[asyncio.Future[Any]] = set()

    # --- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every worker (in parallel); raises if any fails to start."""
        results = await asyncio.gather(
            *(self._spawn(slot) for slot in self._slots), return_exceptions=True
        )
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            await self.aclose()
            raise errors[0]
        self._heartbeat = asyncio.create_task(self._beat())

    async def aclose(self) -> None:
        self._closing = True
        tasks = [t for t in [self._heartbeat, *(s.restarting for s in self._slots)] if t]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(
            *(s.process.stop() for s in self._slots if s.process), return_exceptions=True
        )
        self._placements.clear()

    async def _spawn(self, slot: _Slot) -> None:
        process = await WorkerProcess.spawn(
            slot.name,
            slot.generation + 1,
            self.config.worker,
            self._on_death,
            self.config.start_timeout_s,
        )
        if self._closing:
            await process.stop()
            return
        slot.process, slot.generation = process, process.generation
        slot.sessions = set()
        slot.started_at = time.monotonic()

    def _on_death(self, process: WorkerProcess) -> None:
        slot = next((s for s in self._slots if s.process is process), None)
        if slot is None or self._closing:
            return
        _log.warning(
            "worker %s (pid %s) died with %d sessions; restarting it",
            slot.name,
            process.pid,
            len(slot.sessions),
        )
        slot.sessions = set()  # their placements now name a dead generation: SessionLost
        young = time.monotonic() - slot.started_at < self.config.young_s
        slot.failures = slot.failures + 1 if young else 0
        if slot.restarting is None or slot.restarting.done():
            slot.restarting = asyncio.create_task(self._restart(slot))

    async def _restart(self, slot: _Slot) -> None:
        while not self._closing:
            delay = 0.0
            if slot.failures:
                delay = self.config.restart_backoff_s * 2 ** (slot.failures - 1)
            await asyncio.sleep(min(delay, self.config.max_restart_backoff_s))
            try:
                await self._spawn(slot)
            except Exception as exc:  # keep trying: capacity must come back
                _log.warning("worker %s did not restart: %s", slot.name, exc)
                slot.failures += 1
                continue
            self._restarts += 1
            return

    async def _beat(self) -> None:
        """Fetch each worker's stats (queue depths for ``stats()``); kill the silent ones."""
        while True:
            await asyncio.sleep(self.config.heartbeat_interval_s)
            live = [s.process for s in self._slots if s.process and s.process.alive]
            await asyncio.gather(*(self._poll(p) for p in live))

    async def _poll(self, process: WorkerProcess) -> None:
        try:
            process.last_stats = await process.call(
                "stats", timeout=self.config.heartbeat_timeout_s
            )
        except ipc.CallTimeout:
            _log.warning(
                "worker %s (pid %s) is not answering; killing it", process.name, process.pid
            )
            process.kill()  # hung: its death is then handled like any other
        except (ipc.ChannelClosed, WebdojoError):
            pass

    # --- operations ---------------------------------------------------------------------------

    async def create(
        self, start_url: str, session: SessionOptions, observation: ObservationOptions
    ) -> tuple[str, str, Observation]:
        slot = await self._place()
        generation = slot.generation
        placement = _Placement(slot, generation, session)
        slot.creating += 1
        call = asyncio.ensure_future(
            self._call(placement, "create", start_url, session, observation)
        )
        try:
            session_id, first = await asyncio.shield(call)
        except asyncio.CancelledError:  # our caller gave up; the worker may still succeed
            call.add_done_callback(lambda done: self._close_orphan(placement, done))
            raise
        finally:
            slot.creating -= 1
        if slot.generation != generation:  # died just after answering
            raise SessionLost(f"worker {slot.name} died as the session was created")
        self._placements[session_id] = placement
        slot.sessions.add(session_id)
        return session_id, slot.name, first

    async def step(
        self, session_id: str, action: Action, observation: ObservationOptions
    ) -> Observation:
        placement = self._placement(session_id)
        result: Observation = await self._call(placement, "step", session_id, action, observation)
        return result

    async def observe(self, session_id: str, observation: ObservationOptions) -> Observation:
        placement = self._placement(session_id)
        result: Observation = await self._call(placement, "observe", session_id, observation)
        return result

    async def final_state(self, session_id: str, answer: str | None) -> FinalState:
        placement = self._placement(session_id)
        result: FinalState = await self._call(placement, "final_state", session_id, answer)
        return result

    async def close(self, session_id: str) -> None:
        """Close a session. A session whose worker died is simply forgotten (it is gone)."""
        placement = self._placements.pop(session_id, None)
        if placement is None:
            raise UnknownSession(f"no session {session_id!r}")
        placement.slot.sessions.discard(session_id)
        with contextlib.suppress(SessionLost):
            await self._call(placement, "close", session_id)

    def stats(self) -> PoolStats:
        alive = [s for s in self._slots if s.alive]
        depth = dict.fromkeys((op.value for op in Op), 0)
        for slot in alive:
            queued = slot.process.last_stats.get("queue_depth", {})  # type: ignore[union-attr]
            for op, n in queued.items():
                depth[op] = depth.get(op, 0) + n
        return PoolStats(
            workers=len(self._slots),
            workers_alive=len(alive),
            sessions=sum(len(s.sessions) for s in alive),
            restarts=self._restarts,
            queue_depth=depth,
            sessions_by_worker={s.name: len(s.sessions) for s in self._slots},
        )

    async def worker_stats(self) -> dict[str, dict[str, Any]]:
        """Fresh ``Worker.stats()`` of each live worker (pid, browser pids, warm hits...)."""
        live = [s for s in self._slots if s.alive]
        answers = await asyncio.gather(
            *(s.process.call("stats", timeout=self.config.heartbeat_timeout_s) for s in live),  # type: ignore[union-attr]
            return_exceptions=True,
        )
        return {s.name: a for s, a in zip(live, answers, strict=True) if isinstance(a, dict)}

    # --- helpers ------------------------------------------------------------------------------

    def _close_orphan(self, placement: _Placement, done: asyncio.Future[Any]) -> None:
        """A session created for a caller who went away: close it on its worker."""
        if done.cancelled() or done.exception() is not None:
            return
        session_id = done.result()[0]
        task = asyncio.ensure_future(self._call(placement, "close", session_id))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # nothing to report
        self._orphans.add(task)
        task.add_done_callback(self._orphans.discard)

    async def _place(self) -> _Slot:
        """The live worker with the fewest sessions; waits for one while none is alive."""
        deadline = time.monotonic() + self.config.start_timeout_s
        while True:
            alive = [s for s in self._slots if s.alive]
            if alive:
                return min(alive, key=_Slot.load)
            if self._closing or time.monotonic() > deadline:
                raise InfraError("no worker is alive to take a new session")
            await asyncio.sleep(0.05)

    def _placement(self, session_id: str) -> _Placement:
        placement = self._placements.get(session_id)
        if placement is None:
            raise UnknownSession(f"no session {session_id!r}")
        return placement

    async def _call(self, placement: _Placement, method: str, *args: Any) -> Any:
        slot = placement.slot
        process = slot.process
        if process is None or slot.generation != placement.generation or not process.alive:
            raise SessionLost(f"worker {slot.name} died; the session is gone")
        timeout = self.config.worker.deadline_s(method, placement.options)
        try:
            return await process.call(method, *args, timeout=timeout + self.config.rpc_margin_s)
        except ipc.ChannelClosed as exc:
            raise SessionLost(f"worker {slot.name} died during {method}") from exc
        except ipc.CallTimeout as exc:
            _log.warning("worker %s did not answer %s in time; killing it", slot.name, method)
            process.kill()
            raise SessionLost(
                f"worker {slot.name} did not answer {method} in time; it was restarted"
            ) from exc
