"""What one page-side read costs, by process: the post-action check and the DOM snapshot
through Playwright's ``page.evaluate`` (``page_scripts.call``) and as a bare CDP
``Runtime.evaluate`` (``page_scripts.read``), on ``bench rollout``'s page, taking turns.

    python scripts/evaluate_cost.py [--calls 300] [--rounds 4]

A step of webdojo makes one such read more than the floor of ``bench step-cpu`` (a click and a
bare capture): the check of what the action started, which also reads the title and readies
the page for the capture. So the cheaper way's CPU per call, over the floor step's, is about
what webdojo must add to a step whatever else it cuts (docs/benchmarks.md, "Where a step's
CPU goes").
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from webdojo.bench.pages import write_pages
from webdojo.bench.raw_page import viewport
from webdojo.bench.static import StaticServer
from webdojo.bench.step_cpu import COLUMNS, ProcessTree
from webdojo.browser import page_scripts
from webdojo.browser.host import BrowserHost

CHECK = {"op": "check", "seen": None}  # an observation's first read: check + readying
SNAP = {"lines": True, "marks": False, "ready": False}  # the accessibility tree's snapshot


async def per_call(tree: ProcessTree, call: Any, calls: int) -> dict[str, float]:
    """ms of CPU per call, by column."""
    before = tree.read()
    for _ in range(calls):
        await call()
    return tree.per_unit(before, tree.read(), calls)


async def run(calls: int, rounds: int) -> dict[str, list[dict[str, float]]]:
    pages = Path(tempfile.mkdtemp(prefix="webdojo-evaluate-cost-"))
    write_pages(pages)
    with StaticServer(pages) as server:
        host = await BrowserHost.launch()
        try:
            context = await host.browser.new_context(viewport=viewport())  # type: ignore[arg-type]
            await context.add_init_script(page_scripts.INIT_JS)
            page = await context.new_page()
            await page.goto(server.url("a.html"))
            cdp = await context.new_cdp_session(page)
            ways = {
                "check, page.evaluate (call)": lambda: page_scripts.call(page, "check", CHECK),
                "check, Runtime.evaluate (read)": lambda: page_scripts.read(cdp, "check", CHECK),
                "snapshot, page.evaluate (call)": lambda: page_scripts.call(page, "snap", SNAP),
                "snapshot, Runtime.evaluate (read)": lambda: page_scripts.read(cdp, "snap", SNAP),
            }
            tree, measured = ProcessTree(), defaultdict(list)
            for way in ways.values():
                await way()  # each answers before anything is timed
            for round_ in range(rounds):
                order = list(ways) if round_ % 2 == 0 else list(reversed(ways))
                for name in order:
                    measured[name].append(await per_call(tree, ways[name], calls))
            return dict(measured)
        finally:
            await host.aclose()


def table(measured: dict[str, list[dict[str, float]]]) -> Table:
    columns = [c for c in COLUMNS if any(c in r for rows in measured.values() for r in rows)]
    out = Table(title="CPU per call, ms (median of the rounds)")
    for heading in ("way", *columns, "total"):
        out.add_column(heading, justify="left" if heading == "way" else "right")
    for name, rows in measured.items():
        cells = [statistics.median(r.get(c, 0.0) for r in rows) for c in columns]
        total = statistics.median(sum(r.values()) for r in rows)
        out.add_row(name, *(f"{v:.2f}" for v in cells), f"{total:.2f}")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    Console(width=140).print(table(asyncio.run(run(args.calls, args.rounds))))
