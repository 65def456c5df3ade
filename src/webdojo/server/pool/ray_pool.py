"""``RayPool``: the workers in Ray actors, spread over a Ray cluster's nodes (``serve --ray``).

Placement, deadlines, the heartbeat, ``SessionLost`` and restarts are ``ManagedPool``'s, as for
``LocalPool`` (see there); Ray does what the pool cannot do alone: start a worker on another
machine. There is no cluster manager here; Ray's is used as it is.

* Actors: one async ``WorkerActor`` (``worker/ray_actor.py``, with ``RayWorker``, the handle
  the pool calls it through) per worker, each running one ``Worker``
  (one Chromium). Each reserves ``num_cpus`` and is placed with ``scheduling_strategy``
  (``SPREAD`` by default, so that workers land on different nodes). Actors are named
  ``<pool name>-<slot>.<generation>`` and are owned by this process: they die with it. The
  worker id of their sessions (``ray-0``...) names the slot, kept when an actor is replaced.
* Death: an actor that dies (``ray.kill``, a crash, its node lost) is seen by the next call
  on it or by the heartbeat, and replaced by a new actor. Ray's own actor restarts are off
  (``max_restarts=0``): a restarted actor would have lost its browser and sessions anyway,
  and the pool must know.
* Errors: a webdojo error raised in the actor comes back as the same class (Ray's
  ``RayTaskError`` is unwrapped); every other Ray exception becomes a webdojo error
  (``RayWorker.call``), a dead actor ``SessionLost``.

Connecting: ``address="auto"`` joins the cluster running on this machine (``ray start``),
``"HOST:PORT"`` a given one, ``None`` starts a private Ray instance in this process. If Ray is
already initialized (a test, a user script), the pool uses that connection and leaves it open.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import signal
import threading
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

import ray

from webdojo.errors import ConfigError
from webdojo.server.pool.managed import ManagedPool, ManagedPoolConfig, Slot
from webdojo.server.worker.ray_actor import RayWorker, WorkerActor

_log = logging.getLogger(__name__)
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class RayPoolConfig(ManagedPoolConfig):
    """``workers`` actors, and how they are placed (the other fields: ``ManagedPoolConfig``)."""

    address: str | None = "auto"  # "auto", "HOST:PORT", or None (start Ray in this process)
    num_cpus: float = 1.0  # CPUs each actor reserves (a busy Chromium keeps about one core)
    scheduling_strategy: str = "SPREAD"  # Ray's placement of actors over nodes
    name: str | None = None  # actor name prefix; None = "webdojo-<random>" (unique per pool)
    namespace: str | None = None  # Ray namespace when this pool connects (None = anonymous)
    # The driver's address as Ray sees it. None = 127.0.0.1 unless ``address`` names a host
    # that is not loopback (then Ray picks this machine's address): a cluster on this machine
    # stays on loopback, and a driver joining a real cluster is reachable from its nodes.
    node_ip_address: str | None = None

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


class RayPool(ManagedPool[RayWorker]):
    """``RayPool(RayPoolConfig(address="auto", workers=4))`` or ``RayPool(address="auto",
    workers=4, worker=WorkerConfig())`` (keywords override the fields of ``config``)."""

    config: RayPoolConfig
    worker_kind = "Ray worker"

    def __init__(self, config: RayPoolConfig | None = None, **overrides: Any) -> None:
        super().__init__(dataclasses.replace(config or RayPoolConfig(), **overrides), "ray")
        self.name = self.config.name or f"webdojo-{uuid.uuid4().hex[:8]}"
        self._owns_ray = False  # this pool called ray.init, so it calls ray.shutdown
        self._actor_class: Any = None

    # --- lifecycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect to Ray and start every actor (in parallel); raises if any fails to start."""
        self._connect()
        self._actor_class = ray.remote(WorkerActor)
        await super().start()

    def _connect(self) -> None:
        if ray.is_initialized():
            return
        address = self.config.address
        options: dict[str, Any] = {"_node_ip_address": self.config.driver_ip()}
        if address is None:  # a private instance: nothing of it listens beyond loopback
            options["include_dashboard"] = False
        # ray.init makes SIGTERM exit at once (``sys.exit`` in its handler), over any handler
        # already there: ``serve --ray`` skipped uvicorn's orderly shutdown (sessions closed,
        # actors stopped, their browsers and TMPDIRs removed). Keep a handler that was set;
        # with none (a script), Ray's ``sys.exit`` still beats dying without cleanup.
        on_sigterm = signal.getsignal(signal.SIGTERM)
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
        finally:
            if callable(on_sigterm) and threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, on_sigterm)
        self._owns_ray = True

    async def aclose(self) -> None:
        """Stop every actor (its browser first); disconnect from Ray if this pool connected."""
        await super().aclose()
        if self._owns_ray:
            self._owns_ray = False
            ray.shutdown()

    async def _spawn_worker(self, slot: Slot[RayWorker], generation: int) -> RayWorker:
        """Start an actor for ``slot`` and wait until its browser is up."""
        worker = await RayWorker.spawn(
            self._actor_class,
            f"{self.name}-{slot.index}.{generation}",
            self.config.worker,
            self.config.start_timeout_s,
            slot.name,
            num_cpus=self.config.num_cpus,
            scheduling_strategy=self.config.scheduling_strategy,
            max_restarts=0,
            max_task_retries=0,
        )
        _log.info("worker %s is actor %s on node %s", slot.name, worker.name, _node(worker))
        return worker

    # --- reporting ----------------------------------------------------------------------------

    def nodes(self) -> dict[str, str]:
        """The Ray node id of each live worker, by worker id."""
        return {slot.name: _node(worker) for slot, worker in self._live()}

    def sessions_by_node(self) -> dict[str, int]:
        """Sessions per Ray node id (live workers only)."""
        counts: Counter[str] = Counter()
        for slot, worker in self._live():
            counts[_node(worker)] += len(slot.current.sessions) if slot.current else 0
        return dict(counts)

    def actor_names(self) -> dict[str, str]:
        """The Ray actor name of each live worker (``ray.get_actor(name)`` finds it)."""
        return {slot.name: worker.name for slot, worker in self._live()}


def _node(worker: RayWorker | None) -> str:
    return str(worker.where["node_id"]) if worker else ""
