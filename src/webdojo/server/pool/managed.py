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
* Retirement (``max_worker_sessions``, 250 by default, staggered at first: ``retirement.py``):
  a worker that has created that many sessions is replaced as a dead one is, but it is not
  killed: its sessions run to their end on it while a new worker takes new ones, and it stops
  once the last of them closes. No session is lost.

A slot's lifecycle (``SlotState``): STARTING -> READY -> DEAD or RETIRING -> READY ... ->
CLOSED. Slots and their workers (``Generation``) are in ``slots.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from abc import abstractmethod
from typing import Any, ClassVar, Generic

from webdojo.actions import Action
from webdojo.background import Background
from webdojo.browser.options import SessionOptions
from webdojo.errors import BrowserClosed, InfraError, SessionLost, UnknownSession, WebdojoError
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server.pool.base import Pool, PoolStats, WorkerStatus
from webdojo.server.pool.retirement import retire_after
from webdojo.server.pool.slots import (
    Generation,
    H,
    ManagedPoolConfig,
    Placement,
    Slot,
    SlotState,
    status,
)
from webdojo.server.worker.handle import WorkerGone, WorkerHandle, WorkerTimeout
from webdojo.server.worker.queues import Op

_log = logging.getLogger(__name__)

__all__ = ["ManagedPool", "ManagedPoolConfig", "Slot"]


