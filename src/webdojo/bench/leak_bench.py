"""Memory per episode of a worker: does anything grow with the episodes it serves?

``python -m webdojo.bench.leak_bench [--warmup 30] [--first 150] [--then 250] [--json]``

An in-process ``Worker`` (warm pool of one, browser recycled every 200 contexts, as in
``webdojo serve``) runs episodes on the benchmark pages: create, five clicks with a
screenshot, final state, close. After ``--warmup`` episodes tracemalloc starts; a snapshot is
taken after ``--first`` more episodes and another after ``--then`` more. Growth over the
first window includes what fills once (caches, a browser recycle's new objects); a leak
grows with every episode, so the figure is the growth over the second window divided by its
episodes (``traced_bytes_per_episode``), with the sites that grew most. RSS is reported too;
it includes the allocator keeping freed memory, which levels off rather than leaks.

The soak (``webdojo bench soak --faults none``) measures growth per hour through the server;
this isolates the worker and the browser layer in one process, where tracemalloc can say
where memory went.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import tempfile
import tracemalloc
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

from webdojo.bench.pages import write_pages
from webdojo.bench.rollout_legs import CLICK, SHOT
from webdojo.bench.static import StaticServer
from webdojo.browser.options import SessionOptions
from webdojo.server.worker.core import Worker, WorkerConfig

STEPS = 5  # clicks per episode


@dataclass
class LeakResult:
    warmup: int
    first: int
    then: int
    traced_first_kb: float = 0.0  # tracemalloc growth over the first window
    traced_then_kb: float = 0.0  # ... and over the second
    rss_first_mb: float = 0.0
    rss_then_mb: float = 0.0
    top_sites: list[dict[str, object]] = field(default_factory=list)  # second window

    @property
    def traced_bytes_per_episode(self) -> float:
        return round(self.traced_then_kb * 1000 / self.then, 1) if self.then else 0.0

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "traced_bytes_per_episode": self.traced_bytes_per_episode}


async def _episodes(worker: Worker, urls: list[str], count: int) -> None:
    options = SessionOptions().allowing(*urls)  # the bench's own page server
    for i in range(count):
        session_id, _ = await worker.create(urls[i % len(urls)], options, SHOT)
        for _ in range(STEPS):
            await worker.step(session_id, CLICK, SHOT)
        await worker.final_state(session_id)
        await worker.close(session_id)


def _measure() -> tuple[tracemalloc.Snapshot, int]:
    gc.collect()
    return tracemalloc.take_snapshot(), psutil.Process().memory_info().rss


def _grown_kb(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot) -> float:
    return round(sum(s.size_diff for s in after.compare_to(before, "filename")) / 1000, 1)


def _top(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot) -> list[dict[str, object]]:
    stats = after.compare_to(before, "lineno")[:5]
    return [{"site": str(s.traceback), "kb": round(s.size_diff / 1000, 1)} for s in stats]


async def run_leak_bench(warmup: int, first: int, then: int) -> LeakResult:
    result = LeakResult(warmup, first, then)
    with tempfile.TemporaryDirectory(prefix="webdojo-leak-bench-") as tmp:
        write_pages(Path(tmp))
        with StaticServer(tmp) as pages:
            # two start URLs in turn, so that warm pages are preloaded and dropped as in a run
            urls = [pages.url("a.html"), pages.url("a.html"), pages.url("b.html")]
            async with Worker(WorkerConfig(warm_contexts=1)) as worker:
                await _episodes(worker, urls, warmup)
                tracemalloc.start()
                try:
                    snap0, rss0 = _measure()
                    await _episodes(worker, urls, first)
                    snap1, rss1 = _measure()
                    await _episodes(worker, urls, then)
                    snap2, rss2 = _measure()
                finally:
                    tracemalloc.stop()
    result.traced_first_kb = _grown_kb(snap0, snap1)
    result.traced_then_kb = _grown_kb(snap1, snap2)
    result.rss_first_mb = round((rss1 - rss0) / 1e6, 2)
    result.rss_then_mb = round((rss2 - rss1) / 1e6, 2)
    result.top_sites = _top(snap1, snap2)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--first", type=int, default=150)
    parser.add_argument("--then", type=int, default=250)
    parser.add_argument("--json", action="store_true", help="the result as the last stdout line")
    args = parser.parse_args(argv)
    result = asyncio.run(run_leak_bench(args.warmup, args.first, args.then))
    print(
        f"traced growth: {result.traced_first_kb} KB over the first {result.first} episodes, "
        f"{result.traced_then_kb} KB over the next {result.then} "
        f"({result.traced_bytes_per_episode} B per episode)\n"
        f"RSS growth: {result.rss_first_mb} MB, then {result.rss_then_mb} MB"
    )
    for site in result.top_sites:
        print(f"  {site['kb']:>8} KB  {site['site']}")
    if args.json:
        print(json.dumps(result.to_json()))


if __name__ == "__main__":
    main()
