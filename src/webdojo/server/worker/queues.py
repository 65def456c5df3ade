"""The operation queues of one worker: one queue and one concurrency limit per kind of operation.

WebGym (appendix B.1) gives navigation, screenshot and execution their own queues so that one
slow kind of operation cannot starve the others: twenty tabs waiting on a slow site must not
hold every slot while a fast in-page click waits behind them. Here the kinds are:

* ``create``  - a new episode (context + first navigation) and explicit navigation steps
  (goto, back, forward): the operations that wait on the network;
* ``execute`` - any other step (act + observe);
* ``observe`` - a fresh observation or the final state, without acting.

``QueueMode.FIFO`` runs every kind through one queue with one shared limit: the baseline that
``webdojo.bench.worker_bench`` compares against.

Waiting is bounded: an operation that waits longer than ``queue_timeout_s`` for a slot fails
with ``Overloaded`` (retryable, nothing was done), so that a caller always hears back within
the worker's deadline.

Hung operations lend their slot. A limit bounds the work a worker does at once, but a
navigation to a server that never answers does no work: it only waits out its deadline.
Four of them held every create slot, and another session's goto waited 14 s (up to
``queue_timeout_s``) behind them. So an operation still running ``lend_after_s`` after it
got its slot gives the slot to the next waiter and runs on outside the limit ("overtime"),
until its own deadline ends it. One session's hang then delays another session's operation
by at most ``lend_after_s``; the limit still holds for operations that finish in time.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from enum import StrEnum

from webdojo.errors import Overloaded


class Op(StrEnum):
    CREATE = "create"
    EXECUTE = "execute"
    OBSERVE = "observe"


class QueueMode(StrEnum):
    PER_OP = "per_op"  # one queue + limit per Op (WebGym)
    FIFO = "fifo"  # one queue + one shared limit (the baseline)


class Lane:
    """A FIFO queue in front of ``limit`` slots (asyncio.Semaphore wakes waiters in order)."""

    def __init__(self, name: str, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the {name} queue needs a limit >= 1, not {limit}")
        self.name = name
        self.limit = limit
        self._slots = asyncio.Semaphore(limit)
        self.waiting: Counter[Op] = Counter()  # per kind: queued, not yet running
        self.running: Counter[Op] = Counter()
        self.overtime: Counter[Op] = Counter()  # running, their slot lent to a waiter

    @asynccontextmanager
    async def slot(
        self, op: Op, timeout_s: float, lend_after_s: float | None = None
    ) -> AsyncIterator[None]:
        self.waiting[op] += 1
        try:
            async with asyncio.timeout(timeout_s):
                await self._slots.acquire()
        except TimeoutError as exc:
            raise Overloaded(
                f"the worker is busy: waited {timeout_s:g} s for a free {self.name} slot",
                queue=self.name,
            ) from exc
        finally:
            self.waiting[op] -= 1
        self.running[op] += 1
        lent = False

        def lend() -> None:
            nonlocal lent
            lent = True
            self.overtime[op] += 1
            self._slots.release()

        timer = None
        if lend_after_s is not None:
            timer = asyncio.get_running_loop().call_later(lend_after_s, lend)
        try:
            yield
        finally:
            self.running[op] -= 1
            if timer is not None:
                timer.cancel()
            if lent:
                self.overtime[op] -= 1
            else:
                self._slots.release()


class OpQueues:
    """Routes each Op to its lane (per-op mode) or to the one shared lane (FIFO mode)."""

    def __init__(
        self,
        mode: QueueMode,
        limits: dict[Op, int],
        fifo_limit: int,
        timeout_s: float,
        lend_after_s: float | None = None,
    ) -> None:
        self.mode = mode
        self.timeout_s = timeout_s
        self.lend_after_s = lend_after_s
        if mode is QueueMode.FIFO:
            shared = Lane("fifo", fifo_limit)
            self._lanes = {op: shared for op in Op}
        else:
            self._lanes = {op: Lane(op.value, limits[op]) for op in Op}
        self.completed: Counter[Op] = Counter()

    @asynccontextmanager
    async def slot(self, op: Op) -> AsyncIterator[None]:
        """Wait for a slot of ``op``'s lane, run the block in it, count the operation done."""
        async with self._lanes[op].slot(op, self.timeout_s, self.lend_after_s):
            try:
                yield
            finally:
                self.completed[op] += 1

    def queued(self) -> dict[str, int]:
        """Operations waiting for a slot, per kind (whatever lane they wait in)."""
        return {op.value: self._lanes[op].waiting[op] for op in Op}

    def running(self) -> dict[str, int]:
        return {op.value: self._lanes[op].running[op] for op in Op}

    def overtime(self) -> dict[str, int]:
        """Operations running past ``lend_after_s``, their slots lent to waiters."""
        return {op.value: self._lanes[op].overtime[op] for op in Op}