class ManagedPool(Pool, Generic[H]):
    """The pool logic; subclasses say how a worker starts (``_spawn_worker``)."""

    config: ManagedPoolConfig
    worker_kind: ClassVar[str] = "worker"  # how errors name the workers

    def __init__(self, config: ManagedPoolConfig, prefix: str) -> None:
        self.config = config
        self._slots: list[Slot[H]] = [Slot(i, f"{prefix}-{i}") for i in range(config.workers)]
        self._placements: dict[str, Placement[H]] = {}
        self._restarts = 0
        self._retired = 0
        self._heartbeat: asyncio.Task[None] | None = None
        self._closing = False
        self._orphans = Background()  # sessions closed for callers who went away
        self._stopping = Background()  # retired workers stopped once their sessions closed

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
        """Stop every worker (its browser first), the draining ones too."""
        self._closing = True
        tasks = [t for t in [self._heartbeat, *(s.restarting for s in self._slots)] if t]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(self._stop(slot) for slot in self._slots), return_exceptions=True)
        await self._stopping.wait()
        self._placements.clear()

    async def _spawn(self, slot: Slot[H]) -> None:
        number = slot.generation + 1
        handle = await self._spawn_worker(slot, number)
        if self._closing:
            await handle.stop()
            return
        slot.current, slot.generation = Generation(handle), number
        slot.last_stats = {}
        slot.state = SlotState.READY

    async def _stop(self, slot: Slot[H]) -> None:
        workers = [g for g in [slot.current, *slot.retired] if g is not None]
        slot.current, slot.retired = None, []
        slot.state = SlotState.CLOSED
        for worker in workers:
            worker.gone = True
        await asyncio.gather(*(w.handle.stop() for w in workers), return_exceptions=True)

    def _worker_died(self, handle: WorkerHandle) -> None:
        """For handles that see their own death (a process whose socket closed)."""
        for slot in self._slots:
            for worker in [slot.current, *slot.retired]:
                if worker is not None and worker.handle is handle:
                    self._lost(slot, worker, "died")
                    return

    def _lost(self, slot: Slot[H], worker: Generation[H], why: str) -> None:
        """``worker`` of ``slot`` died or hangs: kill it and forget its sessions; if it was
        the slot's current worker, start a replacement."""
        if worker.gone:
            return  # already handled
        retired = worker is not slot.current
        _log.warning(
            "worker %s (%s) %s with %d sessions; %s",
            slot.name,
            worker.handle.label,
            why,
            len(worker.sessions),
            "it was draining" if retired else "replacing it",
        )
        worker.gone = True
        worker.handle.kill()
        worker.sessions = set()  # their placements name a gone worker: SessionLost
        if retired:
            if worker in slot.retired:
                slot.retired.remove(worker)
            return
        slot.state = SlotState.DEAD
        young = time.monotonic() - worker.started_at < self.config.young_s
        slot.failures = slot.failures + 1 if young else 0
        self._replace(slot)

    def _retire(self, slot: Slot[H]) -> None:
        """The slot's worker has served its share: a new one takes new sessions, and this
        one stops once its own sessions have closed."""
        worker = slot.current
        assert worker is not None
        _log.info(
            "worker %s (%s) retires after %d sessions",
            slot.name,
            worker.handle.label,
            worker.served,
        )
        slot.retired.append(worker)
        slot.current, slot.state = None, SlotState.RETIRING
        slot.failures = 0
        self._retired += 1
        self._replace(slot)
        self._stop_if_drained(slot, worker)

    def _replace(self, slot: Slot[H]) -> None:
        if not self._closing and (slot.restarting is None or slot.restarting.done()):
            slot.restarting = asyncio.create_task(self._restart(slot))

    def _stop_if_drained(self, slot: Slot[H], worker: Generation[H]) -> None:
        if worker in slot.retired and worker.idle():
            slot.retired.remove(worker)
            worker.gone = True
            self._stopping.spawn(worker.handle.stop(), quiet=True)

    async def _restart(self, slot: Slot[H]) -> None:
        planned = slot.state is SlotState.RETIRING  # not a restart: nothing failed
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
            self._restarts += 0 if planned else 1
            return

    async def _beat(self) -> None:
        """Fetch each worker's stats (queue depths for ``stats()``); find dead and hung ones."""
        while True:
            await asyncio.sleep(self.config.heartbeat_interval_s)
            live = [(s, s.current) for s in self._slots if s.alive and s.current is not None]
            await asyncio.gather(*(self._poll(slot, worker) for slot, worker in live))

    async def _poll(self, slot: Slot[H], worker: Generation[H]) -> None:
        try:
            stats = await worker.handle.call("stats", timeout=self.config.heartbeat_timeout_s)
        except WorkerTimeout:
            self._lost(slot, worker, "did not answer its heartbeat")
        except WorkerGone:
            self._lost(slot, worker, "died")
        except WebdojoError as exc:
            _log.warning("heartbeat of worker %s failed: %s", slot.name, exc)
        else:
            if slot.current is worker:  # not a replaced worker's late answer
                slot.last_stats = stats

    # --- operations ---------------------------------------------------------------------------

    async def create(
        self, start_url: str, session: SessionOptions, observation: ObservationOptions
    ) -> tuple[str, str, Observation]:
        slot = await self._place()
        assert slot.current is not None
        placement = Placement(slot, slot.current, session)
        worker = placement.worker
        worker.creating += 1
        call = asyncio.ensure_future(
            self._call(placement, "create", start_url, session, observation)
        )
        session_id: str | None = None
        try:
            session_id, first = await asyncio.shield(call)
        except asyncio.CancelledError:  # our caller gave up; the worker may still succeed
            call.add_done_callback(lambda done: self._close_orphan(placement, done))
            raise
        finally:
            worker.creating -= 1
            if session_id is not None and not worker.gone:
                self._placements[session_id] = placement
                worker.sessions.add(session_id)
                worker.served += 1
            self._stop_if_drained(slot, worker)
        if session_id not in self._placements:  # its worker died as it answered
            raise SessionLost(f"worker {slot.name} died as the session was created")
        config = self.config
        limit = retire_after(
            config.max_worker_sessions, slot.index, config.workers, slot.generation
        )
        if limit and worker.served >= limit and worker is slot.current and slot.alive:
            self._retire(slot)
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
        placement.worker.sessions.discard(session_id)
        try:
            with contextlib.suppress(SessionLost):
                await self._call(placement, "close", session_id)
        finally:
            self._stop_if_drained(placement.slot, placement.worker)

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
            sessions=sum(s.sessions() for s in self._slots),
            restarts=self._restarts,
            retired=self._retired,
            queue_depth=depth,
            sessions_by_worker={s.name: s.sessions() for s in self._slots},
            by_worker={s.name: self._status(s) for s in self._slots},
        )

    def _status(self, slot: Slot[H]) -> WorkerStatus:
        """A worker as health reports it: as of its last heartbeat (a pool that can look
        closer, cheaply, says more)."""
        return status(slot)

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

    def _close_orphan(self, placement: Placement[H], done: asyncio.Future[Any]) -> None:
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

    def _placement(self, session_id: str) -> Placement[H]:
        placement = self._placements.get(session_id)
        if placement is None:
            raise UnknownSession(f"no session {session_id!r}")
        return placement

    async def _call(self, placement: Placement[H], method: str, *args: Any) -> Any:
        slot, worker = placement.slot, placement.worker
        if worker.gone:
            raise SessionLost(f"worker {slot.name} died; the session is gone", cause="worker_died")
        timeout = self.config.worker.deadline_s(method, placement.options)
        timeout += self.config.rpc_margin_s
        try:
            return await worker.handle.call(method, *args, timeout=timeout)
        except BrowserClosed as exc:  # the worker lives on and relaunches its browser
            if method == "create":
                raise
            if method == "close":
                return None  # the context went with its browser
            raise SessionLost(
                f"the browser hosting this session died: {exc.message}", cause="browser_closed"
            ) from exc
        except WorkerGone as exc:
            self._lost(slot, worker, "died")
            raise SessionLost(
                f"worker {slot.name} died during {method}", cause="worker_died"
            ) from exc
        except WorkerTimeout as exc:
            self._lost(slot, worker, f"did not answer {method} within {timeout:g} s")
            raise SessionLost(
                f"worker {slot.name} did not answer {method} in time; it was replaced"
            ) from exc
