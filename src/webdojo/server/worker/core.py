"""A worker: one browser (recycled now and then) and the sessions on it, behind per-operation
queues. The same class runs in a local worker process (``LocalPool``) or in a Ray actor.

It knows nothing of processes or transport: plain async methods whose arguments and results
pickle (pydantic models, strings, dicts). Every failure leaves as a webdojo error:

* a session id it does not hold -> ``UnknownSession``;
* a session whose browser died -> ``BrowserClosed`` (the browser is replaced for new sessions);
* a wait for a queue slot past ``queue_timeout_s`` -> ``Overloaded`` (nothing was done);
* agent and env faults of a step -> ``observation.last_error`` (as ``BrowserSession.step``);
* anything unexpected (a bug) -> ``InternalError``.

    worker = Worker(WorkerConfig(warm_contexts=2))
    await worker.start()
    session_id, obs = await worker.create("http://127.0.0.1:8000/", SessionOptions(), ObservationOptions())
    obs = await worker.step(session_id, Click(element=3), ObservationOptions())
    await worker.close(session_id); await worker.aclose()
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from webdojo.actions import Action, GoBack, GoForward, Goto, NewTab
from webdojo.browser.options import SessionOptions
from webdojo.browser.session import BrowserSession
from webdojo.errors import (
    BrowserClosed,
    InternalError,
    StateError,
    UnknownSession,
    WebdojoError,
)
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server.worker.browsers import Browsers, ManagedBrowser
from webdojo.server.worker.config import WorkerConfig
from webdojo.server.worker.queues import Op, OpQueues, QueueMode

__all__ = ["Op", "QueueMode", "Worker", "WorkerConfig", "WorkerState", "queue_for"]


class WorkerState(StrEnum):
    NEW = "new"
    RUNNING = "running"
    CLOSED = "closed"


@dataclass
class _Episode:
    session: BrowserSession
    browser: ManagedBrowser


def queue_for(action: Action) -> Op:
    """Explicit navigations wait on the network like a create does, so they share its queue
    (WebGym's navigate queue); every other action is an in-page ``execute``."""
    if isinstance(action, Goto | GoBack | GoForward):
        return Op.CREATE
    if isinstance(action, NewTab) and action.url is not None:
        return Op.CREATE
    return Op.EXECUTE


class Worker:
    """Call ``start`` first and ``aclose`` last (or use ``async with``)."""

    def __init__(self, config: WorkerConfig | None = None) -> None:
        self.config = config or WorkerConfig()
        self.state = WorkerState.NEW
        self._browsers = Browsers(self.config)
        self._queues = OpQueues(
            self.config.queue_mode,
            self.config.limits(),
            self.config.shared_limit(),
            self.config.queue_timeout_s,
            self.config.lend_after_s,
        )
        self._episodes: dict[str, _Episode] = {}

    async def start(self) -> None:
        """Launch the browser and start filling the warm pool."""
        if self.state is not WorkerState.NEW:
            raise StateError(f"the worker is {self.state.value}; start it once")
        async with self._translated():
            await self._browsers.start()
        self.state = WorkerState.RUNNING

    # --- operations ---------------------------------------------------------------------------

    async def create(
        self,
        start_url: str,
        session: SessionOptions | None = None,
        observation: ObservationOptions | None = None,
    ) -> tuple[str, Observation]:
        """A fresh context at ``start_url``: returns the session id and the first observation.
        A start page that does not load raises (``NavigationTimeout``...) and leaves nothing."""
        self._require_running()
        options = session or SessionOptions()
        async with self._queues.slot(Op.CREATE), self._translated():
            start = time.perf_counter()
            browser_session, browser = await self._browsers.open(options, start_url)
            context_ms = round((time.perf_counter() - start) * 1000, 2)
            try:
                await browser_session.goto(start_url)
                first = await browser_session.observe(observation or ObservationOptions())
            except BaseException:
                await self._browsers.release(browser_session, browser)
                raise
            finally:
                self._browsers.refill()
        session_id = uuid.uuid4().hex
        self._episodes[session_id] = _Episode(browser_session, browser)
        # "context": what the warm pool saves (a cold context + first tab vs taking a warm one)
        timings = {**first.timings_ms, "context": context_ms}
        return session_id, first.model_copy(update={"timings_ms": timings})

    async def step(
        self, session_id: str, action: Action, observation: ObservationOptions | None = None
    ) -> Observation:
        """Act, then observe; agent and env faults land in ``observation.last_error``."""
        episode = self._episode(session_id)
        async with self._queues.slot(queue_for(action)), self._translated():
            return await episode.session.step(action, observation or ObservationOptions())

    async def observe(
        self, session_id: str, observation: ObservationOptions | None = None
    ) -> Observation:
        episode = self._episode(session_id)
        async with self._queues.slot(Op.OBSERVE), self._translated():
            return await episode.session.observe(observation or ObservationOptions())

    async def final_state(self, session_id: str, answer: str | None = None) -> FinalState:
        episode = self._episode(session_id)
        async with self._queues.slot(Op.OBSERVE), self._translated():
            return await episode.session.final_state(answer)

    async def close(self, session_id: str) -> None:
        """Close the session's context. Not queued: it frees resources and is cheap."""
        episode = self._episodes.pop(session_id, None)
        if episode is None:
            raise UnknownSession(f"no session {session_id!r} on this worker")
        async with self._translated():
            await self._browsers.release(episode.session, episode.browser)

    def stats(self) -> dict[str, Any]:
        """A plain dict (it crosses process boundaries): sessions, queued and running
        operations per kind, completed operations, warm pool and browser counters, memory."""
        return {
            "pid": os.getpid(),
            "state": self.state.value,
            "queue_mode": self.config.queue_mode.value,
            "sessions": len(self._episodes),
            "queue_depth": self._queues.queued(),
            "running": self._queues.running(),
            "overtime": self._queues.overtime(),  # running past lend_after_s, slot lent
            "completed": {op.value: self._queues.completed[op] for op in Op},
            **self._browsers.stats(),
        }

    async def aclose(self) -> None:
        """Close every session and browser. Idempotent."""
        if self.state is WorkerState.CLOSED:
            return
        self.state = WorkerState.CLOSED
        self._episodes.clear()  # their contexts close with their browsers
        await self._browsers.aclose()

    async def __aenter__(self) -> Worker:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # --- helpers ------------------------------------------------------------------------------

    def _require_running(self) -> None:
        if self.state is not WorkerState.RUNNING:
            raise StateError(f"the worker is {self.state.value}, not running")

    def _episode(self, session_id: str) -> _Episode:
        self._require_running()
        episode = self._episodes.get(session_id)
        if episode is None:
            raise UnknownSession(f"no session {session_id!r} on this worker")
        return episode

    @asynccontextmanager
    async def _translated(self) -> AsyncIterator[None]:
        """Webdojo errors pass; a dead browser is replaced in the background; anything else
        is a bug and leaves as ``InternalError``."""
        try:
            yield
        except BrowserClosed:
            self._browsers.check()
            raise
        except WebdojoError:
            raise
        except Exception as exc:
            raise InternalError(f"worker error: {type(exc).__name__}: {exc}") from exc
