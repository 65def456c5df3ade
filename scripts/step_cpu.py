"""Where an in-page step's CPU goes, by process, against the raw CDP floor: the table behind
docs/benchmarks.md's "Where a step's CPU goes".

    python scripts/step_cpu.py [--rounds 4] [--seconds 6] [--sessions 8] [--no-server]

Sessions step flat out (``webdojo bench rollout``'s click + JPEG screenshot on its page),
each contender in turn, the order reversed every round, all set up once before the first:

- raw CDP: Playwright's ``mouse.click`` and a bare ``Page.captureScreenshot`` (the floor);
- in-process: ``BrowserSession.step``;
- in-process, scripts sent whole: the same, with act.js, dom.js and shot.js sent with every
  call as before page_scripts.py installed them in the document;
- server: ``HttpEnv`` against ``webdojo serve`` in a child process (sessions in the server's
  own process, as the bench runs it).

Each process's CPU (user + system) is read before and after a contender's window and put in
a column by what it is: this Python process (the client), the server, Playwright's node
drivers, and Chromium's browser, renderer and GPU processes. Figures are medians over the
rounds, in ms of CPU per step.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import psutil

from webdojo.bench import rollout_legs as legs
from webdojo.bench.pages import COUNTER_XY, write_pages
from webdojo.bench.static import StaticServer
from webdojo.browser import page_scripts
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions

Step = Callable[[], Awaitable[Any]]
COLUMNS = ("client", "server", "driver", "browser", "renderer", "gpu-process", "other")


def _kind(proc: psutil.Process) -> str:
    if proc.pid == os.getpid():
        return "client"
    try:
        line = proc.cmdline()
    except psutil.Error:
        return "other"
    text = " ".join(line)
    if line and line[0].endswith("node"):
        return "driver"
    if "serve" in line and "webdojo" in text:
        return "server"
    for kind in ("renderer", "gpu-process"):
        if f"--type={kind}" in text:
            return kind
    if "chrom" in text and "--type=" not in text:
        return "browser"
    return "other"  # zygotes, utility processes


class Tree:
    """CPU seconds of this process and its descendants, each filed under its kind once."""

    def __init__(self) -> None:
        self.kinds: dict[int, str] = {}

    def read(self) -> dict[int, float]:
        me = psutil.Process()
        seen: dict[int, float] = {}
        for proc in [me, *me.children(recursive=True)]:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            seen[proc.pid] = times.user + times.system
            if proc.pid not in self.kinds:
                self.kinds[proc.pid] = _kind(proc)
        return seen


@contextmanager
def scripts_sent_whole() -> Iterator[None]:
    """Within: every page-side call sends its whole script, as before page_scripts.py."""
    call, shot = page_scripts.call, page_scripts.shot

    async def whole_call(page: Any, fn: str, args: Any) -> Any:
        return await page.evaluate(page_scripts._WHOLE[fn], args)

    async def whole_shot(cdp: Any, op: str) -> Any:
        params = {"expression": page_scripts.shot_expressions(op)[1], "returnByValue": True}
        return await cdp.send("Runtime.evaluate", {**params, "awaitPromise": True})

    page_scripts.call, page_scripts.shot = whole_call, whole_shot  # type: ignore[assignment]
    try:
        yield
    finally:
        page_scripts.call, page_scripts.shot = call, shot  # type: ignore[assignment]


async def _window(tree: Tree, steps: list[Step], seconds: float) -> tuple[float, dict[str, float]]:
    """Steps per second and CPU ms per step by kind, every stepper looping for ``seconds``."""
    count = 0
    end = time.perf_counter() + seconds

    async def loop(step: Step) -> None:
        nonlocal count
        while time.perf_counter() < end:
            await step()
            count += 1

    before, start = tree.read(), time.perf_counter()
    await asyncio.gather(*(loop(s) for s in steps))
    wall, after = time.perf_counter() - start, tree.read()
    per: dict[str, float] = defaultdict(float)
    for pid, cpu in after.items():
        per[tree.kinds[pid]] += (cpu - before.get(pid, 0.0)) * 1000 / max(count, 1)
    return count / wall, per


async def _raw_steps(stack: AsyncExitStack, host: BrowserHost, url: str, n: int) -> list[Step]:
    shot = {"format": "jpeg", "quality": legs.JPEG_QUALITY}
    steps: list[Step] = []
    for _ in range(n):
        context = await host.browser.new_context(viewport={"width": 1280, "height": 720})
        stack.push_async_callback(context.close)
        page = await context.new_page()
        await page.goto(url)
        cdp = await context.new_cdp_session(page)

        async def step(page: Any = page, cdp: Any = cdp) -> None:
            await page.mouse.click(*COUNTER_XY)
            base64.b64decode((await cdp.send("Page.captureScreenshot", shot))["data"])

        steps.append(step)
    return steps


async def _session_steps(stack: AsyncExitStack, opened: list[Any]) -> list[Step]:
    for session in opened:
        stack.push_async_callback(session.aclose)
    return [functools.partial(s.step, legs.CLICK, legs.SHOT) for s in opened]


async def main(args: argparse.Namespace) -> None:
    tree = Tree()
    async with AsyncExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        write_pages(tmp)
        url = stack.enter_context(StaticServer(tmp)).url("a.html")
        host = await stack.enter_async_context(await BrowserHost.launch())
        local = []
        for _ in range(args.sessions):
            local.append(await host.new_session(SessionOptions().allowing(url)))
            await local[-1].goto(url)
        inprocess = await _session_steps(stack, local)
        contenders: dict[str, tuple[list[Step], Callable[[], Any]]] = {
            "raw CDP": (await _raw_steps(stack, host, url, args.sessions), nullcontext),
            "in-process": (inprocess, nullcontext),
            "in-process, scripts sent whole": (inprocess, scripts_sent_whole),
        }
        if not args.no_server:
            from webdojo.rollout.http_env import HttpEnv
            from webdojo.server.child_process import ServerProcess

            serve = [
                "--workers",
                "0",
                "--max-sessions",
                str(args.sessions * 2),
                "--allow-host",
                url,
            ]
            server = stack.enter_context(ServerProcess(serve))
            env = await stack.enter_async_context(HttpEnv(server.url))
            opened = [(await env.open_url(url, legs.SHOT))[0] for _ in range(args.sessions)]
            contenders["server"] = (await _session_steps(stack, opened), nullcontext)
        await _report(tree, contenders, args)


async def _report(
    tree: Tree, contenders: dict[str, tuple[list[Step], Callable[[], Any]]], args: Any
) -> None:
    names = list(contenders)
    for name in names:  # warm-up
        steps, within = contenders[name]
        with within():
            await _window(tree, steps, 2.0)
    rates: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            steps, within = contenders[name]
            with within():
                rate, per = await _window(tree, steps, args.seconds)
            rates[name].append(rate)
            for column in COLUMNS:
                cpu[name][column].append(per.get(column, 0.0))
            cpu[name]["total"].append(sum(per.values()))
    floor = statistics.median(rates["raw CDP"])
    print(f"ms of CPU per step, medians of {args.rounds} rounds, {args.sessions} sessions")
    print(
        f"{'':32}{'steps/s':>9}{'of floor':>9}" + "".join(f"{c:>12}" for c in (*COLUMNS, "total"))
    )
    for name in names:
        rate = statistics.median(rates[name])
        cells = "".join(f"{statistics.median(cpu[name][c]):>12.1f}" for c in (*COLUMNS, "total"))
        print(f"{name:32}{rate:>9.1f}{rate / floor:>9.3f}{cells}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--no-server", action="store_true")
    asyncio.run(main(parser.parse_args()))
