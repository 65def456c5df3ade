"""``webdojo bench step-cpu``: where a step's CPU goes, by process, against the raw CDP floor.

Sessions step flat out, each contender in turn with the order reversed every round, all set
up once before the first round. The step is ``webdojo bench rollout``'s click + JPEG
screenshot on its page, or (``nav``) a ``goto`` between its two pages + JPEG screenshot:

- ``raw CDP``: Playwright's ``mouse.click`` (or ``goto``) and a bare
  ``Page.captureScreenshot``, which readies nothing: the floor any framework can reach with
  this browser;
- ``in-process``: ``BrowserSession.step``;
- ``server``: ``HttpEnv`` against ``webdojo serve`` in a child process (sessions in the
  server's own process, as ``bench rollout`` runs it).

Each process's CPU time (user + system) is read before and after a contender's window and
filed under what the process is: this Python process (the client), the server, Playwright's
node drivers, Chromium's browser, renderer and GPU processes, and other Chromium processes.
Figures are medians over the rounds: steps per second, that rate over the floor's (the median
of the rounds' own ratios, ``ratios.paired_ratio``), and ms of CPU per step in each column.
"""

from __future__ import annotations

import asyncio
import functools
import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, AsyncExitStack, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from rich.table import Table

from webdojo.actions import Goto
from webdojo.bench import rollout_legs as legs
from webdojo.bench.pages import write_pages
from webdojo.bench.ratios import paired_ratio
from webdojo.bench.raw_page import RawPage
from webdojo.bench.static import StaticServer
from webdojo.browser.host import BrowserHost

Step = Callable[[], Awaitable[Any]]
Within = Callable[[], AbstractContextManager[Any]]  # patches in place while a contender runs
COLUMNS = ("client", "server", "driver", "browser", "renderer", "gpu", "other")
FLOOR = "raw CDP"


def process_kind(proc: psutil.Process) -> str:
    """The column a process's CPU goes in."""
    if proc.pid == os.getpid():
        return "client"
    try:
        line = proc.cmdline()
    except psutil.Error:
        return "other"
    text = " ".join(line)
    if line and line[0].endswith("node"):
        return "driver"
    if "webdojo" in text and "serve" in line:
        return "server"
    if "--type=renderer" in text:
        return "renderer"
    if "--type=gpu-process" in text:
        return "gpu"
    if "chrom" in text and "--type=" not in text:
        return "browser"
    return "other"  # zygotes, utility processes


class ProcessTree:
    """CPU seconds of this process and its descendants; each process's kind read once."""

    def __init__(self) -> None:
        self.kinds: dict[int, str] = {}

    def read(self) -> dict[int, float]:
        me = psutil.Process()
        seen: dict[int, float] = {}
        for proc in [me, *me.children(recursive=True)]:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue  # it ended between listing and reading
            seen[proc.pid] = times.user + times.system
            if proc.pid not in self.kinds:
                self.kinds[proc.pid] = process_kind(proc)
        return seen

    def per_unit(
        self, before: dict[int, float], after: dict[int, float], units: int
    ) -> dict[str, float]:
        """ms of CPU between two reads, by column, over ``units`` (steps, calls)."""
        cpu: dict[str, float] = defaultdict(float)
        for pid, seconds_used in after.items():
            cpu[self.kinds[pid]] += (seconds_used - before.get(pid, 0.0)) * 1000 / max(units, 1)
        return dict(cpu)


@dataclass(frozen=True)
class Window:
    steps_per_s: float
    cpu_ms: dict[str, float]  # per step, by column


async def measure(tree: ProcessTree, steps: list[Step], seconds: float) -> Window:
    """Every stepper looping for ``seconds``: the rate and CPU per step by column."""
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
    return Window(count / wall, tree.per_unit(before, after, count))


@dataclass(frozen=True)
class Contender:
    name: str
    steps: list[Step]
    within: Within = nullcontext


@dataclass
class StepCpuResult:
    step: str  # inpage | nav
    sessions: int
    rounds: int
    seconds: float
    windows: dict[str, list[Window]] = field(default_factory=dict)

    def rate(self, name: str) -> float:
        return statistics.median(w.steps_per_s for w in self.windows[name])

    def over_floor(self, name: str) -> float:
        """The contender's rate over the floor's, round by round (``ratios.paired_ratio``)."""
        rates = [[w.steps_per_s for w in self.windows[n]] for n in (name, FLOOR)]
        return paired_ratio(*rates) or 0.0

    def cpu(self, name: str) -> dict[str, float]:
        windows = self.windows[name]
        by = {
            c: round(statistics.median(w.cpu_ms.get(c, 0.0) for w in windows), 2) for c in COLUMNS
        }
        by["total"] = round(statistics.median(sum(w.cpu_ms.values()) for w in windows), 2)
        return by

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "sessions": self.sessions,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "floor": FLOOR,
            "contenders": [
                {
                    "name": name,
                    "steps_per_s": round(self.rate(name), 2),
                    "over_floor": self.over_floor(name),
                    "cpu_ms_per_step": self.cpu(name),
                }
                for name in self.windows
            ],
        }

    def table(self) -> Table:
        table = Table(
            title=f"{self.step} step, sessions flat out: {self.sessions}; ms of CPU per step "
            f"by process (medians of {self.rounds} rounds)"
        )
        for header in ("contender", "steps/s", "of floor", *COLUMNS, "total"):
            table.add_column(header, justify="left" if header == "contender" else "right")
        for name in self.windows:
            cpu = self.cpu(name)
            cells = [f"{cpu[c]:.1f}" for c in (*COLUMNS, "total")]
            table.add_row(name, f"{self.rate(name):.1f}", f"{self.over_floor(name):.3f}", *cells)
        return table


