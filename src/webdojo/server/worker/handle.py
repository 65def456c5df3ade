"""The pool's view of one worker (``WorkerHandle``), whatever runs it: a local process
(``WorkerProcess``) or a Ray actor (``RayWorker``).

Each kind has its own ``spawn``, which returns a handle whose browser is up. After that,
``ManagedPool`` only calls, kills and stops it. Trouble with the worker itself comes back as
one of two pool-internal exceptions, which the pool turns into ``SessionLost``:

* ``WorkerGone``: the worker is dead (or its channel is);
* ``WorkerTimeout``: no answer within the call's deadline (the pool then kills it as hung).

Everything else a call raises is a webdojo error from the worker, passed on as it is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class WorkerGone(Exception):
    """The worker is dead (pool-internal: the pool reports ``SessionLost``)."""


class WorkerTimeout(Exception):
    """No answer within the call's deadline (pool-internal: the pool reports ``SessionLost``)."""


class WorkerHandle(ABC):
    """A started worker: one ``Worker`` (one Chromium) in another process."""

    @property
    @abstractmethod
    def label(self) -> str:
        """The worker in log lines (``pid 1234``, ``actor webdojo-1a2b3c4d-0.2``)."""

    @abstractmethod
    async def call(self, method: str, *args: Any, timeout: float) -> Any:
        """``Worker.<method>(*args)``; raises the worker's webdojo errors, ``WorkerGone``, or
        ``WorkerTimeout`` after ``timeout`` seconds."""

    @abstractmethod
    def kill(self) -> None:
        """End it now, without asking (a hung or dead worker)."""

    @abstractmethod
    async def stop(self, timeout_s: float = 15.0) -> None:
        """Ask it to close its browser and exit; kill it if it does not in time."""
