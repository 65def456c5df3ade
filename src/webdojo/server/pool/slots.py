"""What ``ManagedPool`` keeps per worker position: its config, slots and the workers in them.

A slot is a position (``local-0``) whose worker is replaced when it dies, hangs, or has served
``max_worker_sessions`` sessions. Each worker started in a slot is a ``Generation``: sessions
point at the generation that created them, so a replaced worker's sessions fail as lost while
a retired one's sessions run to their end on it (it is draining).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from webdojo.browser.options import SessionOptions
from webdojo.server.pool.base import WorkerStatus
from webdojo.server.pool.retirement import DEFAULT_MAX_WORKER_SESSIONS
from webdojo.server.worker.config import RPC_MARGIN_S, WorkerConfig
from webdojo.server.worker.handle import WorkerHandle

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
    # a worker that has created this many sessions is replaced: a new one takes new sessions
    # and the old one stops once its own have closed (0: never). It bounds what a long run's
    # worker processes (Python's heaps, the Playwright driver) can accumulate (retirement.py).
    max_worker_sessions: int = DEFAULT_MAX_WORKER_SESSIONS


class SlotState(StrEnum):
    STARTING = "starting"  # no worker yet (the pool is not started)
    READY = "ready"
    DEAD = "dead"  # the worker died or was killed as hung; a replacement is on the way
    RETIRING = "retiring"  # the worker served its sessions; a replacement is on the way
    CLOSED = "closed"  # the pool is closed


@dataclass(eq=False)
class Generation(Generic[H]):
    """One worker started in a slot, and the sessions it hosts."""

    handle: H
    sessions: set[str] = field(default_factory=set)
    creating: int = 0  # creates in flight on it (placement counts them)
    served: int = 0  # sessions it created
    started_at: float = field(default_factory=time.monotonic)
    gone: bool = False  # died, killed, or stopped: its sessions are lost

    def load(self) -> int:
        return len(self.sessions) + self.creating

    def idle(self) -> bool:
        return not self.sessions and not self.creating


@dataclass
class Slot(Generic[H]):
    """A worker position; its worker is replaced when it dies or retires."""

    index: int
    name: str  # the worker id of its sessions, kept across replacements
    state: SlotState = SlotState.STARTING
    current: Generation[H] | None = None  # the worker that takes new sessions
    retired: list[Generation[H]] = field(default_factory=list)  # draining: old sessions only
    generation: int = 0  # workers started in this slot
    failures: int = 0  # consecutive young deaths or failed starts (restart backoff)
    restarting: asyncio.Task[None] | None = None
    last_stats: dict[str, Any] = field(default_factory=dict)  # the current worker's, if any

    @property
    def alive(self) -> bool:
        return self.state is SlotState.READY

    @property
    def handle(self) -> H | None:
        return self.current.handle if self.current is not None else None

    def load(self) -> int:
        return self.current.load() if self.current is not None else 0

    def sessions(self) -> int:
        """Sessions on its workers, the draining ones included."""
        live = [self.current] if self.current is not None and self.alive else []
        return sum(len(g.sessions) for g in [*live, *self.retired])


@dataclass(frozen=True)
class Placement(Generic[H]):
    slot: Slot[H]
    worker: Generation[H]  # a session lives only as long as the worker that created it
    options: SessionOptions


def status(slot: Slot[Any]) -> WorkerStatus:
    """A worker's health: its slot's state, and its browser as of the last heartbeat."""
    browser = slot.last_stats.get("browser_state", "unknown") if slot.alive else "none"
    return WorkerStatus(state=slot.state.value, browser=browser, sessions=slot.sessions())
