"""``webdojo bench compare-browsergym``: webdojo's in-process step against BrowserGym 0.14.3's on
the same pages (``bench.pages``) and the same Chromium binary.

BrowserGym pins an older Playwright, numpy and gymnasium, so it runs in a virtualenv of its own
(``make browsergym-venv`` builds ``.venv-browsergym``), as a subprocess running
``_browsergym_side.py``. Each side serves the pages from its own process on 127.0.0.1, starts
its own browsers, and times ``steps`` steps of each kind after untimed warm-up steps:

* ``inpage``: a click at the counter button's pixels (the page changes, no navigation);
* ``nav``: ``goto`` the other page of the two;

each followed by the side's observation. webdojo's is a JPEG screenshot (``webdojo bench env``'s
step, through ``BrowserSession.step``); BrowserGym's is always a PNG screenshot as an array, a DOM
snapshot, the accessibility tree and element properties, so ``webdojo_rich`` repeats webdojo's
steps with the full accessibility tree and the element list too. ``floor`` steps on the same
browser as webdojo's sides (after them, or before them every other round) with nothing but
Playwright's click or ``goto`` and a bare CDP capture (``raw_page``): what no framework can
beat with this browser. CPU per step is the side's process tree (python, Playwright's driver,
every browser process) over each block of steps, read by ``CpuMeter``. BrowserGym runs with
``slow_mo`` 0 and ``pre_observation_delay`` 0 (its defaults sleep 1 s per Playwright call and
0.5 s per step). The sides alternate in order, round by round, with fresh browsers; each ratio
is the median of the per-round ratios.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path

from webdojo.actions import Click, Goto
from webdojo.bench.browsergym_result import (
    FLOOR,
    KINDS,
    OURS,
    RICH,
    THEIRS,
    Block,
    CompareResult,
    Round,
)
from webdojo.bench.cpu_meter import CpuMeter
from webdojo.bench.env_runners import SHOT
from webdojo.bench.pages import COUNTER_XY, write_pages
from webdojo.bench.raw_page import JPEG_QUALITY, RawPage
from webdojo.bench.static import StaticServer
from webdojo.browser import BrowserConfig, BrowserHost, BrowserSession, SessionOptions
from webdojo.browser.chromium import find_chromium
from webdojo.errors import ConfigError, InfraError, MissingDependency
from webdojo.observation import AxTreeMode, ObservationOptions

ENV_VAR = "WEBDOJO_BROWSERGYM_PYTHON"  # the python of a BrowserGym virtualenv elsewhere
VENV = ".venv-browsergym"
MAKE_TARGET = "make browsergym-venv"
SIDE_SCRIPT = Path(__file__).with_name("_browsergym_side.py")
WARMUP = 2  # untimed steps of each kind, as on BrowserGym's side
# the closest webdojo observation to BrowserGym's (screenshot, DOM, accessibility tree)
RICH_OBS = ObservationOptions(jpeg_quality=JPEG_QUALITY, axtree=AxTreeMode.FULL, elements=True)
SIDE_TIMEOUT_S = 600.0


def browsergym_python() -> Path:
    """The python of BrowserGym's virtualenv: $WEBDOJO_BROWSERGYM_PYTHON, else ``.venv-browsergym``
    in this checkout (an editable install), else in the working directory."""
    override = os.environ.get(ENV_VAR)
    if override:
        if not os.access(override, os.X_OK):
            raise MissingDependency(f"${ENV_VAR}={override!r} is not an executable python")
        return Path(override)
    checkout = Path(__file__).resolve().parents[3]
    for root in (checkout, Path.cwd()):
        python = root / VENV / "bin" / "python"
        if os.access(python, os.X_OK):
            return python
    raise MissingDependency(
        f"BrowserGym's virtualenv {VENV} is missing: build it with `{MAKE_TARGET}` in the "
        f"webdojo checkout (or set ${ENV_VAR} to the python of one with browsergym-core 0.14.3)"
    )


def run_compare(steps: int = 20, rounds: int = 3) -> CompareResult:
    """Both sides ``rounds`` times, alternating which goes first (about 20 s per round on 2
    idle cores at 20 steps, most of it BrowserGym's)."""
    if steps < 1 or rounds < 1:
        raise ConfigError(f"--steps and --rounds must be at least 1, not {steps} and {rounds}")
    python = browsergym_python()
    executable = find_chromium(headless=True)
    result = CompareResult(steps=steps, rounds=rounds, webdojo_playwright=version("playwright"))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="webdojo-bench-bg-") as tmp:
        write_pages(Path(tmp))
        for number in range(rounds):
            order = (THEIRS, OURS) if number % 2 else (OURS, THEIRS)
            result.by_round.append(_round(order, python, tmp, steps, executable, result))
    result.wall_s = time.perf_counter() - started
    return result


def _round(
    order: tuple[str, str],
    python: Path,
    pages: str,
    steps: int,
    executable: str,
    result: CompareResult,
) -> Round:
    sides: Round = {}
    for side in order:
        if side == THEIRS:
            sides[THEIRS] = _theirs(python, pages, steps, executable, result)
        else:
            sides.update(asyncio.run(_ours(pages, steps, executable, result)))
    return sides


