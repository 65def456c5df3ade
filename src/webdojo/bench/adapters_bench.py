"""``webdojo bench adapters``: what one step costs through each way in, against the rollout's own
in-process step, on the same page in the same run.

The step: scroll a long built-in page down by 200 pixels and take the next observation (a JPEG
screenshot). Every leg runs ``iterations`` such steps in episodes shorter than the task's step
cap (the resets between them are not timed), one after the other, on a 2-core machine:

* ``inprocess``: the rollout's session (``InProcessEnv``), the baseline;
* ``make``: ``webdojo.make``'s blocking ``Env`` (its event loop runs in a thread);
* ``gym``: the Gymnasium env (the screenshot also decoded into an array);
* ``http``: webdojo's own client (``HttpEnv``) on a ``webdojo serve --no-warm-preload``
  process: the floor of any step served by another process. Warm preloading is off because
  it moves the next episode's page load into this episode's steps (measured at 2 cores: steps
  p50 91 ms with it, 69 without; whole 8-step episodes 832 vs 923 ms, resets included): the
  steps would pay for a reset the in-process leg does untimed;
* ``openenv``: openenv-core's own client over the same server's ``/ws`` (skipped when
  openenv-core is not installed);
* ``inprocess_trl``: the in-process step TRL's class makes: its scroll tool's action (a page
  down) with the observation it asks for (the screenshot, the element list and the
  viewport's accessibility tree);
* ``trl``: TRL's ``environment_factory`` class (``adapters.trl.BrowserEnv``, images on): its
  ``scroll`` tool, which also writes the page text and decodes the screenshot into an image.

``ratios``: each leg's p50 over the in-process p50 (target: at most 1.05), as the median of
the per-round ratios when the legs run in several rounds. ``overhead``: each leg's p50 over its
like-for-like floor, the step that does the same browser work without the
adapter (``inprocess`` for make and gym, ``http`` for openenv, ``inprocess_trl`` for trl):
what the adapter itself adds.
"""

from __future__ import annotations

import asyncio
import importlib.util
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webdojo.actions import Scroll
from webdojo.bench.percentiles import percentile
from webdojo.errors import ConfigError
from webdojo.observation import AxTreeMode, ObservationOptions
from webdojo.rollout.env_client import EnvClient, InProcessEnv
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task

TASK = "wiki.skarn-height"  # a long article: scrolling down changes the page for many steps
SCROLL = Scroll(direction="down", amount=200)
TEXT = "scroll(down)"
OPTIONS = ObservationOptions()
# what BrowserEnv(images=True) asks for (adapters.trl), and its scroll tool's action (a page)
TRL_OPTIONS = ObservationOptions(elements=True, axtree=AxTreeMode.VIEWPORT)
TRL_SCROLL = Scroll(direction="down")


@dataclass
class AdaptersBenchResult:
    iterations: int
    rounds: int = 1
    task: str = TASK
    legs: dict[str, list[float]] = field(default_factory=dict)  # step times, ms, all rounds
    by_round: list[dict[str, list[float]]] = field(default_factory=list)

    def add_round(self, legs: dict[str, list[float]]) -> None:
        self.by_round.append(legs)
        for leg, times in legs.items():
            self.legs.setdefault(leg, []).extend(times)

    def p50(self, leg: str) -> float | None:
        value = percentile(self.legs.get(leg, []), 50)
        return None if value is None else round(value, 2)

    def ratio(self, leg: str, base_leg: str = "inprocess") -> float | None:
        """The median over rounds of the leg's p50 over ``base_leg``'s in the same round: a
        round's browsers and machine state are shared by its legs, not across rounds."""
        ratios = [
            value / base
            for times in self.by_round
            if (base := percentile(times.get(base_leg, []), 50))
            and (value := percentile(times.get(leg, []), 50)) is not None
        ]
        return round(statistics.median(ratios), 3) if ratios else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {f"{leg}_ms": self.p50(leg) for leg in LEGS}
        out["ratios"] = {leg: self.ratio(leg) for leg in LEGS if leg not in FLOORS.values()}
        out["overhead"] = {leg: self.ratio(leg, FLOORS[leg]) for leg in FLOORS}
        out["p90_ms"] = {leg: _p90(self.legs.get(leg, [])) for leg in LEGS}
        out.update(
            iterations=self.iterations, rounds=self.rounds, task=self.task, target_ratio=TARGET
        )
        return out

    def table(self) -> Any:
        from rich.table import Table

        rounds = f", {self.rounds} rounds" if self.rounds > 1 else ""
        table = Table(title=f"one step ({TEXT}, then a JPEG observation) on {self.task}{rounds}")
        columns = ("way in", "p50 ms", "p90 ms", "x in-process", "x its floor", "steps")
        for column in columns:
            table.add_column(column, justify="left" if column == "way in" else "right")
        for leg in LEGS:
            times = self.legs.get(leg)
            ratio = "(base)" if leg == "inprocess" else _text(self.ratio(leg))
            floor = (
                f"{_text(self.ratio(leg, FLOORS[leg]))} of {FLOORS[leg]}" if leg in FLOORS else ""
            )
            table.add_row(
                leg,
                _text(self.p50(leg)),
                _text(_p90(times or [])),
                ratio,
                floor,
                str(len(times)) if times else "not run",
            )
        return table


LEGS = ("inprocess", "make", "gym", "http", "openenv", "inprocess_trl", "trl")
# each adapter's like-for-like floor: the same browser work without the adapter
FLOORS = {"make": "inprocess", "gym": "inprocess", "openenv": "http", "trl": "inprocess_trl"}
TARGET = 1.05  # an adapter's step may cost this much of an in-process one (p50)
# untimed first steps of every leg: each leg starts its own browser, whose first pages are slow
WARMUP = 4


