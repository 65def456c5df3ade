"""``InlinePool``: sessions in the server process itself, on one Chromium (``--workers 0``).

The simplest pool: no worker processes, no queues, no IPC, so a step costs what the browser
costs plus the HTTP hop. That makes it the pool for tests and for comparing the server with
in-process sessions. A 2-core machine saturates with one browser anyway (DESIGN.md); use
``LocalPool`` to spread sessions over processes on bigger machines.

Faults. If Chromium dies, the sessions it hosted answer ``session_lost`` (retryable) and the
next ``create`` launches a new browser (counted in ``restarts``). Every operation also has a
hard deadline past the browser's own timeouts, so a wedged driver cannot hold a request
forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

from webdojo.actions import Action
from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.browser.session import BrowserSession
from webdojo.errors import (
    ActionTimeout,
    BrowserClosed,
    SessionLost,
    UnknownSession,
    WebdojoError,
)
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server.pool import Pool, PoolStats

WORKER_ID = "inline"
DEADLINE_SLACK_S = 5.0  # past the browser's own deadlines, before the pool gives up
OPS = ("create", "observe", "execute")  # the operation types (WebGym's queues)

T = TypeVar("T")


class InlinePool(Pool):
    def __init__(self, browser: BrowserConfig | None = None) -> None:
        self._config = browser or BrowserConfig()
        self._host: BrowserHost | None = None
        self._sessions: dict[str, BrowserSession] = {}
        self._lost: set[str] = set()
        self._launch_lock = asyncio.Lock()
        self._in_flight: Counter[str] = Counter()
        self._launches = 0

    async def start(self) -> None:
        await self._live_host()

    async def _live_host(self) -> BrowserHost:
        async with self._launch_lock:
            if self._host is not None and self._host.is_connected():
                return self._host
            if self._host is not None:
                self._forget_host()
            self._host = await BrowserHost.launch(self._config)
            self._launches += 1
            return self._host

    def _forget_host(self) -> None:
        """The browser died: its sessions are lost, the next create launches a new one."""
        self._lost.update(self._sessions)
        self._sessions.clear()
        host, self._host = self._host, None
        if host is not None:
            task = asyncio.ensure_future(host.aclose())  # releases the driver; may fail
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    # --- operations -----------------------------------------------------------------------

    async def create(
        self, start_url: str, session: SessionOptions, observation: ObservationOptions
    ) -> tuple[str, str, Observation]:
        async with self._track("create"):
            host = await self._live_host()
            deadline = session.navigation_timeout_s * 2 + session.action_timeout_s
            browser_session = await self._guard(host.new_session(session), deadline, "create")
            try:
                await self._guard(browser_session.goto(start_url), deadline, "open the start")
                obs = await self._guard(
                    browser_session.observe(observation), deadline, "first observation"
                )
            except BaseException:
                await _close_quietly(browser_session)
                raise
        session_id = uuid.uuid4().hex
        self._sessions[session_id] = browser_session
        return session_id, WORKER_ID, obs

    async def step(
        self, session_id: str, action: Action, observation: ObservationOptions
    ) -> Observation:
        session = self._session(session_id)
        async with self._track("execute"):
            return await self._call(session_id, session.step(action, observation), session)

    async def observe(self, session_id: str, observation: ObservationOptions) -> Observation:
        session = self._session(session_id)
        async with self._track("observe"):
            return await self._call(session_id, session.observe(observation), session)

    async def final_state(self, session_id: str, answer: str | None) -> FinalState:
        session = self._session(session_id)
        async with self._track("observe"):
            return await self._call(session_id, session.final_state(answer), session)

    async def close(self, session_id: str) -> None:
        self._lost.discard(session_id)
        session = self._sessions.pop(session_id, None)
        if session is not None:
            await _close_quietly(session)

    def stats(self) -> PoolStats:
        alive = self._host is not None and self._host.is_connected()
        return PoolStats(
            workers=1,
            workers_alive=int(alive),
            sessions=len(self._sessions),
            restarts=max(0, self._launches - 1),
            queue_depth={op: self._in_flight[op] for op in OPS},
            sessions_by_worker={WORKER_ID: len(self._sessions)},
        )

    async def aclose(self) -> None:
        for session_id in list(self._sessions):
            await self.close(session_id)
        if self._host is not None:
            with contextlib.suppress(WebdojoError):
                await self._host.aclose()
            self._host = None

    # --- helpers --------------------------------------------------------------------------

    def _session(self, session_id: str) -> BrowserSession:
        session = self._sessions.get(session_id)
        if session is not None:
            return session
        if session_id in self._lost:
            raise SessionLost("the browser hosting this session died")
        raise UnknownSession(f"the pool has no session {session_id}")

    async def _call(self, session_id: str, op: Awaitable[T], session: BrowserSession) -> T:
        options = session.options
        deadline = options.navigation_timeout_s + options.action_timeout_s
        try:
            return await self._guard(op, deadline, "the operation")
        except BrowserClosed as exc:
            if self._host is not None and not self._host.is_connected():
                self._forget_host()
            self._sessions.pop(session_id, None)
            self._lost.add(session_id)
            raise SessionLost(f"the browser hosting this session died: {exc.message}") from exc

    @staticmethod
    async def _guard(op: Awaitable[T], deadline_s: float, what: str) -> T:
        budget = deadline_s + DEADLINE_SLACK_S
        try:
            async with asyncio.timeout(budget):
                return await op
        except TimeoutError as exc:
            raise ActionTimeout(f"{what} did not finish within {budget:g} s") from exc

    @contextlib.asynccontextmanager
    async def _track(self, op: str) -> AsyncIterator[None]:
        self._in_flight[op] += 1
        try:
            yield
        finally:
            self._in_flight[op] -= 1


async def _close_quietly(session: BrowserSession) -> None:
    with contextlib.suppress(WebdojoError):
        await session.aclose()
