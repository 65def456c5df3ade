"""The environment as the rollout engine sees it: a small protocol, two implementations.

* ``InProcessEnv`` (here): sessions of a Chromium in this process; sites served locally.
* ``HttpEnv`` (``webdojo.rollout.http_env``): sessions on a ``webdojo serve`` server.

Policies and the engine see only ``EnvClient`` / ``EnvSession``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from webdojo.actions import Action
from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.browser.session import BrowserSession
from webdojo.errors import BrowserClosed, WebdojoError
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.sites.server import SiteServer
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult, verify


class EnvSession(Protocol):
    """One episode's environment.

    ``verify`` ends the episode's observation of the page: it reads the final state with the
    agent's answer and runs the task's verifier on it, once, where the final state is (here
    for local browsers; on the server for ``HttpEnv``, whose verdict the client uses)."""

    async def observe(self, options: ObservationOptions) -> Observation: ...
    async def step(self, action: Action, options: ObservationOptions) -> Observation: ...
    async def final_state(self, answer: str | None) -> FinalState: ...
    async def verify(
        self, task: Task, answer: str | None
    ) -> tuple[FinalState, VerifyResult | None]: ...
    async def aclose(self) -> None: ...


class EnvClient(Protocol):
    """Opens sessions. ``open`` returns the session at the task's start page and its first
    observation (one round trip for remote clients). ``seed`` replaces ``{seed}`` in the
    task's start URL (seeded pages such as MiniWoB++'s); None means 0."""

    async def open(
        self,
        task: Task,
        options: ObservationOptions,
        session: SessionOptions | None = None,
        *,
        seed: int | None = None,
    ) -> tuple[EnvSession, Observation]: ...

    async def aclose(self) -> None: ...


class _LocalSession:
    """A BrowserSession that ignores close errors of a browser already gone."""

    def __init__(self, inner: BrowserSession) -> None:
        self.inner = inner

    async def observe(self, options: ObservationOptions) -> Observation:
        return await self.inner.observe(options)

    async def step(self, action: Action, options: ObservationOptions) -> Observation:
        return await self.inner.step(action, options)

    async def final_state(self, answer: str | None) -> FinalState:
        return await self.inner.final_state(answer)

    async def verify(
        self, task: Task, answer: str | None
    ) -> tuple[FinalState, VerifyResult | None]:
        final = await self.inner.final_state(answer)
        return final, verify(task, final)

    async def aclose(self) -> None:
        with contextlib.suppress(BrowserClosed):
            await self.inner.aclose()


class InProcessEnv:
    """Sessions in this process. Holds one browser and relaunches it if it dies, so that one
    crashed Chromium costs the episodes it hosted, not the run.

    The site server is the env's own: its origin is allowed through every session's network
    policy (by origin, not because it is local), so its pages load and nothing else local
    does. A start URL elsewhere on loopback or a private network is refused (NetworkBlocked)."""

    def __init__(
        self,
        server: SiteServer,
        default_session: SessionOptions | None = None,
        browser: BrowserConfig | None = None,
    ) -> None:
        self.server = server
        self.default_session = default_session or SessionOptions()
        self.browser = browser or BrowserConfig()
        self._host: BrowserHost | None = None
        self._lock = asyncio.Lock()

    async def host(self) -> BrowserHost:
        async with self._lock:
            if self._host is None or not self._host.is_connected():
                await self._close_host()
                self._host = await BrowserHost.launch(self.browser)
            return self._host

    async def open(
        self,
        task: Task,
        options: ObservationOptions,
        session: SessionOptions | None = None,
        *,
        seed: int | None = None,
    ) -> tuple[EnvSession, Observation]:
        host = await self.host()
        own = (session or self.default_session).allowing(self.server.base_url)
        local = _LocalSession(await host.new_session(own))
        try:
            await local.inner.goto(self.server.start_url(task, seed))
            return local, await local.observe(options)
        except WebdojoError:
            await local.aclose()
            raise

    async def _close_host(self) -> None:
        if self._host is not None:
            with contextlib.suppress(
                Exception
            ):  # a dead browser may fail to close; nothing to save
                await self._host.aclose()
            self._host = None

    async def aclose(self) -> None:
        await self._close_host()
