"""What each route does, between the registry (bookkeeping) and the pool (browser work).

Routes in ``app.py`` only decode, call one method here and encode. Every method raises webdojo
errors only; ``http_errors`` turns them into responses.

Steps run in a task of their own, shielded from the request: if the client disconnects (or
times out) half-way, the step still finishes and is recorded under the session's lock, so the
client's retry with the same ``step_index`` gets the cached response instead of a second
action.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from webdojo.actions import Action, check_url
from webdojo.browser.netguard import refuse_url
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.options import SessionOptions
from webdojo.errors import (
    AgentError,
    BadStartUrl,
    BadUrl,
    InvalidRequest,
    NetworkBlocked,
    SessionLost,
    UnknownTask,
    WebdojoError,
)
from webdojo.observation import ErrorInfo, FinalState, Observation, ObservationOptions
from webdojo.parsing import ParseFormat, parse
from webdojo.server.api.metrics import ServerMetrics
from webdojo.server.api.registry import Registry, SessionRecord, SessionState
from webdojo.server.pool.base import Pool
from webdojo.sites.server import SiteServer
from webdojo.tasks.episode_core import EpisodeCore
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult
from webdojo.wire.protocol import (
    CreateSessionRequest,
    FinalStateResponse,
    SessionCreated,
    StepInfo,
    StepRequest,
    StepResponse,
)

T = TypeVar("T")
log = logging.getLogger(__name__)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)


class SessionService:
    def __init__(
        self,
        pool: Pool,
        registry: Registry,
        task_set: TaskSet,
        sites: SiteServer | None,
        metrics: ServerMetrics,
        session_defaults: SessionOptions,
        retry_after_s: int,
    ) -> None:
        self.pool = pool
        self.registry = registry
        self.tasks = {t.id: t for t in task_set.tasks}
        self.sites = sites
        self.metrics = metrics
        self.session_defaults = session_defaults
        self.retry_after_s = retry_after_s

    # --- create ---------------------------------------------------------------------------

    async def create(self, req: CreateSessionRequest) -> SessionCreated:
        task = None
        if req.task_id is not None:
            task = self.tasks.get(req.task_id)
            if task is None:
                raise UnknownTask(f"the server's task set has no task {req.task_id!r}")
        with self.metrics.timed("create"):
            record, obs = await _shielded(self._create(req, task))
        return SessionCreated(
            session_id=record.id,
            observation=obs,
            worker=record.worker,
            max_steps=record.core.max_steps,
        )

    async def _create(
        self, req: CreateSessionRequest, task: Task | None
    ) -> tuple[SessionRecord, Observation]:
        # shielded as a whole: a session the pool made is registered even if the client left,
        # so that its lease runs out and the reaper closes it
        with self.registry.admit(self.retry_after_s):
            options = self._options(req)
            start_url = None
            if req.start_url is not None:
                start_url = _checked_start(req.start_url, options.network)
            if task is not None:
                assert self.sites is not None, "the site server runs while the app does"
                start_url = self.sites.start_url(task, req.seed)
            assert start_url is not None
            session_id, worker, obs = await self.pool.create(start_url, options, req.observation)
        record = SessionRecord(
            id=session_id,
            worker=worker,
            observation=req.observation,
            core=EpisodeCore(task),
        )
        self.registry.add(record)
        self.metrics.opened.inc()
        return record, obs

    def _options(self, req: CreateSessionRequest) -> SessionOptions:
        """The server's session settings at the request's viewport. The site server is the
        env's own: its origin is allowed (by origin: nothing else on loopback is)."""
        options = dataclasses.replace(
            self.session_defaults,
            viewport_width=req.viewport_width,
            viewport_height=req.viewport_height,
        )
        return options if self.sites is None else options.allowing(self.sites.base_url)

    # --- step -----------------------------------------------------------------------------

    async def step(self, session_id: str, req: StepRequest) -> StepResponse:
        if req.format is not None:
            try:
                ParseFormat(req.format)
            except ValueError as exc:
                formats = ", ".join(f.value for f in ParseFormat)
                raise InvalidRequest(f"unknown format {req.format!r}; one of {formats}") from exc
        with self.metrics.timed("step"):
            return await _shielded(self._step_locked(session_id, req))

    async def _step_locked(self, session_id: str, req: StepRequest) -> StepResponse:
        async with self.registry.use(session_id) as record:
            cached = record.replay(req)
            if cached is not None:
                return cached
            record.require_usable()
            response = await self._lose_on_fault(record, self._step(record, req))
            record.record(req, response)
            return response

    async def _step(self, record: SessionRecord, req: StepRequest) -> StepResponse:
        started = time.perf_counter()
        options = req.observation or record.observation
        action: Action | None = req.action
        parse_error: ErrorInfo | None = None
        timings: dict[str, float] = {}
        if req.text is not None:
            try:
                action = parse(req.text, req.format or "").action
            except AgentError as exc:  # ParseError or an InvalidActionError: shown to the agent
                parse_error = exc.info()
            timings["parse"] = _ms(started)
        pool_started = time.perf_counter()
        if action is None:  # nothing to do: show the parse error with a fresh observation
            obs = await self.pool.observe(record.id, options)
            obs = obs.model_copy(update={"last_error": parse_error})
        else:
            obs = await self.pool.step(record.id, action, options)
        timings["pool"] = _ms(pool_started)
        info = StepInfo(action=action, parse_error=parse_error)
        reason = record.core.stepped(action, parse_error or obs.last_error, obs)
        if reason is EndReason.FAULT:  # nothing to verify: the episode is never scored
            info = info.model_copy(update={"done_reason": reason})
        elif reason is not None:
            answer = record.core.answer
            final, verdict = await self._final(record, answer)
            info = info.model_copy(
                update={
                    "answer": answer,
                    "final_state": final,
                    "verifier": verdict,
                    "done_reason": reason,
                }
            )
        timings["server"] = _ms(started)
        info.timings_ms.update(timings)
        return StepResponse(
            step_index=req.step_index, observation=obs, done=reason is not None, info=info
        )

    # --- observe, final state, close ------------------------------------------------------

    async def observe(self, session_id: str, options: ObservationOptions | None) -> Observation:
        with self.metrics.timed("observe"):
            async with self.registry.use(session_id) as record:
                record.require_usable()
                return await self._lose_on_fault(
                    record, self.pool.observe(record.id, options or record.observation)
                )

    async def final_state(self, session_id: str, answer: str | None) -> FinalStateResponse:
        with self.metrics.timed("final_state"):
            async with self.registry.use(session_id) as record:
                record.require_usable()
                final, verdict = await self._final(record, answer)
                return FinalStateResponse(final_state=final, verifier=verdict)

    async def _final(
        self, record: SessionRecord, answer: str | None
    ) -> tuple[FinalState, VerifyResult | None]:
        """The page's final state with this answer, verified when the session has a task
        (and its episode did not end in a fault). After the end nothing can change the page,
        so the state captured then is reused."""
        core = record.core
        final = core.kept_final(answer)
        if final is None:
            final = await self._lose_on_fault(record, self.pool.final_state(record.id, answer))
        result = None if core.outcome is EndReason.FAULT else core.verify(final)
        return final, result

    async def close(self, session_id: str) -> None:
        with self.metrics.timed("close"):
            async with self.registry.use(session_id) as record:
                lost = record.state is SessionState.LOST
                self.registry.end(session_id, SessionState.CLOSED)
                self.metrics.ended.labels("lost" if lost else "closed").inc()
                await _close_in_pool(self.pool, session_id)

    async def reap(self) -> int:
        """Close the sessions idle past their lease; returns how many."""
        # all are ended before the first await, so no request can slip in between
        ended = [
            sid
            for sid in self.registry.idle()
            if self.registry.end(sid, SessionState.EXPIRED) is not None
        ]
        for session_id in ended:
            self.metrics.ended.labels("expired").inc()
            await _close_in_pool(self.pool, session_id)
        return len(ended)

    async def reap_forever(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
            try:
                await self.reap()
            except Exception:  # a bug here must not stop the leases for good
                log.exception("the lease reaper failed; it will try again")

    async def close_all(self) -> None:
        for session_id in self.registry.ids():
            self.registry.end(session_id, SessionState.CLOSED)
            await _close_in_pool(self.pool, session_id)

    @staticmethod
    async def _lose_on_fault(record: SessionRecord, op: Awaitable[T]) -> T:
        """Remember that a session was lost, so that later requests say so at once."""
        try:
            return await op
        except SessionLost as exc:
            record.state = SessionState.LOST
            record.lost = exc
            raise


def _checked_start(url: str, network: NetworkPolicy) -> str:
    """A start URL through the same checks as the agent's ``goto``: its form, then what the
    network policy says of it (refused here, before any browser work; a name that resolves
    to a private address is refused by the session's proxy, as ``blocked_by_policy``)."""
    try:
        checked = check_url(url)
    except BadUrl as exc:
        raise BadStartUrl(f"start_url refused: {exc}") from exc
    try:
        refuse_url(network, checked)
    except NetworkBlocked as exc:
        origin = _origin(checked)
        raise BadStartUrl(
            f"start_url refused: {exc.message}; the server's operator may allow it with "
            f"`webdojo serve --allow-host {origin}`",
            **exc.details,
        ) from exc
    return checked


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


async def _close_in_pool(pool: Pool, session_id: str) -> None:
    # the registry has forgotten the session; a pool that cannot close it has lost it already
    with contextlib.suppress(WebdojoError):
        await pool.close(session_id)


async def _shielded(op: Awaitable[T]) -> T:
    """Run ``op`` to its end even if the request awaiting it is cancelled."""
    task = asyncio.ensure_future(op)
    task.add_done_callback(_retrieve)
    return await asyncio.shield(task)


def _retrieve(task: asyncio.Future[Any]) -> None:
    # an error nobody awaits any more (the client left) is still an error the metrics saw
    if not task.cancelled():
        task.exception()