def _text(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _p90(values: list[float]) -> float | None:
    value = percentile(values, 90)
    return None if value is None else round(value, 2)


def _episodes(iterations: int, cap: int) -> list[int]:
    """Steps per episode: ``iterations`` and the warm-up in all, each below the step cap."""
    total, per = iterations + WARMUP, max(1, min(cap - 1, 8))
    return [min(per, total - i) for i in range(0, total, per)]


def _timed(step: Callable[[], Any], count: int, into: list[float]) -> None:
    for _ in range(count):
        started = time.perf_counter()
        step()
        into.append((time.perf_counter() - started) * 1000)


async def _inprocess(iterations: int, cap: int) -> dict[str, list[float]]:
    """The in-process floors: the plain observation, then TRL's."""
    task_set = load_spec(f"builtin:{TASK.split('.')[0]}")
    task = next(t for t in task_set.tasks if t.id == TASK)
    with SiteServer(task_set.sites) as sites:
        env = InProcessEnv(sites)
        try:
            plain = await _steps(env, task, iterations, cap, OPTIONS)
            trl = await _steps(env, task, iterations, cap, TRL_OPTIONS, TRL_SCROLL)
        finally:
            await env.aclose()
    return {"inprocess": plain, "inprocess_trl": trl}


async def _steps(
    env: EnvClient,
    task: Task,
    iterations: int,
    cap: int,
    options: ObservationOptions,
    action: Scroll = SCROLL,
) -> list[float]:
    times: list[float] = []
    for count in _episodes(iterations, cap):
        session, _ = await env.open(task, options)
        for _ in range(count):
            started = time.perf_counter()
            await session.step(action, options)
            times.append((time.perf_counter() - started) * 1000)
        await session.aclose()
    return times[WARMUP:]


def _make(iterations: int, cap: int) -> list[float]:
    from webdojo.environment.make import make

    times: list[float] = []
    with make(TASK, observation=OPTIONS) as env:
        for count in _episodes(iterations, cap):
            env.reset()
            _timed(lambda: env.step(SCROLL), count, times)
    return times[WARMUP:]


def _gym(iterations: int, cap: int) -> dict[str, list[float]]:
    if importlib.util.find_spec("gymnasium") is None:
        return {}
    from webdojo.environment.gym_env import WebdojoGymEnv

    times: list[float] = []
    env = WebdojoGymEnv(TASK, observation=OPTIONS)
    try:
        for count in _episodes(iterations, cap):
            env.reset()
            _timed(lambda: env.step(TEXT), count, times)
    finally:
        env.close()
    return {"gym": times[WARMUP:]}


def _served(iterations: int, cap: int) -> dict[str, list[float]]:
    """One server process: webdojo's own client, then OpenEnv's over ``/ws``."""
    from webdojo.rollout.http_env import HttpEnv
    from webdojo.server.child_process import ServerProcess

    task = next(t for t in load_spec("builtin").tasks if t.id == TASK)
    legs: dict[str, list[float]] = {}
    site = TASK.split(".")[0]
    with ServerProcess(["--openenv", "--no-warm-preload", "--tasks", f"builtin:{site}"]) as server:

        async def http() -> list[float]:
            env = HttpEnv(server.url)
            try:
                return await _steps(env, task, iterations, cap, OPTIONS)
            finally:
                await env.aclose()

        legs["http"] = asyncio.run(http())
        if importlib.util.find_spec("openenv") is not None:
            legs["openenv"] = _openenv(server.url, iterations, cap)
    return legs


def _openenv(url: str, iterations: int, cap: int) -> list[float]:
    from openenv.core.generic_client import GenericEnvClient

    times: list[float] = []
    action = SCROLL.model_dump(mode="json", exclude_none=True)
    with GenericEnvClient(base_url=url).sync() as client:
        for count in _episodes(iterations, cap):
            client.reset(task_id=TASK)
            _timed(lambda: client.step(action), count, times)
    return times[WARMUP:]


def _trl(iterations: int, cap: int) -> list[float]:
    from webdojo.adapters.trl import BrowserEnv

    times: list[float] = []
    with BrowserEnv(images=True) as env:
        for count in _episodes(iterations, cap):
            env.reset(task_id=TASK)
            _timed(lambda: env.scroll("down"), count, times)
    return times[WARMUP:]


def run_adapters_bench(iterations: int = 40, rounds: int = 3) -> AdaptersBenchResult:
    """Every leg in turn, ``rounds`` times (each leg a fresh browser every round; the order
    reversed every other round), ``iterations`` steps per leg in all: about a minute per round
    on 2 cores. The ratios are medians of per-round ratios, so that a slow browser or a busy
    minute moves one round, not the figure."""
    if rounds < 1 or iterations < rounds:
        raise ConfigError(f"need 1 <= rounds <= iterations, not {rounds} and {iterations}")
    cap = next(t.max_steps for t in load_spec("builtin").tasks if t.id == TASK)
    result = AdaptersBenchResult(iterations=iterations, rounds=rounds)
    for number in range(rounds):
        count = iterations // rounds + (number < iterations % rounds)
        result.add_round(_round(count, cap, reverse=number % 2 == 1))
    return result


def _round(iterations: int, cap: int, *, reverse: bool) -> dict[str, list[float]]:
    groups: list[Callable[[], dict[str, list[float]]]] = [
        lambda: asyncio.run(_inprocess(iterations, cap)),
        lambda: {"make": _make(iterations, cap)},
        lambda: {"trl": _trl(iterations, cap)},
        lambda: _gym(iterations, cap),
        lambda: _served(iterations, cap),
    ]
    legs: dict[str, list[float]] = {}
    for group in reversed(groups) if reverse else groups:
        legs.update(group())
    return legs