def _alternate(a: str, b: str) -> Callable[[], str]:
    """b, a, b, ...: the page a navigating stepper opens next."""
    opened = [a]

    def next_url() -> str:
        opened[0] = b if opened[0] == a else a
        return opened[0]

    return next_url


async def raw_steps(
    stack: AsyncExitStack, host: BrowserHost, urls: tuple[str, str], n: int, nav: bool
) -> list[Step]:
    """The floor's steppers (``raw_page``), closed with ``stack``."""
    steps: list[Step] = []
    for _ in range(n):
        page = await RawPage.open(host.browser, urls[0])
        stack.push_async_callback(page.close)
        next_url = _alternate(*urls)
        steps.append(functools.partial(_floor_nav, page, next_url) if nav else page.click_floor)
    return steps


async def _floor_nav(page: RawPage, next_url: Callable[[], str]) -> None:
    await page.goto_floor(next_url())


def session_steps(
    stack: AsyncExitStack, opened: list[Any], urls: tuple[str, str], nav: bool
) -> list[Step]:
    """Steppers over opened sessions (in-process or ``HttpEnv``), closed with ``stack``."""
    steps: list[Step] = []
    for session in opened:
        stack.push_async_callback(session.aclose)
        next_url = _alternate(*urls)

        async def step(session: Any = session, next_url: Any = next_url) -> None:
            await session.step(Goto(url=next_url()) if nav else legs.CLICK, legs.SHOT)

        steps.append(step)
    return steps


@dataclass(frozen=True)
class Setup:
    """What a contender can be built from: the open exit stack, the browser, the two pages."""

    stack: AsyncExitStack
    host: BrowserHost
    urls: tuple[str, str]
    sessions: int
    nav: bool


Extra = Callable[[Setup, list[Step]], Awaitable[list[Contender]]]


async def run_step_cpu(
    *,
    nav: bool = False,
    rounds: int = 4,
    seconds: float = 6.0,
    sessions: int = 0,
    server: bool = True,
    extra: Extra | None = None,
) -> StepCpuResult:
    """``sessions`` 0: 8 in-page, 2 navigating. ``extra``: more contenders, given the setup
    and the in-process steppers (scripts/step_cpu_ab.py's before-and-after)."""
    n = sessions or (2 if nav else 8)
    async with AsyncExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        write_pages(tmp)
        pages = stack.enter_context(StaticServer(tmp))
        urls = (pages.url("a.html"), pages.url("b.html"))
        host = await stack.enter_async_context(await BrowserHost.launch())
        setup = Setup(stack, host, urls, n, nav)
        local = await legs.open_sessions(host, urls[0], n)
        inprocess = session_steps(stack, local, urls, nav)
        contenders = [
            Contender(FLOOR, await raw_steps(stack, host, urls, n, nav)),
            Contender("in-process", inprocess),
        ]
        if extra is not None:
            contenders += await extra(setup, inprocess)
        if server:
            contenders.append(await _server(setup))
        result = StepCpuResult("nav" if nav else "inpage", n, rounds, seconds)
        await _rounds(result, contenders)
        return result


async def _server(setup: Setup) -> Contender:
    from webdojo.rollout.http_env import HttpEnv
    from webdojo.server.child_process import ServerProcess

    args = ["--workers", "0", "--max-sessions", str(setup.sessions * 2)]
    server = setup.stack.enter_context(ServerProcess([*args, "--allow-host", setup.urls[0]]))
    env = await setup.stack.enter_async_context(HttpEnv(server.url))
    opened = [(await env.open_url(setup.urls[0], legs.SHOT))[0] for _ in range(setup.sessions)]
    return Contender("server", session_steps(setup.stack, opened, setup.urls, setup.nav))


async def _rounds(result: StepCpuResult, contenders: list[Contender]) -> None:
    tree = ProcessTree()
    for contender in contenders:  # warm-up, untimed
        with contender.within():
            await measure(tree, contender.steps, min(2.0, result.seconds))
    for r in range(result.rounds):
        for contender in contenders if r % 2 == 0 else contenders[::-1]:
            with contender.within():
                window = await measure(tree, contender.steps, result.seconds)
            result.windows.setdefault(contender.name, []).append(window)
    # report in the order given, whatever the last round's
    result.windows = {c.name: result.windows[c.name] for c in contenders}
