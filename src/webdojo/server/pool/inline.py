"""``InlinePool``: one ``Worker`` in the server process itself (``--workers 0``).

The same worker that runs in a worker process or a Ray actor (per-operation queues, warm
contexts, browser recycling), called directly: no process hop, no pickling, so a step costs
what the browser costs plus the HTTP hop. It is the default pool: a 2-core machine saturates
with one browser anyway (DESIGN.md). Use ``LocalPool`` (``--workers N``) to spread sessions
over processes on bigger machines, so that one event loop is not the limit.

Faults. If Chromium dies, the sessions it hosted answer ``session_lost`` (retryable) and the
worker launches a new browser (counted in ``restarts``). Every operation also has a hard
deadline past the worker's own (``WorkerConfig.deadline_s``), so a wedged driver cannot hold
a request forever.

``own_tmpdir`` (``webdojo serve --workers 0`` sets it): the browser runs in a ``TMPDIR`` of the
server's own, removed at close; the next server on the same temp root sweeps the one of a
server that was SIGKILLed (``scratch.py``). Off by default, since it sets this process's
``TMPDIR`` (a library user's process keeps its own).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.errors import ActionTimeout, BrowserClosed, SessionLost, UnknownSession
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server.pool.base import Pool, PoolStats, WorkerStatus
from webdojo.server.worker import scratch
from webdojo.server.worker.core import Worker, WorkerConfig, WorkerState

WORKER_ID = "inline"
DEADLINE_SLACK_S = 5.0  # past the worker's own deadline, before the pool gives up
CLOSE_GRACE_S = 5.0  # how long close waits for the browser to leave the TMPDIR, and sweeps

T = TypeVar("T")


class InlinePool(Pool):
    def __init__(self, config: WorkerConfig | None = None, *, own_tmpdir: bool = False) -> None:
        self._worker = Worker(config)
        self._tmp = scratch.OwnTmpdir() if own_tmpdir else None
        self._options: dict[str, SessionOptions] = {}  # open sessions and their deadlines
        self._lost: set[str] = set()  # sessions whose browser died, until they are closed

    @property
    def worker(self) -> Worker:
        """The worker itself: its ``stats()`` say more than ``PoolStats`` (warm hits...)."""
        return self._worker

    async def start(self) -> None:
        if self._tmp is not None and self._tmp.path is None:
            self._tmp.take(WORKER_ID)  # after sweeping those of servers killed here
        await self._worker.start()

    async def create(
        self, start_url: str, session: SessionOptions, observation: ObservationOptions
    ) -> tuple[str, str, Observation]:
        op = self._worker.create(start_url, session, observation)
        session_id, obs = await self._guard(op, "create", session)
        self._options[session_id] = session
        return session_id, WORKER_ID, obs

    async def step(
        self, session_id: str, action: Action, observation: ObservationOptions
    ) -> Observation:
        return await self._call(
            session_id, "step", lambda: self._worker.step(session_id, action, observation)
        )

    async def observe(self, session_id: str, observation: ObservationOptions) -> Observation:
        return await self._call(
            session_id, "observe", lambda: self._worker.observe(session_id, observation)
        )

    async def final_state(self, session_id: str, answer: str | None) -> FinalState:
        return await self._call(
            session_id, "final_state", lambda: self._worker.final_state(session_id, answer)
        )

    async def close(self, session_id: str) -> None:
        """Closing a session that is gone already (lost, reaped, never there) is fine."""
        self._lost.discard(session_id)
        if self._options.pop(session_id, None) is None:
            return
        with contextlib.suppress(UnknownSession, BrowserClosed):  # it went with its browser
            await self._worker.close(session_id)

    def stats(self) -> PoolStats:
        stats = self._worker.stats()
        return PoolStats(
            workers=1,
            workers_alive=int(self._worker.state is WorkerState.RUNNING),
            sessions=stats["sessions"],
            restarts=stats["browser_restarts"],
            queue_depth=stats["queue_depth"],
            sessions_by_worker={WORKER_ID: stats["sessions"]},
            by_worker={WORKER_ID: self._status(stats)},
        )

    def _status(self, stats: dict[str, Any]) -> WorkerStatus:
        running = self._worker.state is WorkerState.RUNNING
        state = "ready" if running else self._worker.state.value
        browser = stats["browser_state"] if running else "none"
        return WorkerStatus(state=state, browser=browser, sessions=stats["sessions"])

    async def aclose(self) -> None:
        self._options.clear()
        self._lost.clear()
        await self._worker.aclose()
        if self._tmp is not None:
            await self._tmp.aclose(CLOSE_GRACE_S)

    # --- helpers --------------------------------------------------------------------------

    def _session(self, session_id: str) -> SessionOptions:
        if session_id in self._lost:
            raise SessionLost("the browser hosting this session died", cause="browser_closed")
        options = self._options.get(session_id)
        if options is None:
            raise UnknownSession(f"the pool has no session {session_id}")
        return options

    async def _call(self, session_id: str, operation: str, call: Callable[[], Awaitable[T]]) -> T:
        options = self._session(session_id)
        try:
            return await self._guard(call(), operation, options)
        except BrowserClosed as exc:
            self._lost.add(session_id)
            raise SessionLost(
                f"the browser hosting this session died: {exc.message}", cause="browser_closed"
            ) from exc

    async def _guard(self, op: Awaitable[T], operation: str, options: SessionOptions) -> T:
        budget = self._worker.config.deadline_s(operation, options) + DEADLINE_SLACK_S
        try:
            async with asyncio.timeout(budget):
                return await op
        except TimeoutError as exc:
            raise ActionTimeout(f"{operation} did not finish within {budget:g} s") from exc
