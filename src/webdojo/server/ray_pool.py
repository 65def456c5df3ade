"""``RayPool``: the workers in Ray actors, spread over a Ray cluster's nodes (``serve --ray``).

The same contract as ``LocalPool``, with Ray doing what the pool cannot do alone: start a
worker on another machine. There is no cluster manager here; Ray's is used as it is.

* Actors: one async ``WorkerActor`` (``ray_actor.py``, with ``RayWorker``, the handle the
  pool calls it through) per worker, each running one ``Worker``
  (one Chromium). Each reserves ``num_cpus`` and is placed with ``scheduling_strategy``
  (``SPREAD`` by default, so that workers land on different nodes). Actors are named
  ``<pool name>-<slot>.<generation>`` and are owned by this process: they die with it.
* Placement: a new session goes to the live worker with the fewest sessions (creates in
  flight included) and sticks to it. The worker id it reports (``ray-0``...) names the slot,
  which keeps its id when its actor is replaced.
* Death: an actor that dies (``ray.kill``, a crash, its node lost) is seen by the next call
  on it or by the heartbeat (``stats`` every ``heartbeat_interval_s``). Its sessions raise
  ``SessionLost`` (retryable) and the pool starts a replacement actor (``restarts``), with a
  backoff when actors keep dying young. Ray's own actor restarts are off (``max_restarts=0``):
  a restarted actor would have lost its browser and sessions anyway, and the pool must know.
* Hangs: each call has the worker's deadline plus ``rpc_margin_s``; the heartbeat must answer
  within ``heartbeat_timeout_s``. An actor that misses either is killed and handled as dead.
* Errors: a webdojo error raised in the actor comes back as the same class (Ray's
  ``RayTaskError`` is unwrapped); every other Ray exception becomes a webdojo error
  (``RayWorker.call``), a dead actor ``SessionLost``.

Connecting: ``address="auto"`` joins the cluster running on this machine (``ray start``),
``"HOST:PORT"`` a given one, ``None`` starts a private Ray instance in this process. If Ray is
already initialized (a test, a user script), the pool uses that connection and leaves it open.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import logging
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import ray

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.errors import ConfigError, InfraError, SessionLost, UnknownSession, WebdojoError
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server.pool import Pool, PoolStats
from webdojo.server.ray_actor import ActorGone, RayWorker, WorkerActor
from webdojo.server.worker_config import RPC_MARGIN_S, WorkerConfig
from webdojo.server.worker_queues import Op

_log = logging.getLogger(__name__)
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class RayPoolConfig:
    address: str | None = "auto"  # "auto", "HOST:PORT", or None (start Ray in this process)
    workers: int = 2  # actors, one Chromium each
    worker: WorkerConfig = field(default_factory=WorkerConfig)  # what each actor runs
    num_cpus: float = 1.0  # CPUs each actor reserves (a busy Chromium keeps about one core)
    scheduling_strategy: str = "SPREAD"  # Ray's placement of actors over nodes
    name: str | None = None  # actor name prefix; None = "webdojo-<random>" (unique per pool)
    namespace: str | None = None  # Ray namespace when this pool connects (None = anonymous)
    # The driver's address as Ray sees it. None = 127.0.0.1 unless ``address`` names a host
    # that is not loopback (then Ray picks this machine's address): a cluster on this machine
    # stays on loopback, and a driver joining a real cluster is reachable from its nodes.
    node_ip_address: str | None = None
    start_timeout_s: float = 120.0  # an actor must be placed, launch Chromium and answer
    rpc_margin_s: float = RPC_MARGIN_S  # added to a worker's own deadline for each call
    heartbeat_interval_s: float = 1.0  # how often each actor's stats are fetched
    heartbeat_timeout_s: float = 30.0  # an actor silent this long is hung: killed, replaced
    restart_backoff_s: float = 0.5  # first delay before replacing an actor that died young
    max_restart_backoff_s: float = 30.0
    young_s: float = 10.0  # an actor that dies sooner than this after starting "died young"

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ConfigError(f"a RayPool needs at least 1 worker, not {self.workers}")
        if self.num_cpus < 0:
            raise ConfigError(f"num_cpus must be 0 or more, not {self.num_cpus}")

    def driver_ip(self) -> str | None:
        if self.node_ip_address is not None:
            return self.node_ip_address
        if self.address in (None, "auto"):
            return LOOPBACK
        if self.address.startswith("ray://"):
            return None  # Ray Client: this process runs no Ray node of its own
        host = self.address.rsplit(":", 1)[0]
        if host == "localhost":
            return LOOPBACK
        try:
            return LOOPBACK if ipaddress.ip_address(host.strip("[]")).is_loopback else None
        except ValueError:
            return None  # a host name: let Ray find this machine's address


class SlotState(StrEnum):
    STARTING = "starting"  # no actor yet, or its replacement is on the way
    READY = "ready"
    DEAD = "dead"  # the actor died or was killed as hung; a replacement is on the way
    CLOSED = "closed"  # the pool is closed


@dataclass
class _Slot:
    """A worker position; its actor is replaced when it dies."""

    index: int
    name: str  # the worker id of its sessions, kept across replacements
    state: SlotState = SlotState.STARTING
    worker: RayWorker | None = None  # the current actor
    generation: int = 0
    sessions: set[str] = field(default_factory=set)  # sessions of the current actor
    creating: int = 0  # creates in flight (placement counts them)
    started_at: float = 0.0
    failures: int = 0  # consecutive young deaths or failed starts (restart backoff)
    restarting: asyncio.Task[None] | None = None
    last_stats: dict[str, Any] = field(default_factory=dict)

    @property
    def alive(self) -> bool:
        return self.state is SlotState.READY

    def load(self) -> int:
        return len(self.sessions) + self.creating


@dataclass(frozen=True)
class _Placement:
    slot: _Slot
    generation: int
    options: SessionOptions


class RayPool(Pool):
    """``RayPool(RayPoolConfig(address="auto", workers=4))`` or ``RayPool(address="auto",
    workers=4, worker=WorkerConfig())`` (keywords override the fields of ``config``)."""

    def __init__(self, config: RayPoolConfig | None = None, **overrides: Any) -> None:
        self.config = dataclasses.replace(config or RayPoolConfig(), **overrides)
        self.name = self.config.name or f"webdojo-{uuid.uuid4().hex[:8]}"
        self._slots = [_Slot(i, f"ray-{i}") for i in range(self.config.workers)]
        self._placements: dict[str, _Placement] = {}
        self._restarts = 0
        self._heartbeat: asyncio.Task[None] | None = None
        self._closing = False
        self._owns_ray = False  # this pool called ray.init, so it calls ray.shutdown
        self._background: set[asyncio.Task[Any]] = set()
        self._actor_class: Any = None

    # --- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect to Ray and start every actor (in parallel); raises if any fails to start."""
        self._connect()
        self._actor_class = ray.remote(WorkerActor)
        results = await asyncio.gather(
            *(self._spawn(slot) for slot in self._slots), return_exceptions=True
        )
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            await self.aclose()
            raise errors[0]
        self._heartbeat = asyncio.create_task(self._beat())

    def _connect(self) -> None:
        if ray.is_initialized():
            return
        address = self.config.address
        options: dict[str, Any] = {"_node_ip_address": self.config.driver_ip()}
        if address is None:  # a private instance: nothing of it listens beyond loopback
            options["include_dashboard"] = False
        try:
            ray.init(
                address=address,
                namespace=self.config.namespace,
                logging_level=logging.WARNING,
                **options,
            )
        except (ConnectionError, ValueError, RuntimeError) as exc:
            hint = "start one with `ray start --head --node-ip-address 127.0.0.1`"
            raise ConfigError(f"cannot connect to Ray at {address!r} ({hint}): {exc}") from exc
        self._owns_ray = True

    async def aclose(self) -> None:
        """Stop every actor (its browser first); disconnect from Ray if this pool connected."""
        self._closing = True
        tasks = [t for t in [self._heartbeat, *(s.restarting for s in self._slots)] if t]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(self._stop(slot) for slot in self._slots), return_exceptions=True)
        self._placements.clear()
        if self._owns_ray:
            self._owns_ray = False
            ray.shutdown()

    async def _spawn(self, slot: _Slot) -> None:
        """Start an actor for ``slot`` and wait until its browser is up."""
        generation = slot.generation + 1
        worker = await RayWorker.spawn(
            self._actor_class,
            f"{self.name}-{slot.index}.{generation}",
            self.config.worker,
            self.config.start_timeout_s,
            num_cpus=self.config.num_cpus,
            scheduling_strategy=self.config.scheduling_strategy,
            max_restarts=0,
            max_task_retries=0,
        )
        if self._closing:
            await worker.stop()
            return
        slot.worker, slot.generation, slot.sessions = worker, generation, set()
        slot.started_at = time.monotonic()
        slot.state = SlotState.READY
        _log.info("worker %s is actor %s on node %s", slot.name, worker.name, _node(worker))

    async def _stop(self, slot: _Slot) -> None:
        worker, slot.worker = slot.worker, None
        slot.state = SlotState.CLOSED
        if worker is not None:
            await worker.stop()

    def _lost(self, slot: _Slot, generation: int, why: str) -> None:
        """The actor of ``slot`` (generation ``generation``) died or hangs: kill it, forget its
        sessions and start a replacement."""
        if slot.generation != generation or slot.state is not SlotState.READY:
            return  # already handled
        assert slot.worker is not None
        _log.warning(
            "worker %s (actor %s) %s with %d sessions; replacing it",
            slot.name,
            slot.worker.name,
            why,
            len(slot.sessions),
        )
        slot.state = SlotState.DEAD
        slot.worker.kill()
        slot.sessions = set()  # their placements name a dead generation: SessionLost
        young = time.monotonic() - slot.started_at < self.config.young_s
        slot.failures = slot.failures + 1 if young else 0
        if not self._closing and (slot.restarting is None or slot.restarting.done()):
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
        """Fetch each actor's stats (queue depths for ``stats()``); find dead and hung ones."""
        while True:
            await asyncio.sleep(self.config.heartbeat_interval_s)
            await asyncio.gather(*(self._poll(s) for s in self._slots if s.alive))

    async def _poll(self, slot: _Slot) -> None:
        generation, worker = slot.generation, slot.worker
        assert worker is not None
        try:
            slot.last_stats = await worker.call("stats", timeout=self.config.heartbeat_timeout_s)
        except TimeoutError:
            self._lost(slot, generation, "did not answer its heartbeat")
        except ActorGone:
            self._lost(slot, generation, "died")
        except WebdojoError as exc:
            _log.warning("heartbeat of worker %s failed: %s", slot.name, exc)

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
        except asyncio.CancelledError:  # our caller gave up; the actor may still succeed
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
        """Close a session. A session whose actor died is simply forgotten (it is gone)."""
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
        )

    def nodes(self) -> dict[str, str]:
        """The Ray node id of each live worker, by worker id."""
        return {s.name: _node(s.worker) for s in self._slots if s.alive}

    def sessions_by_node(self) -> dict[str, int]:
        """Sessions per Ray node id (live workers only)."""
        counts: Counter[str] = Counter()
        for slot in self._slots:
            if slot.alive:
                counts[_node(slot.worker)] += len(slot.sessions)
        return dict(counts)

    def actor_names(self) -> dict[str, str]:
        """The Ray actor name of each live worker (``ray.get_actor(name)`` finds it)."""
        return {s.name: s.worker.name for s in self._slots if s.worker and s.alive}

    async def worker_stats(self) -> dict[str, dict[str, Any]]:
        """Fresh ``Worker.stats()`` of each live actor, with its node id, address and pid."""
        live = [s for s in self._slots if s.worker and s.alive]
        timeout = self.config.heartbeat_timeout_s
        answers = await asyncio.gather(
            *(s.worker.call("stats", timeout=timeout) for s in live if s.worker),
            return_exceptions=True,
        )
        return {s.name: a for s, a in zip(live, answers, strict=True) if isinstance(a, dict)}

    # --- helpers ------------------------------------------------------------------------------

    def _close_orphan(self, placement: _Placement, done: asyncio.Future[Any]) -> None:
        """A session created for a caller who went away: close it on its actor."""
        if done.cancelled() or done.exception() is not None:
            return
        session_id = done.result()[0]
        task = asyncio.ensure_future(self._call(placement, "close", session_id))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # nothing to report
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _place(self) -> _Slot:
        """The live worker with the fewest sessions; waits for one while none is alive."""
        deadline = time.monotonic() + self.config.start_timeout_s
        while True:
            alive = [s for s in self._slots if s.alive]
            if alive:
                return min(alive, key=_Slot.load)
            if self._closing or time.monotonic() > deadline:
                raise InfraError("no Ray worker is alive to take a new session")
            await asyncio.sleep(0.05)

    def _placement(self, session_id: str) -> _Placement:
        placement = self._placements.get(session_id)
        if placement is None:
            raise UnknownSession(f"no session {session_id!r}")
        return placement

    async def _call(self, placement: _Placement, method: str, *args: Any) -> Any:
        slot, generation, worker = placement.slot, placement.generation, placement.slot.worker
        if slot.generation != generation or not slot.alive or worker is None:
            raise SessionLost(f"worker {slot.name} died; the session is gone")
        timeout = self.config.worker.deadline_s(method, placement.options)
        timeout += self.config.rpc_margin_s
        try:
            return await worker.call(method, *args, timeout=timeout)
        except ActorGone as exc:
            self._lost(slot, generation, "died")
            raise SessionLost(f"worker {slot.name} died during {method}") from exc
        except TimeoutError as exc:
            self._lost(slot, generation, f"did not answer {method} within {timeout:g} s")
            raise SessionLost(
                f"worker {slot.name} did not answer {method} in time; it was replaced"
            ) from exc


def _node(worker: RayWorker | None) -> str:
    return str(worker.where["node_id"]) if worker else ""
