"""Tasks started and not awaited by their starter: closing a tab, removing a scratch directory,
reading a recorded body.

The event loop keeps only a weak reference to a task, so a task nobody holds can be collected
before it finishes; ``Background`` holds each one until it is done, and lets its owner wait
for them or cancel them all when it closes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any


class Background:
    """``spawn`` a coroutine; the task is held until done. ``wait`` and ``cancel`` at close."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], *, quiet: bool = False) -> asyncio.Task[Any]:
        """Start ``coro`` on the running loop. ``quiet``: its outcome matters to nobody, so
        an exception is retrieved here rather than logged as never retrieved."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if quiet:
            task.add_done_callback(_retrieve)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[asyncio.Task[Any]]:
        return iter(list(self._tasks))

    async def wait(self, timeout_s: float | None = None) -> None:
        """Until every task started so far is done (or ``timeout_s`` passed)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout_s)

    async def cancel(self) -> None:
        """Cancel every task and wait until each has ended; what they raise is dropped."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
