"""``webdojo bench adapters``: what one step costs through each way in, against the rollout's own
in-process step, on the same page in the same run.

The step: scroll a long built-in page down by 200 pixels and take the next observation (a JPEG
screenshot). Every leg runs ``iterations`` such steps in episodes shorter than the task's step
cap (the resets between them are not timed), one after the other, on a 2-core machine:

* ``inprocess``: the rollout's session (``InProcessEnv``), the baseline;
* ``make``: ``webdojo.make``'s blocking ``Env`` (its event loop runs in a thread);
* ``gym``: the Gymnasium env (the screenshot also decoded into an array);
* ``openenv``: openenv-core's own client over ``webdojo serve --openenv``'s WebSocket (a
  server process; skipped when openenv-core is not installed);
* ``trl``: TRL's ``environment_factory`` class (``adapters.trl.BrowserEnv``, images on): its
  ``scroll`` tool, which also lists the page's elements and its accessibility tree for the
  model and decodes the screenshot into an image.

The ratios are each leg's p50 over the in-process p50 (target: at most 1.05).
"""

from __future__ import annotations

import asyncio
import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from webdojo.actions import Scroll
from webdojo.bench.percentiles import percentile
from webdojo.observation import ObservationOptions
from webdojo.rollout.env_client import InProcessEnv
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import load_spec

TASK = "wiki.skarn-height"  # a long article: scrolling down changes the page for many steps
SCROLL = Scroll(direction="down", amount=200)
TEXT = "scroll(down)"
OPTIONS = ObservationOptions()


@dataclass
class AdaptersBenchResult:
    iterations: int
    task: str = TASK
    legs: dict[str, list[float]] = field(default_factory=dict)  # step times, ms

    def p50(self, leg: str) -> float | None:
        value = percentile(self.legs.get(leg, []), 50)
        return None if value is None else round(value, 2)

    def ratio(self, leg: str) -> float | None:
        """The leg's p50 over the in-process p50."""
        base, value = self.p50("inprocess"), self.p50(leg)
        return None if base is None or value is None else round(value / base, 3)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {f"{leg}_ms": self.p50(leg) for leg in LEGS}
        out["ratios"] = {leg: self.ratio(leg) for leg in LEGS if leg != "inprocess"}
        out["p90_ms"] = {leg: _p90(self.legs.get(leg, [])) for leg in LEGS}
        out.update(iterations=self.iterations, task=self.task, target_ratio=TARGET)
        return out

    def table(self) -> Any:
        from rich.table import Table

        table = Table(title=f"one step ({TEXT}, then a JPEG observation) on {self.task}")
        for column in ("way in", "p50 ms", "p90 ms", "x in-process", "steps"):
            table.add_column(column, justify="left" if column == "way in" else "right")
        for leg in LEGS:
            times = self.legs.get(leg)
            ratio = "(base)" if leg == "inprocess" else _text(self.ratio(leg))
            table.add_row(leg, _text(self.p50(leg)), _text(_p90(times or [])), ratio,
                          str(len(times)) if times else "not run")  # fmt: skip
        return table


LEGS = ("inprocess", "make", "gym", "openenv", "trl")
TARGET = 1.05  # an adapter's step may cost this much of an in-process one (p50)


def _text(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _p90(values: list[float]) -> float | None:
    value = percentile(values, 90)
    return None if value is None else round(value, 2)


def _episodes(iterations: int, cap: int) -> list[int]:
    """Steps per episode: ``iterations`` in all, each episode below the step cap."""
    per = max(1, min(cap - 1, 8))
    return [min(per, iterations - i) for i in range(0, iterations, per)]


def _timed(step: Callable[[], Any], count: int, into: list[float]) -> None:
    for _ in range(count):
        started = time.perf_counter()
        step()
        into.append((time.perf_counter() - started) * 1000)


async def _inprocess(iterations: int, cap: int) -> list[float]:
    task_set = load_spec(f"builtin:{TASK.split('.')[0]}")
    task = next(t for t in task_set.tasks if t.id == TASK)
    times: list[float] = []
    with SiteServer(task_set.sites) as sites:
        env = InProcessEnv(sites)
        try:
            for count in _episodes(iterations, cap):
                session, _ = await env.open(task, OPTIONS)
                for _ in range(count):
                    started = time.perf_counter()
                    await session.step(SCROLL, OPTIONS)
                    times.append((time.perf_counter() - started) * 1000)
                await session.aclose()
        finally:
            await env.aclose()
    return times


def _make(iterations: int, cap: int) -> list[float]:
    from webdojo.environment.make import make

    times: list[float] = []
    with make(TASK, observation=OPTIONS) as env:
        for count in _episodes(iterations, cap):
            env.reset()
            _timed(lambda: env.step(SCROLL), count, times)
    return times


def _gym(iterations: int, cap: int) -> list[float] | None:
    if importlib.util.find_spec("gymnasium") is None:
        return None
    from webdojo.environment.gym_env import WebdojoGymEnv

    times: list[float] = []
    env = WebdojoGymEnv(TASK, observation=OPTIONS)
    try:
        for count in _episodes(iterations, cap):
            env.reset()
            _timed(lambda: env.step(TEXT), count, times)
    finally:
        env.close()
    return times


def _openenv(iterations: int, cap: int) -> list[float] | None:
    if importlib.util.find_spec("openenv") is None:
        return None
    from openenv.core.generic_client import GenericEnvClient

    from webdojo.server.child_process import ServerProcess

    times: list[float] = []
    action = SCROLL.model_dump(mode="json", exclude_none=True)
    with (
        ServerProcess(["--openenv", "--tasks", f"builtin:{TASK.split('.')[0]}"]) as server,
        GenericEnvClient(base_url=server.url).sync() as client,
    ):
        for count in _episodes(iterations, cap):
            client.reset(task_id=TASK)
            _timed(lambda: client.step(action), count, times)
    return times


def _trl(iterations: int, cap: int) -> list[float]:
    from webdojo.adapters.trl import BrowserEnv

    times: list[float] = []
    with BrowserEnv(images=True) as env:
        for count in _episodes(iterations, cap):
            env.reset(task_id=TASK)
            _timed(lambda: env.scroll("down"), count, times)
    return times


def run_adapters_bench(iterations: int = 40) -> AdaptersBenchResult:
    """Every leg in turn (about a minute on 2 cores at 40 steps)."""
    cap = next(t.max_steps for t in load_spec("builtin").tasks if t.id == TASK)
    result = AdaptersBenchResult(iterations=iterations)
    result.legs["inprocess"] = asyncio.run(_inprocess(iterations, cap))
    result.legs["make"] = _make(iterations, cap)
    result.legs["trl"] = _trl(iterations, cap)
    for leg, run in (("gym", _gym), ("openenv", _openenv)):
        times = run(iterations, cap)
        if times is not None:
            result.legs[leg] = times
    return result