# --- BrowserGym's side ------------------------------------------------------------------------


def _theirs(
    python: Path, pages: str, steps: int, executable: str, result: CompareResult
) -> dict[str, Block]:
    args = [str(python), str(SIDE_SCRIPT), "--pages", pages, "--steps", str(steps)]
    try:
        proc = subprocess.run(
            [*args, "--chromium", executable],
            capture_output=True,
            text=True,
            timeout=SIDE_TIMEOUT_S,
            env={**os.environ, "PYTHONNOUSERSITE": "1"},
        )
    except subprocess.TimeoutExpired as exc:
        raise InfraError(f"BrowserGym's side ran past {SIDE_TIMEOUT_S:.0f} s") from exc
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise InfraError(
            f"BrowserGym's side failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"
        )
    data = json.loads(lines[-1])
    result.browsergym = {k: v for k, v in data.items() if k not in KINDS}
    for kind in KINDS:
        if data[kind]["ok"] != data[kind]["steps"]:  # a step that did not do what it should
            raise InfraError(f"BrowserGym's {kind} steps: {data[kind]['ok']} of {steps} landed")
    return {kind: Block.from_json(data[kind]) for kind in KINDS}


# --- webdojo's side ---------------------------------------------------------------------------


async def _ours(pages: str, steps: int, executable: str, result: CompareResult) -> Round:
    """webdojo's steps, screenshot-only then rich, and the floor's, on one fresh browser. The
    floor goes last in the first round, first in the second, and so on: whoever goes first
    meets a browser that has loaded nothing yet."""
    with StaticServer(pages) as server:
        host = await BrowserHost.launch(BrowserConfig(executable=executable))
        async with host:
            result.chromium = f"{host.version} ({host.executable})"
            floor_first = len(result.by_round) % 2 == 1
            out: Round = {}
            for side in (FLOOR, OURS, RICH) if floor_first else (OURS, RICH, FLOOR):
                out[side] = await _side(host, server, side, steps)
    return out


async def _side(host: BrowserHost, server: StaticServer, side: str, steps: int) -> dict[str, Block]:
    if side == FLOOR:
        raw = await RawPage.open(host.browser, server.url("a.html"))
        try:
            return await time_kinds(server, steps, raw.click_floor, raw.goto_floor)
        finally:
            await raw.close()
    observe = SHOT if side == OURS else RICH_OBS
    session = await host.new_session(SessionOptions().allowing(server.url("")))
    try:
        await session.goto(server.url("a.html"))
        await session.observe(observe)
        return await time_kinds(server, steps, *_session_steps(session, server, observe))
    finally:
        await session.aclose()


def _session_steps(
    session: BrowserSession, server: StaticServer, observe: ObservationOptions
) -> tuple[Callable[[], Awaitable[None]], Callable[[str], Awaitable[None]]]:
    """webdojo's in-page step (a click at the counter's pixels) and navigation step."""
    click = Click(x=COUNTER_XY[0], y=COUNTER_XY[1])

    async def inpage() -> None:
        await _step(session, click, observe, server.url("a.html"))

    async def nav(url: str) -> None:
        await _step(session, Goto(url=url), observe, url)

    return inpage, nav


async def time_kinds(
    server: StaticServer,
    steps: int,
    inpage: Callable[[], Awaitable[None]],
    nav: Callable[[str], Awaitable[None]],
) -> dict[str, Block]:
    """``steps`` in-page steps, then as many navigations between the two pages, each kind
    after ``WARMUP`` untimed ones: every step's wall time and the CPU per step."""
    # a.html -> b.html -> a.html ...: each navigation leaves the page the last one opened
    targets = [server.url("b.html" if i % 2 == 0 else "a.html") for i in range(WARMUP + steps)]

    async def nav_to(i: int) -> None:
        await nav(targets[i])

    return {"inpage": await _block(lambda i: inpage(), steps), "nav": await _block(nav_to, steps)}


async def _step(
    session: BrowserSession, action: Click | Goto, observe: ObservationOptions, url: str
) -> None:
    obs = await session.step(action, observe)
    if obs.last_error is not None:
        raise InfraError(f"webdojo's benchmark step failed: {obs.last_error.message}")
    if obs.url != url:
        raise InfraError(f"webdojo's benchmark step ended on {obs.url}, not {url}")


async def _block(step: Callable[[int], Awaitable[None]], steps: int) -> Block:
    """Warm-up steps, then the timed ones under the CPU meter."""
    for i in range(WARMUP):
        await step(i)
    times: list[float] = []
    with CpuMeter() as meter:
        for i in range(WARMUP, WARMUP + steps):
            started = time.perf_counter()
            await step(i)
            times.append((time.perf_counter() - started) * 1000)
    assert meter.usage is not None
    return Block(ms=times, cpu_ms=meter.usage.tree_cpu_s * 1000 / steps)
