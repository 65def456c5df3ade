"""The measurements ``webdojo bench rollout`` is made of; ``rollout_bench`` runs and reports them.

* ``saturate_raw`` / ``saturate_inprocess`` / ``saturate_server``: N sessions doing an in-page
  click + JPEG screenshot as fast as they can, on the same page (``webdojo.bench.pages``), for a
  fixed time: hand-written Playwright, webdojo in this process, and webdojo through the server.
* ``step_latency``: one session at a time (low load), in-process and server steps interleaved
  so that background load hits both alike.
* ``rollout_leg``: one engine over a workload of simulated-VLM episodes, with CPU measured.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from webdojo.actions import Click
from webdojo.bench.cpu_meter import CpuMeter
from webdojo.bench.pages import COUNTER_XY
from webdojo.bench.percentiles import percentile
from webdojo.bench.raw_page import JPEG_QUALITY, RawPage
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.browser.session import BrowserSession
from webdojo.observation import Observation, ObservationOptions
from webdojo.rollout.engine_core import EngineStats
from webdojo.rollout.episode import EpisodeSpec
from webdojo.rollout.http_env import HttpEnv
from webdojo.store.records import EpisodeRecord

SHOT = ObservationOptions(jpeg_quality=JPEG_QUALITY)  # a screenshot, as a VLM agent asks for
CLICK = Click(x=COUNTER_XY[0], y=COUNTER_XY[1])  # the page's counter button: no navigation


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


@dataclass(frozen=True)
class Saturation:
    """Steps completed by ``sessions`` busy sessions in a measured window."""

    name: str
    sessions: int
    steps: int
    window_s: float
    p50_ms: float | None
    p90_ms: float | None
    cpu: dict[str, float] = field(default_factory=dict)
    rounds: tuple[float, ...] = ()  # steps/s of each round, when merged from several

    @property
    def steps_per_s(self) -> float:
        if self.rounds:
            return statistics.median(self.rounds)
        return self.steps / self.window_s if self.window_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "steps": self.steps,
            "window_s": round(self.window_s, 2),
            "steps_per_s": round(self.steps_per_s, 2),
            "rounds_steps_per_s": [round(r, 2) for r in self.rounds],
            "step_p50_ms": self.p50_ms,
            "step_p90_ms": self.p90_ms,
            "cpu": self.cpu,
        }


StepFn = Callable[[], Awaitable[Any]]
Contender = Callable[[], Awaitable[Saturation]]


async def saturation_rounds(contenders: dict[str, Contender], rounds: int) -> list[Saturation]:
    """Measure every contender ``rounds`` times, taking turns (the order reverses each round),
    so that a burst of background load hits all of them alike; each result is the median
    round (p50 / p90: the median of the rounds' own)."""
    got: dict[str, list[Saturation]] = {name: [] for name in contenders}
    names = list(contenders)
    for i in range(rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            got[name].append(await contenders[name]())
    return [_merged(got[name]) for name in names]


def _merged(rounds: list[Saturation]) -> Saturation:
    def median_of(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return round(statistics.median(known), 1) if known else None

    cpu_keys = set().union(*(r.cpu for r in rounds))
    return Saturation(
        name=rounds[0].name,
        sessions=rounds[0].sessions,
        steps=sum(r.steps for r in rounds),
        window_s=sum(r.window_s for r in rounds),
        p50_ms=median_of([r.p50_ms for r in rounds]),
        p90_ms=median_of([r.p90_ms for r in rounds]),
        cpu={
            k: round(statistics.median(r.cpu[k] for r in rounds if k in r.cpu), 3) for k in cpu_keys
        },
        rounds=tuple(r.steps_per_s for r in rounds),
    )


async def _saturate(
    name: str, steppers: list[StepFn], warmup_s: float, window_s: float
) -> Saturation:
    """Run every stepper in a loop; count the steps that end inside the measured window."""
    start = time.perf_counter()
    begin, end = start + warmup_s, start + warmup_s + window_s
    durations: list[float] = []

    async def loop(step: StepFn) -> None:
        while (now := time.perf_counter()) < end:
            await step()
            done = time.perf_counter()
            if begin <= done <= end:
                durations.append(done - now)

    await asyncio.sleep(0)
    with CpuMeter() as meter:
        await asyncio.gather(*(loop(s) for s in steppers))
    assert meter.usage is not None
    return Saturation(
        name=name,
        sessions=len(steppers),
        steps=len(durations),
        window_s=window_s,
        p50_ms=ms(percentile(durations, 50)),
        p90_ms=ms(percentile(durations, 90)),
        cpu=meter.usage.to_json(),
    )


async def saturate_raw(
    host: BrowserHost,
    url: str,
    sessions: int,
    warmup_s: float,
    window_s: float,
    *,
    cdp: bool = False,
) -> Saturation:
    """Hand-written Playwright: ``mouse.click`` + ``screenshot``, the baseline. With ``cdp``
    ("raw CDP"), the floor step (``raw_page``): the screenshot is a bare CDP capture."""
    pages: list[RawPage] = []
    try:
        for _ in range(sessions):
            pages.append(await RawPage.open(host.browser, url))
        steppers: list[StepFn] = [p.click_floor if cdp else p.click_screenshot for p in pages]
        return await _saturate("raw CDP" if cdp else "raw", steppers, warmup_s, window_s)
    finally:
        for page in pages:
            await page.close()


class _Stepper(Protocol):
    async def step(self, action: Any, options: ObservationOptions) -> Observation: ...
    async def aclose(self) -> None: ...


async def _saturate_sessions(
    name: str, sessions: list[_Stepper], warmup_s: float, window_s: float
) -> Saturation:
    def stepper(session: _Stepper) -> StepFn:
        return lambda: session.step(CLICK, SHOT)

    try:
        return await _saturate(name, [stepper(s) for s in sessions], warmup_s, window_s)
    finally:
        for session in sessions:
            await session.aclose()


async def open_sessions(host: BrowserHost, url: str, n: int) -> list[BrowserSession]:
    """``n`` in-process sessions with default options, each on ``url``."""
    opened = []
    for _ in range(n):
        session = await host.new_session(SessionOptions().allowing(url))
        await session.goto(url)
        opened.append(session)
    return opened


async def saturate_inprocess(
    host: BrowserHost, url: str, sessions: int, warmup_s: float, window_s: float
) -> Saturation:
    opened = await open_sessions(host, url, sessions)
    return await _saturate_sessions("in-process", list(opened), warmup_s, window_s)


async def saturate_server(
    env: HttpEnv, url: str, sessions: int, warmup_s: float, window_s: float
) -> Saturation:
    opened = [(await env.open_url(url, SHOT))[0] for _ in range(sessions)]
    return await _saturate_sessions("server", list(opened), warmup_s, window_s)


async def step_latency(
    host: BrowserHost, env: HttpEnv, url: str, steps: int, warmup: int = 3
) -> dict[str, list[float]]:
    """Seconds per step for one in-process and one server session, taking turns (the order
    alternates, so neither always runs first after the other)."""
    local = await host.new_session(SessionOptions().allowing(url))
    await local.goto(url)
    remote, _ = await env.open_url(url, SHOT)
    samples: dict[str, list[float]] = {"in-process": [], "server": []}
    contenders: list[tuple[str, _Stepper]] = [("in-process", local), ("server", remote)]
    try:
        for i in range(warmup + steps):
            for name, session in contenders if i % 2 else contenders[::-1]:
                t0 = time.perf_counter()
                await session.step(CLICK, SHOT)
                if i >= warmup:
                    samples[name].append(time.perf_counter() - t0)
    finally:
        await local.aclose()
        await remote.aclose()
    return samples


# --- rollouts -------------------------------------------------------------------------------


class _Engine(Protocol):
    async def run(self, specs: Sequence[EpisodeSpec]) -> list[EpisodeRecord]: ...
    def stats(self) -> EngineStats: ...


@dataclass(frozen=True)
class RolloutLeg:
    """One engine over (part of) the workload."""

    name: str
    engine: str  # async | sync
    env: str  # in-process | server
    episodes: int
    steps: int
    wall_s: float
    step_p50_ms: float | None  # env step service time, as the engine's client saw it
    step_p90_ms: float | None
    env_wait_s: float  # total time episodes queued for an env slot
    steady_steps_per_s: float | None  # async only: the steady phase (see EngineStats)
    success_rate: float | None
    faults: int
    fault_codes: dict[str, int]
    fault_examples: list[str]  # the first few fault messages, to see what went wrong
    mean_policy_s: float | None
    cpu: dict[str, float]

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.wall_s if self.wall_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "env": self.env,
            "episodes": self.episodes,
            "steps": self.steps,
            "wall_s": round(self.wall_s, 2),
            "steps_per_s": round(self.steps_per_s, 2),
            "steady_steps_per_s": None
            if self.steady_steps_per_s is None
            else round(self.steady_steps_per_s, 2),
            "step_p50_ms": self.step_p50_ms,
            "step_p90_ms": self.step_p90_ms,
            "env_wait_s": round(self.env_wait_s, 1),
            "success_rate": self.success_rate,
            "faults": self.faults,
            "fault_codes": self.fault_codes,
            "fault_examples": self.fault_examples,
            "mean_policy_s": self.mean_policy_s,
            "cpu": self.cpu,
        }


async def rollout_leg(
    name: str, kind: tuple[str, str], engine: _Engine, specs: Sequence[EpisodeSpec]
) -> RolloutLeg:
    with CpuMeter() as meter:
        records = await engine.run(specs)
    assert meter.usage is not None
    stats = engine.stats()
    steps = stats.env.durations.get("step", []) + stats.env.durations.get("observe", [])
    scored = [r for r in records if r.success is not None]
    codes: dict[str, int] = {}
    examples: list[str] = []
    for record in records:
        if record.error is not None:
            codes[record.error.code] = codes.get(record.error.code, 0) + 1
            if len(examples) < 3:
                examples.append(f"{record.key}: {record.error.message[:300]}")
    acts = stats.policy.durations.get("act", [])
    return RolloutLeg(
        name=name,
        engine=kind[0],
        env=kind[1],
        episodes=len(records),
        steps=stats.steps,
        wall_s=stats.wall_s,
        step_p50_ms=ms(percentile(steps, 50)),
        step_p90_ms=ms(percentile(steps, 90)),
        env_wait_s=stats.env.wait_s,
        steady_steps_per_s=stats.steady_steps_per_s if kind[0] == "async" else None,
        success_rate=round(sum(bool(r.success) for r in scored) / len(scored), 3)
        if scored
        else None,
        faults=stats.faults,
        fault_codes=codes,
        fault_examples=examples,
        mean_policy_s=round(statistics.mean(acts), 3) if acts else None,
        cpu=meter.usage.to_json(),
    )
