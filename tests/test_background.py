"""``Background`` holds its tasks until done, waits for them and cancels them at close."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from webdojo.background import Background


async def test_tasks_are_held_until_done_then_dropped() -> None:
    background, release = Background(), asyncio.Event()
    ran: list[str] = []

    async def work() -> None:
        await release.wait()
        ran.append("done")

    background.spawn(work())
    gc.collect()  # only ``background`` holds the task: it must survive a collection
    assert len(background) == 1
    release.set()
    await background.wait()
    assert ran == ["done"] and len(background) == 0


async def test_wait_gives_up_after_its_timeout() -> None:
    background = Background()
    task = background.spawn(asyncio.sleep(60))
    await background.wait(timeout_s=0.01)
    assert not task.done() and list(background) == [task]
    await background.cancel()
    assert task.cancelled() and len(background) == 0


async def test_cancel_ends_every_task_and_drops_what_they_raise() -> None:
    background, started = Background(), asyncio.Event()

    async def stubborn() -> None:
        try:
            started.set()
            await asyncio.sleep(60)
        finally:
            raise RuntimeError("failed while cancelled")

    tasks = [background.spawn(stubborn()), background.spawn(asyncio.sleep(60))]
    await started.wait()
    await background.cancel()  # raises nothing
    assert all(t.done() for t in tasks) and len(background) == 0


async def test_a_quiet_task_failure_is_not_reported_as_never_retrieved() -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        background = Background()

        async def fail() -> None:
            raise ValueError("nobody waits for this")

        quiet, loud = background.spawn(fail(), quiet=True), background.spawn(fail())
        await background.wait()
        assert isinstance(loud.exception(), ValueError)  # retrieved: no report for it either
        del quiet, loud
        gc.collect()
        assert reported == []

        loud = background.spawn(fail())
        await background.wait()
        del loud
        gc.collect()  # not quiet and never retrieved: the loop reports it
        assert [type(c.get("exception")) for c in reported] == [ValueError]
    finally:
        loop.set_exception_handler(None)
