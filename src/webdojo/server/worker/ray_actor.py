"""One worker in a Ray actor: the remote class (``WorkerActor``) and the pool's handle on it
(``RayWorker``, a ``WorkerHandle``: spawn, call, kill, stop), as ``process.py`` is for
``LocalPool``.

``WorkerActor`` is a plain class that ``RayPool`` turns into an actor with ``ray.remote``, so
that the resources, name and placement of each actor stay the pool's choice. Its methods are
coroutines, which makes it an async actor: Ray runs its calls concurrently on one event loop,
and the Worker's per-operation queues decide what runs when, exactly as in a local worker
process.

What crosses the boundary is pickled by Ray: an ``Observation`` keeps its screenshot as raw
bytes, which travel through Ray's object store as they are (base64 is only for JSON).

Errors. A webdojo error raised in the actor reaches the caller as the same class, code and
details: Ray wraps it in ``RayTaskError`` and ``RayWorker.call`` raises its ``.cause``. An
actor that is gone (killed, crashed, its node lost) raises ``WorkerGone``, and a call past its
deadline ``WorkerTimeout``: both stay inside the pool, which turns them into ``SessionLost``.
Any other Ray exception becomes ``InfraError`` (or ``InternalError`` for a bug in the actor).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

import ray
from ray.exceptions import RayActorError, RayError, RayTaskError

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.errors import InfraError, InternalError, WebdojoError
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.server.worker import scratch
from webdojo.server.worker.config import WorkerConfig
from webdojo.server.worker.core import Worker
from webdojo.server.worker.handle import WorkerGone, WorkerHandle, WorkerTimeout

# How long shutdown waits for a dead actor's leftover browser before killing it, and for the
# sweep: both within the 15 s the pool gives ``shutdown``.
SHUTDOWN_GRACE_S = 5.0


class WorkerActor:
    """The remote class: one ``Worker`` (one Chromium) per actor."""

    def __init__(self, config: WorkerConfig, slot: str = "ray") -> None:
        # __init__ of an actor cannot await: the browser is launched by ``start``
        self._worker = Worker(config)
        self._slot = slot
        self._tmp = scratch.OwnTmpdir()

    async def start(self) -> dict[str, Any]:
        """Launch the browser in a ``TMPDIR`` of the actor's own (``scratch.py``), after
        sweeping those of actors killed on this node; returns where the actor runs (node id
        and address, pid, its ``TMPDIR``)."""
        self._tmp.take(self._slot)  # after sweeping those of actors killed on this node
        await self._worker.start()
        return self._where()

    def _where(self) -> dict[str, Any]:
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "node_ip": ray.util.get_node_ip_address(),
            "pid": os.getpid(),
            "tmpdir": str(self._tmp.path),
        }

    async def create(
        self, start_url: str, session: SessionOptions, observation: ObservationOptions
    ) -> tuple[str, Observation]:
        return await self._worker.create(start_url, session, observation)

    async def step(
        self, session_id: str, action: Action, observation: ObservationOptions
    ) -> Observation:
        return await self._worker.step(session_id, action, observation)

    async def observe(self, session_id: str, observation: ObservationOptions) -> Observation:
        return await self._worker.observe(session_id, observation)

    async def final_state(self, session_id: str, answer: str | None) -> FinalState:
        return await self._worker.final_state(session_id, answer)

    async def close(self, session_id: str) -> None:
        await self._worker.close(session_id)

    async def stats(self) -> dict[str, Any]:
        # a coroutine like the rest, so it runs on the event loop that owns the Worker's state
        return {**self._worker.stats(), **self._where()}

    async def shutdown(self) -> None:
        """Close every session and the browser, then remove the actor's ``TMPDIR`` and finish
        the sweep; the pool then kills the actor."""
        await self._worker.aclose()
        await self._tmp.aclose(SHUTDOWN_GRACE_S)


class RayWorker(WorkerHandle):
    """A started ``WorkerActor``. ``await RayWorker.spawn(...)`` returns one whose browser is
    up, or raises a webdojo error (and leaves no actor behind)."""

    def __init__(self, actor: Any, name: str, where: dict[str, Any]) -> None:
        self.actor = actor  # a ray ActorHandle
        self.name = name  # the Ray actor name (``ray.get_actor(name)``)
        self.where = where  # node_id, node_ip, pid

    @classmethod
    async def spawn(
        cls,
        actor_class: Any,
        name: str,
        config: WorkerConfig,
        timeout_s: float,
        slot: str = "ray",
        **options: Any,
    ) -> RayWorker:
        """``actor_class`` is ``ray.remote(WorkerActor)``; ``slot`` names the worker (``ray-0``)
        in its ``TMPDIR``; ``options`` go to its ``.options`` (num_cpus, scheduling_strategy...)."""
        actor = actor_class.options(name=name, **options).remote(config, slot)
        try:
            async with asyncio.timeout(timeout_s):
                where = await actor.start.remote()
        except BaseException as exc:
            _kill(actor)
            if isinstance(exc, TimeoutError):
                cpus = options.get("num_cpus", 1)
                raise InfraError(
                    f"actor {name} did not start within {timeout_s:g} s "
                    f"(does the cluster have {cpus:g} CPU free for it?)"
                ) from exc
            if isinstance(exc, RayError):
                raise _translate(exc, f"actor {name} failed to start") from exc
            raise
        return cls(actor, name, where)

    @property
    def label(self) -> str:
        return f"actor {self.name}"

    async def call(self, method: str, *args: Any, timeout: float) -> Any:
        """Raises the actor's webdojo errors, ``WorkerGone``, or ``WorkerTimeout``."""
        try:
            async with asyncio.timeout(timeout):
                return await getattr(self.actor, method).remote(*args)
        except RayTaskError as exc:  # before RayActorError: a task error may wrap one
            raise _translate(exc, f"actor {self.name} failed in {method}") from exc
        except RayActorError as exc:
            raise WorkerGone(f"actor {self.name} died during {method}") from exc
        except RayError as exc:
            raise _translate(exc, f"Ray failed during {method} on actor {self.name}") from exc
        except TimeoutError as exc:  # after RayError: Ray's own timeouts are RayErrors too
            raise WorkerTimeout(
                f"actor {self.name}: no answer to {method} in {timeout:g} s"
            ) from exc

    def kill(self) -> None:
        _kill(self.actor)

    async def stop(self, timeout_s: float = 15.0) -> None:
        """Close the actor's browser, then kill the actor."""
        with contextlib.suppress(WorkerGone, WorkerTimeout, WebdojoError):
            await self.call("shutdown", timeout=timeout_s)
        self.kill()


def _translate(exc: RayError, context: str) -> WebdojoError:
    """The webdojo error for a Ray exception: the actor's own error when it raised one (Ray
    wraps it in ``RayTaskError``; ``.cause`` is the original, same class and details)."""
    cause = exc.cause if isinstance(exc, RayTaskError) else None
    if isinstance(cause, WebdojoError):
        return cause
    if isinstance(exc, RayTaskError):  # not a webdojo error: a bug in the actor
        what = type(cause).__name__ if cause is not None else exc.function_name
        return InternalError(f"{context}: {what}: {cause}")
    return InfraError(f"{context}: {type(exc).__name__}: {exc}")


def _kill(actor: Any) -> None:
    with contextlib.suppress(Exception):  # already dead, or Ray is shutting down
        ray.kill(actor, no_restart=True)
