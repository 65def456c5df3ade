"""A navigation step's latency, webdojo's against the floor's, with contenders: the harness
behind docs/benchmarks.md's navigation figures beside BrowserGym.

    python scripts/nav_latency_ab.py [--rounds 6] [--steps 20] [--flags NAME='ARGS' ...]

On ``bench compare-browsergym``'s two pages, each contender gets a fresh browser per round
and times ``steps`` in-page steps (a click at the counter button) and as many navigation
steps (``goto`` the other page), each followed by a JPEG of the viewport, after 2 untimed
ones of each (``browsergym_bench.time_kinds``); the contenders take turns, in reverse order
every other round. Printed: the medians over the rounds of each round's p50, and of the CPU
per step of the whole process tree.

- ``floor``: raw Playwright's ``goto`` (or click) and a bare ``Page.captureScreenshot``
  (``bench.raw_page``, as ``bench compare-browsergym``'s floor side);
- ``webdojo``: ``BrowserSession.step`` as ``bench compare-browsergym`` runs it;
- ``webdojo, no probe before a navigation``: the same without ``hung.unbusy``, the check
  that the old document is not stuck in a script (measurement only: without it a navigation
  away from a busy page waits out its deadline);
- ``--flags NAME='ARGS'``: webdojo with Chromium flags added to the launch.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from webdojo.actions import Click, Goto
from webdojo.bench.browsergym_bench import time_kinds
from webdojo.bench.env_runners import SHOT
from webdojo.bench.pages import COUNTER_XY, write_pages
from webdojo.bench.raw_page import RawPage
from webdojo.bench.static import StaticServer
from webdojo.browser import BrowserConfig, BrowserHost, SessionOptions, executor

InPage = Callable[[], Awaitable[None]]
Nav = Callable[[str], Awaitable[None]]
Contender = Callable[[StaticServer], AbstractAsyncContextManager[tuple[InPage, Nav]]]


def webdojo(extra_args: tuple[str, ...] = (), probe: bool = True) -> Contender:
    @asynccontextmanager
    async def steps(server: StaticServer) -> Any:
        host = await BrowserHost.launch(BrowserConfig(extra_args=extra_args))
        async with host:
            session = await host.new_session(SessionOptions().allowing(server.url("")))
            await session.goto(server.url("a.html"))
            await session.observe(SHOT)

            async def nav(url: str) -> None:
                with _probe(probe):
                    obs = await session.step(Goto(url=url), SHOT)
                assert obs.last_error is None and obs.url == url, obs.last_error

            async def click() -> None:
                obs = await session.step(Click(x=COUNTER_XY[0], y=COUNTER_XY[1]), SHOT)
                assert obs.last_error is None, obs.last_error

            try:
                yield click, nav
            finally:
                await session.aclose()

    return steps


@contextmanager
def _probe(on: bool) -> Iterator[None]:
    """``hung.unbusy`` as it is (``on``), or left out for the step it wraps."""
    saved = executor.unbusy
    if not on:
        executor.unbusy = _nothing
    try:
        yield
    finally:
        executor.unbusy = saved


async def _nothing(tab: object) -> None:
    return None


@asynccontextmanager
async def floor(server: StaticServer) -> Any:
    host = await BrowserHost.launch()
    async with host:
        raw = await RawPage.open(host.browser, server.url("a.html"))
        try:
            yield raw.click_floor, raw.goto_floor
        finally:
            await raw.close()


async def one_round(contender: Contender, server: StaticServer, steps: int) -> dict[str, Any]:
    """p50 (ms) and CPU per step (ms) of each kind of step, on a fresh browser."""
    async with contender(server) as (inpage, nav):
        blocks = await time_kinds(server, steps, inpage, nav)
    return {kind: (statistics.median(b.ms), b.cpu_ms) for kind, b in blocks.items()}


async def run(contenders: dict[str, Contender], rounds: int, steps: int) -> dict[str, list[Any]]:
    results: dict[str, list[Any]] = {name: [] for name in contenders}
    pages = Path(tempfile.mkdtemp(prefix="webdojo-nav-latency-"))
    write_pages(pages)
    with StaticServer(str(pages)) as server:
        for number in range(rounds):
            names = list(contenders) if number % 2 == 0 else list(contenders)[::-1]
            for name in names:
                results[name].append(await one_round(contenders[name], server, steps))
    return results


def table(results: dict[str, list[Any]]) -> Table:
    out = Table("contender", "nav p50", "nav CPU", "in-page p50", "in-page CPU", "nav p50 by round")
    for name, rounds in results.items():
        cells = [
            f"{statistics.median(r[kind][part] for r in rounds):.1f} ms"
            for kind in ("nav", "inpage")
            for part in (0, 1)
        ]
        by_round = " ".join(f"{r['nav'][0]:.0f}" for r in rounds)
        out.add_row(name, *cells, by_round)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--flags", action="append", default=[], metavar="NAME='ARGS'")
    args = parser.parse_args()
    contenders: dict[str, Contender] = {
        "floor": floor,
        "webdojo": webdojo(),
        "webdojo, no probe before a navigation": webdojo(probe=False),
    }
    for spec in args.flags:
        name, _, flags = spec.partition("=")
        contenders[f"webdojo, {name}"] = webdojo(tuple(flags.split()))
    results = asyncio.run(run(contenders, args.rounds, args.steps))
    Console().print(table(results))


if __name__ == "__main__":
    main()
