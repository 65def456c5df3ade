"""The server's book of sessions: lifecycle, step indices, leases and admission control.

No I/O here: the pool does the browser work, the app wires requests to both.

Lifecycle (``SessionState``)::

    OPEN --stop / step cap--> DONE --DELETE--> CLOSED
      |                         |
      +-- idle past the lease --+--> EXPIRED   (the reaper closed it)
      +-- worker died ----------+--> LOST      (the pool said session_lost)

OPEN and DONE sessions are live: they count against ``max_sessions`` and hold a browser
context. A DONE session still answers observe and final_state, never step. LOST sessions
answer ``session_lost`` until the client closes them (their context is already gone, so they
do not count). CLOSED and EXPIRED sessions are forgotten, but their ids are remembered for a
while (``tombstones.py``, in a block of memory of fixed size) so that a late request gets
``session_closed`` / ``session_expired`` rather than an ambiguous ``unknown_session``.

Step indices make a retried step safe: the index must be the next one expected; re-sending the
previous index with the same request returns the cached response without acting again (the
retry of a request whose response was lost). The previous index with another request is a 409
``step_conflict`` (a client off by one, or two clients on one session: nothing is done, and
the action is not lost silently); anything else is a 409 ``invalid_state`` with the expected
index.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from webdojo.errors import (
    Overloaded,
    SessionClosed,
    SessionExpired,
    SessionLost,
    StateError,
    StepConflict,
    UnknownSession,
)
from webdojo.observation import ObservationOptions
from webdojo.server.api.tombstones import CAPACITY as TOMBSTONES
from webdojo.server.api.tombstones import Tombstones
from webdojo.tasks.episode_core import EpisodeCore
from webdojo.wire.protocol import StepRequest, StepResponse


class SessionState(StrEnum):
    OPEN = "open"
    DONE = "done"  # stopped or at the step cap: observe / final_state only
    CLOSED = "closed"
    EXPIRED = "expired"  # closed by the reaper after the idle lease ran out
    LOST = "lost"  # its worker or browser died


LIVE = frozenset({SessionState.OPEN, SessionState.DONE})


@dataclass
class SessionRecord:
    """What the server knows about one session. Mutated only under ``lock`` (or by the
    registry for the lifecycle)."""

    id: str
    worker: str
    observation: ObservationOptions  # the options given at creation (a step may override)
    core: EpisodeCore = field(default_factory=lambda: EpisodeCore(None))  # the episode's rules
    state: SessionState = SessionState.OPEN
    next_index: int = 0
    last_response: StepResponse | None = None  # for an idempotent retry of the last step
    last_request: StepRequest | None = None  # ... which must be the same request
    last_seen: float = field(default_factory=time.monotonic)
    busy: int = 0  # requests in flight; a busy session is never reaped
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one operation at a time
    lost: SessionLost | None = None  # why the session was lost (its browser or its worker died)

    def replay(self, req: StepRequest) -> StepResponse | None:
        """The cached response when ``req`` is the last step done, sent again (a retry);
        None when it is the next one to do; StepConflict for the last index with another
        request; a StateError for anything else (or a step after the end)."""
        last, step_index = self.last_response, req.step_index
        if last is not None and step_index == last.step_index:
            if req != self.last_request:
                raise StepConflict(
                    f"step_index {step_index} was already done with another request; the "
                    f"next step is {step_index + 1} (a retry must repeat the request as sent)",
                    step_index=step_index,
                    expected=step_index + 1,
                )
            return last
        if self.state is SessionState.DONE:
            raise StateError(
                "the episode is over (stop or step cap); only observe, final_state and close "
                "are allowed",
                done_at=None if last is None else last.step_index,
            )
        if step_index != self.next_index:
            raise StateError(
                f"step_index {step_index} is out of order; expected {self.next_index}",
                expected=self.next_index,
                got=step_index,
            )
        return None

    def require_usable(self) -> None:
        if self.state is SessionState.LOST:
            if self.lost is not None:  # say what the pool said: the browser or the worker died
                raise SessionLost(f"{self.lost.message}; start a new session", **self.lost.details)
            raise SessionLost("the worker hosting this session died; start a new session")

    def record(self, req: StepRequest, response: StepResponse) -> None:
        self.last_request, self.last_response = req, response
        self.next_index = response.step_index + 1
        if response.done:
            self.state = SessionState.DONE


class Registry:
    """Sessions by id, with admission control and idle leases."""

    def __init__(
        self,
        max_sessions: int,
        idle_ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
        tombstones: int = TOMBSTONES,
    ) -> None:
        self.max_sessions = max_sessions
        self.idle_ttl_s = idle_ttl_s
        self._clock = clock
        self._sessions: dict[str, SessionRecord] = {}
        self._ended = Tombstones((SessionState.CLOSED, SessionState.EXPIRED), tombstones)
        self._pending = 0  # creations admitted but not finished

    # --- admission ------------------------------------------------------------------------

    def live_count(self) -> int:
        return sum(1 for r in self._sessions.values() if r.state in LIVE)

    @contextlib.contextmanager
    def admit(self, retry_after_s: int) -> Iterator[None]:
        """Hold a slot while a session is being created; Overloaded past ``max_sessions``."""
        if self.live_count() + self._pending >= self.max_sessions:
            raise Overloaded(
                f"the server is at its limit of {self.max_sessions} sessions; retry later",
                max_sessions=self.max_sessions,
                retry_after_s=retry_after_s,
            )
        self._pending += 1
        try:
            yield
        finally:
            self._pending -= 1

    # --- lookup and leases ----------------------------------------------------------------

    def add(self, record: SessionRecord) -> None:
        record.last_seen = self._clock()
        self._sessions[record.id] = record

    def get(self, session_id: str) -> SessionRecord:
        record = self._sessions.get(session_id)
        if record is not None:
            return record
        ended = self._ended.get(session_id)
        if ended is SessionState.EXPIRED:
            raise SessionExpired(
                f"session {session_id} was closed after {self.idle_ttl_s:g} s without a "
                "request (its lease expired)",
                idle_ttl_s=self.idle_ttl_s,
            )
        if ended is not None:
            raise SessionClosed(f"session {session_id} is closed")
        raise UnknownSession(f"no session {session_id}")

    @contextlib.asynccontextmanager
    async def use(self, session_id: str) -> AsyncIterator[SessionRecord]:
        """Look a session up and hold its lock for one operation; refreshes the lease at both
        ends, and keeps the reaper away while the operation runs."""
        record = self.get(session_id)
        record.busy += 1
        record.last_seen = self._clock()
        try:
            async with record.lock:
                self.get(session_id)  # it may have ended while this request waited
                yield record
        finally:
            record.busy -= 1
            record.last_seen = self._clock()

    def end(self, session_id: str, state: SessionState) -> SessionRecord | None:
        """Forget a session (CLOSED or EXPIRED), remembering how it ended."""
        record = self._sessions.pop(session_id, None)
        if record is not None:
            record.state = state
            self._ended.add(session_id, state)
        return record

    def idle(self) -> list[str]:
        """Sessions with no request in flight and none for longer than the lease."""
        deadline = self._clock() - self.idle_ttl_s
        return [r.id for r in self._sessions.values() if r.busy == 0 and r.last_seen < deadline]

    def counts(self) -> dict[str, int]:
        """Sessions held, by state (CLOSED/EXPIRED are not held)."""
        out = {s.value: 0 for s in (SessionState.OPEN, SessionState.DONE, SessionState.LOST)}
        for record in self._sessions.values():
            out[record.state.value] += 1
        return out

    def ids(self) -> list[str]:
        return list(self._sessions)
