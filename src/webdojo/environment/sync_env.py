"""``Env``: the blocking twin of ``AsyncEnv``, for code that is not asyncio (Gymnasium, TRL).

Every ``Env`` of a process runs its ``AsyncEnv`` on one event loop in a background thread, so
that they share one browser (``environment.runtime``) and a call from any thread blocks only
its caller.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from types import TracebackType
from typing import Any, TypeVar

from webdojo.actions import Action
from webdojo.environment.async_env import AsyncEnv, StepResult
from webdojo.observation import Observation

T = TypeVar("T")


class _LoopThread:
    """One event loop in a daemon thread, started on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._started()).result()

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="webdojo-env", daemon=True)
                thread.start()
                self._loop = loop
            return self._loop


LOOP = _LoopThread()


class Env:
    """One task; a fresh browser session per episode (see ``AsyncEnv``, whose calls these
    are). Use as a context manager, or call ``close``."""

    def __init__(self, inner: AsyncEnv) -> None:
        self.inner = inner

    @property
    def task(self) -> Any:
        return self.inner.task

    def reset(self, seed: int | None = None) -> tuple[Observation, dict[str, Any]]:
        return LOOP.run(self.inner.reset(seed))

    def step(self, action: Action | str) -> StepResult:
        return LOOP.run(self.inner.step(action))

    def close(self) -> None:
        LOOP.run(self.inner.aclose())

    def __enter__(self) -> Env:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the environments' loop (how ``make`` builds an ``Env``)."""
    return LOOP.run(coro)
