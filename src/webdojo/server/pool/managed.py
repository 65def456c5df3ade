"""``ManagedPool``: a pool of N workers, each one ``Worker`` (one Chromium) in another process,
reached through a ``WorkerHandle``. ``LocalPool`` (worker processes) and ``RayPool`` (Ray
actors) are this class plus how a worker is started (``_spawn_worker``).

* Slots: ``workers`` positions named ``<prefix>-<i>`` (the worker id of their sessions). A
  slot keeps its name when its worker is replaced; ``generation`` counts its workers.
* Placement: a new session goes to the live worker with the fewest sessions (creates in
  flight included), and sticks to it.
* Hangs: every call has a deadline a bit above the worker's own (``WorkerConfig.deadline_s`` +
  ``rpc_margin_s``), and a heartbeat (``stats`` every ``heartbeat_interval_s``) must answer
  within ``heartbeat_timeout_s``. A worker that misses either is killed and handled as dead:
  its event loop is stuck, so its sessions are as good as lost.
* Death: seen by the next call on the worker, by the heartbeat, or reported by the handle
  itself (``_worker_died``: a local process's socket closes at once). Calls in flight on it
  and every later call on its sessions raise ``SessionLost`` (retryable), closing one of them
  is quiet, and a new worker starts in its slot (``restarts``), with a backoff when workers
  keep dying young. The pool itself never goes down with a worker.
* Browser death: the worker lives on and launches another Chromium; the dead browser's
  sessions raise ``SessionLost`` too.

A slot's lifecycle (``SlotState``): STARTING -> READY -> DEAD -> READY ... -> CLOSED.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from abc import abstractmethod
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, TypeVar

from webdojo.actions import Action
from webdojo.background import Background
from webdojo.browser.options import SessionOptions
from webdojo.errors import BrowserClosed, InfraError, SessionLost, UnknownSession, WebdojoError
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server.pool.base import Pool, PoolStats, WorkerStatus
from webdojo.server.worker.config import RPC_MARGIN_S, WorkerConfig
from webdojo.server.worker.handle import WorkerGone, WorkerHandle, WorkerTimeout
from webdojo.server.worker.queues import Op

_log = logging.getLogger(__name__)

H = TypeVar("H", bound=WorkerHandle)


@dataclass(frozen=True)
class ManagedPoolConfig:
    """What every managed pool has: its workers, and how it watches and replaces them."""

    workers: int = 2  # workers (processes or actors), one Chromium each
    worker: WorkerConfig = field(default_factory=WorkerConfig)  # what each worker runs
    start_timeout_s: float = 120.0  # a worker must be placed, launch its browser and answer
    rpc_margin_s: float = RPC_MARGIN_S  # added to a worker's own deadline for each call
    heartbeat_interval_s: float = 1.0  # how often each worker's stats are fetched
    heartbeat_timeout_s: float = 30.0  # a worker silent this long is hung: killed, replaced
    restart_backoff_s: float = 0.5  # first delay before replacing a worker that died young
    max_restart_backoff_s: float = 30.0
    young_s: float = 10.0  # a worker that dies sooner than this after starting "died young"


class SlotState(StrEnum):
    STARTING = "starting"  # no worker yet (the pool is not started)
    READY = "ready"
    DEAD = "dead"  # the worker died or was killed as hung; a replacement is on the way
    CLOSED = "closed"  # the pool is closed


@dataclass
class Slot(Generic[H]):
    """A worker position; its worker is replaced when it dies."""

    index: int
    name: str  # the worker id of its sessions, kept across replacements
    state: SlotState = SlotState.STARTING
    handle: H | None = None  # the current worker
    generation: int = 0
    sessions: set[str] = field(default_factory=set)  # sessions of the current worker
    creating: int = 0  # creates in flight (placement counts them)
    started_at: float = 0.0
    failures: int = 0  # consecutive young deaths or failed starts (restart backoff)
    restarting: asyncio.Task[None] | None = None
    last_stats: dict[str, Any] = field(default_factory=dict)  # the current worker's, if any

    @property
    def alive(self) -> bool:
        return self.state is SlotState.READY

    def load(self) -> int:
        return len(self.sessions) + self.creating


@dataclass(frozen=True)
class _Placement(Generic[H]):
    slot: Slot[H]
    generation: int  # a session lives only as long as the worker that created it
    options: SessionOptions


class ManagedPool(Pool, Generic[H]):
    """The pool logic; subclasses say how a worker starts (``_spawn_worker``)."""

    config: ManagedPoolConfig
    worker_kind: ClassVar[str] = "worker"  # how errors name the workers

    def __init__(self, config: ManagedPoolConfig, prefix: str) -> None:
        self.config = config
        self._slots: list[Slot[H]] = [Slot(i, f"{prefix}-{i}") for i in range(config.workers)]
        self._placements: dict[str, _Placement[H]] = {}
        self._restarts = 0
        self._heartbeat: asyncio.Task[None] | None = None
        self._closing = False
        self._orphans = Background()  # sessions closed for callers who went away

    @abstractmethod
    async def _spawn_worker(self, slot: Slot[H], generation: int) -> H:
        """Start worker number ``generation`` of ``slot`` and return it once its browser is
        up; raise a webdojo error (leaving nothing running) if it cannot start."""

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
        """Stop every worker (its browser first)."""
        self._closing = True
        tasks = [t for t in [self._heartbeat, *(s.restarting for s in self._slots)] if t]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(self._stop(slot) for slot in self._slots), return_exceptions=True)
        self._placements.clear()

    async def _spawn(self, slot: Slot[H]) -> None:
        generation = slot.generation + 1
        handle = await self._spawn_worker(slot, generation)
        if self._closing:
            await handle.stop()
            return
        slot.handle, slot.generation, slot.sessions = handle, generation, set()
        slot.last_stats = {}
        slot.started_at = time.monotonic()
        slot.state = SlotState.READY

    async def _stop(self, slot: Slot[H]) -> None:
        handle, slot.handle = slot.handle, None
        slot.state = SlotState.CLOSED
        if handle is not None:
            await handle.stop()

    def _worker_died(self, handle: WorkerHandle) -> None:
        """For handles that see their own death (a process whose socket closed)."""
        slot = next((s for s in self._slots if s.handle is handle), None)
        if slot is not None:
            self._lost(slot, slot.generation, "died")

    def _lost(self, slot: Slot[H], generation: int, why: str) -> None:
        """The worker of ``slot`` (generation ``generation``) died or hangs: kill it, forget
        its sessions and start a replacement."""
        if slot.generation != generation or slot.state is not SlotState.READY:
            return  # already handled
        assert slot.handle is not None
        _log.warning(
            "worker %s (%s) %s with %d sessions; replacing it",
            slot.name,
            slot.handle.label,
            why,
            len(slot.sessions),
        )
        slot.state = SlotState.DEAD
        slot.handle.kill()
        slot.sessions = set()  # their placements name a dead generation: SessionLost
        young = time.monotonic() - slot.started_at < self.config.young_s
        slot.failures = slot.failures + 1 if young else 0
        if not self._closing and (slot.restarting is None or slot.restarting.done()):
            slot.restarting = asyncio.create_task(self._restart(slot))

    async def _restart(self, slot: Slot[H]) -> None:
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
        """Fetch each worker's stats (queue depths for ``stats()``); find dead and hung ones."""
        while True:
            await asyncio.sleep(self.config.heartbeat_interval_s)
            await asyncio.gather(*(self._poll(slot, handle) for slot, handle in self._live()))

    async def _poll(self, slot: Slot[H], handle: H) -> None:
        generation = slot.generation
        try:
            stats = await handle.call("stats", timeout=self.config.heartbeat_timeout_s)
        except WorkerTimeout:
            self._lost(slot, generation, "did not answer its heartbeat")
        except WorkerGone:
            self._lost(slot, generation, "died")
        except WebdojoError as exc:
            _log.warning("heartbeat of worker %s failed: %s", slot.name, exc)
        else:
            if slot.generation == generation:  # not a replaced worker's late answer
                slot.last_stats = stats

    # --- operations ---------------------------------------------------------------------------

    async def create(
        self, start_url: str, session: SessionOptions, observation: ObservationOptions
    ) -> tuple[str, str, Observation]:
        slot = await self._place()
        placement = _Placement(slot, slot.generation, session)
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
        if slot.generation != placement.generation or not slot.alive:  # died as it answered
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

    # --- reporting ----------------------------------------------------------------------------

    def stats(self) -> PoolStats:
        alive = [s for s in self._slots if s.alive]
        depth = dict.fromkeys((op.value for op in Op), 0)
        for slot in alive:
            for op, n in slot.last_stats.get("queue_depth", {}).items():
                depth[op] = depth.get(op, 0) + n
        return PoolStats(
            workers=len(self._slots),
            workers_alive=len(alive),
            sessions=sum(len(s.sessions) for s in alive),
            restarts=self._restarts,
            queue_depth=depth,
            sessions_by_worker={s.name: len(s.sessions) for s in self._slots},
            by_worker={s.name: _status(s) for s in self._slots},
        )

    async def worker_stats(self) -> dict[str, dict[str, Any]]:
        """Fresh ``Worker.stats()`` of each live worker (pid, browser pids, warm hits...)."""
        live = self._live()
        answers = await asyncio.gather(
            *(h.call("stats", timeout=self.config.heartbeat_timeout_s) for _, h in live),
            return_exceptions=True,
        )
        return {s.name: a for (s, _), a in zip(live, answers, strict=True) if isinstance(a, dict)}

    # --- helpers ------------------------------------------------------------------------------

    def _live(self) -> list[tuple[Slot[H], H]]:
        """The live slots with their workers."""
        return [(s, s.handle) for s in self._slots if s.alive and s.handle is not None]

    def _close_orphan(self, placement: _Placement[H], done: asyncio.Future[Any]) -> None:
        """A session created for a caller who went away: close it on its worker."""
        if done.cancelled() or done.exception() is not None:
            return
        session_id = done.result()[0]
        self._orphans.spawn(self._call(placement, "close", session_id), quiet=True)

    async def _place(self) -> Slot[H]:
        """The live worker with the fewest sessions; waits for one while none is alive."""
        deadline = time.monotonic() + self.config.start_timeout_s
        while True:
            alive = [s for s in self._slots if s.alive]
            if alive:
                return min(alive, key=Slot.load)
            if self._closing or time.monotonic() > deadline:
                raise InfraError(f"no {self.worker_kind} is alive to take a new session")
            await asyncio.sleep(0.05)

    def _placement(self, session_id: str) -> _Placement[H]:
        placement = self._placements.get(session_id)
        if placement is None:
            raise UnknownSession(f"no session {session_id!r}")
        return placement

    async def _call(self, placement: _Placement[H], method: str, *args: Any) -> Any:
        slot, generation, handle = placement.slot, placement.generation, placement.slot.handle
        if slot.generation != generation or not slot.alive or handle is None:
            raise SessionLost(f"worker {slot.name} died; the session is gone", cause="worker_died")
        timeout = self.config.worker.deadline_s(method, placement.options)
        timeout += self.config.rpc_margin_s
        try:
            return await handle.call(method, *args, timeout=timeout)
        except BrowserClosed as exc:  # the worker lives on and relaunches its browser
            if method == "create":
                raise
            if method == "close":
                return None  # the context went with its browser
            raise SessionLost(
                f"the browser hosting this session died: {exc.message}", cause="browser_closed"
            ) from exc
        except WorkerGone as exc:
            self._lost(slot, generation, "died")
            raise SessionLost(
                f"worker {slot.name} died during {method}", cause="worker_died"
            ) from exc
        except WorkerTimeout as exc:
            self._lost(slot, generation, f"did not answer {method} within {timeout:g} s")
            raise SessionLost(
                f"worker {slot.name} did not answer {method} in time; it was replaced"
            ) from exc


def _status(slot: Slot[Any]) -> WorkerStatus:
    """A worker's health: its slot's state, and its browser as of the last heartbeat."""
    browser = slot.last_stats.get("browser_state", "unknown") if slot.alive else "none"
    return WorkerStatus(state=slot.state.value, browser=browser, sessions=len(slot.sessions))
