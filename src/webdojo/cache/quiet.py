"""Waiting for a page's network to settle: no request in flight for a while.

Playwright's ``networkidle`` waits a fixed 500 ms after the last connection and only around
navigations; recording and replay count their own requests instead, so they know when a page
that keeps fetching after ``load`` is done.
"""

from __future__ import annotations

import asyncio


class InFlight:
    """A counter of requests in flight, with an event set while it is zero."""

    def __init__(self) -> None:
        self.count = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.changes = 0  # bumps on every start/stop, so a waiter sees quiet that held

    def start(self) -> None:
        self.count += 1
        self.changes += 1
        self._idle.clear()

    def stop(self) -> None:
        self.count = max(0, self.count - 1)
        self.changes += 1
        if self.count == 0:
            self._idle.set()

    async def settle(self, quiet_s: float = 0.3, timeout_s: float = 10.0) -> bool:
        """Wait until nothing was in flight for ``quiet_s``; False when ``timeout_s`` passed
        first (a page that polls forever)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while loop.time() < deadline:
            try:
                await asyncio.wait_for(self._idle.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                return False
            before = self.changes
            await asyncio.sleep(quiet_s)
            if self.changes == before and self.count == 0:
                return True
        return False
