"""``webdojo bench step-cpu`` with more contenders, the ways before four changes of
2026-11-30, in the same run: the harness behind docs/benchmarks.md's "Where a
step's CPU goes".

    python scripts/step_cpu_ab.py [--nav] [--rounds 4] [--seconds 6] [--no-server] [--aa]

- ``in-process, scripts sent whole``: act.js, dom.js and shot.js sent with every call, as
  before page_scripts.py installed them in each document;
- ``in-process, reads through page.evaluate``: sessions of their own whose post-action check
  and title reads go through Playwright's evaluate, as before they were bare CDP
  ``Runtime.evaluate`` calls (``page_scripts.read``, 2026-11-30);
- ``in-process, title read apart`` (``--nav``): a new page's title read by its own evaluate
  beside a capture that readies the page itself, as before one read did both;
- ``in-process, caret sheet adopted late`` (``--nav``): sessions of their own whose init
  script leaves the caret sheet to the first capture's preparation, as before the init
  script adopted it at document start.

``--aa`` runs none of these but ``in-process again``: the in-process sessions measured twice
per round, as two contenders. Whatever separates the two is the bench's own noise, the
least difference between two ways that one run can tell.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console

from webdojo.bench.rollout_legs import open_sessions
from webdojo.bench.step_cpu import Contender, Setup, Step, run_step_cpu, session_steps
from webdojo.browser import host, observe, page_scripts

CARET_AT_START = '  try { fns.shot("caret"); } catch (e) {}'


@contextmanager
def scripts_sent_whole() -> Iterator[None]:
    call, shot = page_scripts.call, page_scripts.shot

    async def whole_call(page: Any, fn: str, args: Any) -> Any:
        return await page.evaluate(page_scripts._WHOLE[fn], args)

    async def whole_shot(cdp: Any, op: str) -> Any:
        expression = page_scripts.shot_expressions(op)[1]
        params = {"expression": expression, "awaitPromise": True, "returnByValue": True}
        return await cdp.send("Runtime.evaluate", params)

    page_scripts.call, page_scripts.shot = whole_call, whole_shot  # type: ignore[assignment]
    try:
        yield
    finally:
        page_scripts.call, page_scripts.shot = call, shot  # type: ignore[assignment]


@contextmanager
def title_read_apart() -> Iterator[None]:
    title = observe._title

    async def apart(tab: Any, *, ready: bool = False) -> str:
        return await title(tab)

    observe._title = apart  # type: ignore[assignment]
    try:
        yield
    finally:
        observe._title = title  # type: ignore[assignment]


async def caret_adopted_late(setup: Setup) -> list[Step]:
    """Sessions opened with the init script less its caret line."""
    init = host.INIT_JS
    assert CARET_AT_START in init, "page_scripts._INSTALL changed: update CARET_AT_START"
    host.INIT_JS = init.replace(CARET_AT_START, "")  # type: ignore[misc]
    try:
        opened = await open_sessions(setup.host, setup.urls[0], setup.sessions)
    finally:
        host.INIT_JS = init  # type: ignore[misc]
    return session_steps(setup.stack, opened, setup.urls, setup.nav)


async def reads_through_playwright(setup: Setup) -> Contender:
    """Sessions of their own, whose page_scripts.read runs as page_scripts.call on the page of
    the tab's CDP session."""
    opened = await open_sessions(setup.host, setup.urls[0], setup.sessions)
    pages = {await s._tabs.current.cdp(): s._tabs.current.page for s in opened}
    read = page_scripts.read

    async def through_page(cdp: Any, fn: str, args: Any) -> Any:
        return await page_scripts.call(pages[cdp], fn, args)

    @contextmanager
    def within() -> Iterator[None]:
        page_scripts.read = through_page  # type: ignore[assignment]
        try:
            yield
        finally:
            page_scripts.read = read  # type: ignore[assignment]

    steps = session_steps(setup.stack, opened, setup.urls, setup.nav)
    return Contender("in-process, reads through page.evaluate", steps, within)


async def before(setup: Setup, inprocess: list[Step]) -> list[Contender]:
    ways = [Contender("in-process, scripts sent whole", inprocess, scripts_sent_whole)]
    ways.append(await reads_through_playwright(setup))
    if setup.nav:
        ways.append(Contender("in-process, title read apart", inprocess, title_read_apart))
        late = await caret_adopted_late(setup)
        ways.append(Contender("in-process, caret sheet adopted late", late))
    return ways


async def again(setup: Setup, inprocess: list[Step]) -> list[Contender]:
    return [Contender("in-process again", inprocess)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nav", action="store_true")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--no-server", action="store_true")
    parser.add_argument("--aa", action="store_true", help="the in-process sessions twice")
    args = parser.parse_args()
    result = asyncio.run(
        run_step_cpu(
            nav=args.nav,
            rounds=args.rounds,
            seconds=args.seconds,
            server=not args.no_server,
            extra=again if args.aa else before,
        )
    )
    Console(width=160).print(result.table())
