"""The pool boundary: where browser sessions live (local worker processes, or Ray actors).

The server's HTTP layer owns leases, step indices and admission control; a pool only places
sessions on workers and forwards operations to the worker that owns each session. Both
implementations (``LocalPool``, ``RayPool``, whose shared logic is ``ManagedPool``) satisfy
this contract:

* a session sticks to the worker that created it;
* when that worker dies, operations on its sessions raise ``SessionLost`` (retryable) and the
  pool brings the worker's capacity back (restart / new actor);
* errors are webdojo errors only (``raise ... from exc`` at the boundary).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import TracebackType

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.observation import FinalState, Observation, ObservationOptions


@dataclass(frozen=True)
class WorkerStatus:
    """One worker as health reports it."""

    # the worker: "ready", "starting", "dead" or "retiring" (being replaced), or "closed"
    state: str
    browser: str  # its browser: "alive", "recycling", "dead", "relaunching", "none", "unknown"
    sessions: int

    @property
    def healthy(self) -> bool:
        # a planned recycle is healthy: creates wait a moment for the next browser or worker
        if self.state == "retiring":
            return True
        return self.state == "ready" and self.browser in ("alive", "recycling")


@dataclass(frozen=True)
class PoolStats:
    workers: int
    workers_alive: int
    sessions: int
    restarts: int  # worker restarts since the pool started
    retired: int = 0  # workers replaced after max_worker_sessions sessions (planned)
    queue_depth: dict[str, int] = field(default_factory=dict)  # per operation type, all workers
    sessions_by_worker: dict[str, int] = field(default_factory=dict)
    by_worker: dict[str, WorkerStatus] = field(default_factory=dict)  # for health


class Pool(ABC):
    """Hosts browser sessions. Use ``async with`` or call ``start``/``aclose``."""

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def create(
        self, start_url: str, session: SessionOptions, observation: ObservationOptions
    ) -> tuple[str, str, Observation]:
        """Open a fresh context at ``start_url``; returns (session id, worker id, first observation)."""

    @abstractmethod
    async def step(
        self, session_id: str, action: Action, observation: ObservationOptions
    ) -> Observation: ...

    @abstractmethod
    async def observe(self, session_id: str, observation: ObservationOptions) -> Observation: ...

    @abstractmethod
    async def final_state(self, session_id: str, answer: str | None) -> FinalState: ...

    @abstractmethod
    async def close(self, session_id: str) -> None: ...

    @abstractmethod
    def stats(self) -> PoolStats: ...

    @abstractmethod
    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Pool:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
