"""An in-page click + screenshot step with and without the post-action check readying the page
for the screenshot (page_scripts.CHECK_AND_PREPARE), in one run, taking turns: the harness behind
the "one round trip less" figures in docs/benchmarks.md.

    python scripts/check_readies_ab.py latency [--rounds 10] [--steps 40]
        one session: step p50 / p90 and CPU per step of the whole process tree (Python, the
        driver, Chromium)
    python scripts/check_readies_ab.py saturation [--rounds 5] [--sessions 8]
        sessions stepping flat out: steps/s of each way beside raw CDP (the floor of
        ``webdojo bench rollout``), medians of the rounds

"Without" calls ``BrowserSession.execute`` without ``shot``, so the check readies nothing and
the capture sends its own evaluate, as before 2026-11-29. The pages and the step are
``webdojo bench rollout``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from webdojo.bench import rollout_legs as legs
from webdojo.bench.cpu_meter import CpuMeter
from webdojo.bench.pages import write_pages
from webdojo.bench.rollout_bench import StaticServer
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.browser.session import BrowserSession

WAYS = ("check readies", "capture readies")


@contextmanager
def way(name: str) -> Iterator[None]:
    """Within: every session steps the ``name`` way."""
    step = BrowserSession.step

    async def unreadied(self: BrowserSession, action: Any, options: Any) -> Any:
        execute = self.execute
        self.execute = lambda a, shot=False: execute(a)
        try:
            return await step(self, action, options)
        finally:
            del self.execute

    BrowserSession.step = unreadied if name == "capture readies" else step
    try:
        yield
    finally:
        BrowserSession.step = step


async def latency(host: BrowserHost, url: str, rounds: int, steps: int) -> None:
    session = await host.new_session(SessionOptions().allowing(url))
    await session.goto(url)
    await session.observe(legs.SHOT)
    took: dict[str, list[float]] = {w: [] for w in WAYS}
    cpu = dict.fromkeys(WAYS, 0.0)
    for r in range(rounds):
        for name in WAYS if r % 2 == 0 else WAYS[::-1]:
            with way(name), CpuMeter() as meter:
                for _ in range(steps):
                    start = time.perf_counter()
                    await session.step(legs.CLICK, legs.SHOT)
                    took[name].append(time.perf_counter() - start)
            assert meter.usage is not None
            cpu[name] += meter.usage.tree_cpu_s
    await session.aclose()
    for name, values in took.items():
        values.sort()
        print(
            f"{name}: p50 {statistics.median(values) * 1000:.1f} ms, "
            f"p90 {values[int(len(values) * 0.9)] * 1000:.1f} ms, "
            f"CPU {cpu[name] / len(values) * 1000:.1f} ms per step"
        )


async def saturation(host: BrowserHost, url: str, rounds: int, sessions: int) -> None:
    async def inprocess(name: str) -> legs.Saturation:
        with way(name):
            return await legs.saturate_inprocess(host, url, sessions, 3.0, 15.0)

    contenders: dict[str, legs.Contender] = {
        "raw CDP": functools.partial(legs.saturate_raw, host, url, sessions, 3.0, 15.0, cdp=True),
        **{name: functools.partial(inprocess, name) for name in WAYS},
    }
    results = await legs.saturation_rounds(contenders, rounds)
    floor = results[0].steps_per_s
    for name, result in zip(contenders, results, strict=True):
        rounds_text = ", ".join(f"{r:.1f}" for r in result.rounds)
        print(
            f"{name}: {result.steps_per_s:.2f} steps/s ({result.steps_per_s / floor:.3f} of raw "
            f"CDP; rounds {rounds_text})"
        )


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_pages(Path(tmp))
        with StaticServer(Path(tmp)) as pages:
            url = pages.url("a.html")
            async with await BrowserHost.launch() as host:
                if args.what == "latency":
                    await latency(host, url, args.rounds or 10, args.steps)
                else:
                    await saturation(host, url, args.rounds or 5, args.sessions)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("latency", "saturation"))
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=8)
    asyncio.run(main(parser.parse_args()))
