"""Environment benchmark: webdojo's BrowserSession against hand-written raw Playwright.

In one run, on the same Chromium and the same local pages (127.0.0.1), it measures p50/p90 of

* ``in_page``: click a button that changes the page, then a JPEG screenshot observation;
* ``navigation``: click a link to another page, wait for its load, then a screenshot;
* ``reset``: a new context and page, open the start page, first screenshot;

for raw Playwright (the floor: ``mouse.click`` + ``screenshot``) and for webdojo, and prints
webdojo/raw for each (target <= 1.15). Beside the cold reset it measures resets through a
worker's warm pool (``Worker.create``, what ``webdojo serve`` does), where a warm context is
ready: ``reset_warm`` with the start page loaded ahead (the pool preloads the latest start URL:
a training run's episodes of one task) and ``reset_warm_blank`` with a warm blank page (an
episode at another URL). Target: a warm reset <= 50 ms p50. Beside them, the floor of a reset
that pays the page load: a raw page made ahead, ``goto``, and a bare ``Page.captureScreenshot``.
Raw and webdojo iterations are interleaved, and their order alternates, so that background
load hits both alike. Where psutil is installed it also
reports CPU milliseconds per step of the whole process tree, which a busy machine does not
distort the way it distorts wall times. Last, it reports what richer observations add to an
in-page step (against a screenshot-only step in the same interleaved loop): the
accessibility tree (viewport, full), the element list, set-of-marks drawn in the page, and
set-of-marks drawn with Pillow instead, for comparison.

Benchmarks report; they do not assert. ``python -m webdojo.bench.env_bench`` prints the table.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table

from webdojo.bench.cpu_meter import CpuMeter
from webdojo.bench.env_runners import (
    SHOT,
    RawRunner,
    WebdojoRunner,
    pillow_marks_ms,
    pool_resets,
)
from webdojo.bench.pages import write_pages
from webdojo.bench.raw_page import JPEG_QUALITY
from webdojo.bench.static import StaticServer
from webdojo.browser import BrowserConfig, BrowserHost, SessionOptions
from webdojo.observation import AxTreeMode, ObservationOptions

TARGET_RATIO = 1.15  # webdojo may cost at most this much more than raw Playwright
STEPS = ("in_page", "navigation", "reset")
WARM_RESET_TARGET_MS = 50.0  # p50 of a reset through the warm pool, start page included
POOL_RESETS = {"reset_warm": True, "reset_warm_blank": False}  # name: start page preloaded
EXTRAS: dict[str, ObservationOptions] = {
    "screenshot": SHOT,  # the base the others are compared with
    "axtree_viewport": ObservationOptions(jpeg_quality=JPEG_QUALITY, axtree=AxTreeMode.VIEWPORT),
    "axtree_full": ObservationOptions(jpeg_quality=JPEG_QUALITY, axtree=AxTreeMode.FULL),
    "elements": ObservationOptions(jpeg_quality=JPEG_QUALITY, elements=True),
    "marks": ObservationOptions(jpeg_quality=JPEG_QUALITY, marks=True),
}


@dataclass(frozen=True)
class Stat:
    """Milliseconds over the measured iterations."""

    p50_ms: float
    p90_ms: float
    n: int

    @classmethod
    def of(cls, samples: list[float]) -> Stat:
        ordered = sorted(samples)
        p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
        return cls(round(statistics.median(ordered), 2), round(p90, 2), len(ordered))


@dataclass
class EnvBenchResult:
    iterations: int
    chromium: str
    raw: dict[str, Stat] = field(default_factory=dict)  # by step name (STEPS)
    webdojo: dict[str, Stat] = field(default_factory=dict)
    extras: dict[str, Stat] = field(default_factory=dict)  # in-page step with richer observations
    pool: dict[str, Stat] = field(
        default_factory=dict
    )  # resets through the warm pool (POOL_RESETS)
    pool_raw: Stat | None = None  # raw Playwright's reset, timed in turn with the pool's
    # the least a reset that pays the page load costs here: goto + bare CDP capture (raw)
    pool_floor: Stat | None = None
    # CPU milliseconds per step of the whole process tree (Python, driver, Chromium), by step
    # then "raw"/"webdojo": robust where wall times are not (a machine shared with others).
    cpu_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    wall_s: float = 0.0

    def ratios(self) -> dict[str, float]:
        """webdojo p50 / raw p50 per step."""
        return {
            k: round(self.webdojo[k].p50_ms / self.raw[k].p50_ms, 3)
            for k in STEPS
            if k in self.raw and k in self.webdojo and self.raw[k].p50_ms > 0
        }

    def pool_ratios(self) -> dict[str, float]:
        """Warm-pool reset p50 / raw Playwright's reset p50 (timed in the same loop)."""
        raw = self.pool_raw
        if raw is None or raw.p50_ms <= 0:
            return {}
        return {k: round(v.p50_ms / raw.p50_ms, 3) for k, v in self.pool.items()}

    def added_ms(self) -> dict[str, float]:
        """What each richer observation adds to the screenshot-only in-page step (p50),
        against the ``screenshot`` extra measured in the same interleaved loop."""
        base = self.extras["screenshot"].p50_ms if "screenshot" in self.extras else 0.0
        return {k: round(v.p50_ms - base, 2) for k, v in self.extras.items() if k != "screenshot"}

    def to_json(self) -> dict[str, Any]:
        return {
            "iterations": self.iterations,
            "chromium": self.chromium,
            "target_ratio": TARGET_RATIO,
            "raw": {k: asdict(v) for k, v in self.raw.items()},
            "webdojo": {k: asdict(v) for k, v in self.webdojo.items()},
            "ratio_p50": self.ratios(),
            "pool": {k: asdict(v) for k, v in self.pool.items()},
            "pool_raw_reset": None if self.pool_raw is None else asdict(self.pool_raw),
            "pool_ratio_p50": self.pool_ratios(),
            "pool_floor_reset": None if self.pool_floor is None else asdict(self.pool_floor),
            "warm_reset_target_ms": WARM_RESET_TARGET_MS,
            "extras": {k: asdict(v) for k, v in self.extras.items()},
            "extras_added_p50_ms": self.added_ms(),
            "cpu_ms_per_step": self.cpu_ms,
            "wall_s": round(self.wall_s, 2),
        }


# --- measuring ----------------------------------------------------------------------------


async def _timed(fn: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await fn()
    return (time.perf_counter() - start) * 1000


async def _pair(
    i: int, raw: Callable[[], Awaitable[Any]], ours: Callable[[], Awaitable[Any]]
) -> tuple[float, float]:
    """Time both, alternating which goes first."""
    if i % 2:
        b = await _timed(ours)
        a = await _timed(raw)
    else:
        a = await _timed(raw)
        b = await _timed(ours)
    return a, b


async def run_env_bench(
    iterations: int = 30,
    *,
    warmup: int = 3,
    config: BrowserConfig | None = None,
    options: SessionOptions | None = None,
    extras: bool = True,
    pool: bool = True,
) -> EnvBenchResult:
    """Run the benchmark (about 1 s per iteration on 2 cores) and return its figures.
    ``pool``: also the resets through a warm pool (two more browsers)."""
    options = options or SessionOptions()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="webdojo-bench-") as tmp:
        write_pages(Path(tmp))
        with StaticServer(tmp) as server:
            options = options.allowing(server.url(""))  # the bench's own page server
            async with await BrowserHost.launch(config) as host:
                result = EnvBenchResult(
                    iterations=iterations, chromium=f"{host.version} ({host.executable})"
                )
                await _measure(host, server.url("a.html"), options, iterations, warmup, result)
                if pool:
                    url = server.url("a.html")
                    await _measure_pool(host, config, url, options, iterations, result)
                await _measure_cpu(host, server.url("a.html"), options, iterations, result)
                if extras:
                    await _measure_extras(host, server.url("a.html"), options, iterations, result)
    result.wall_s = time.perf_counter() - started
    return result


async def _measure(
    host: BrowserHost,
    start_url: str,
    options: SessionOptions,
    iterations: int,
    warmup: int,
    result: EnvBenchResult,
) -> None:
    raw, ours = RawRunner(host.browser, options), WebdojoRunner(host, options)
    samples: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in STEPS}
    try:
        for i in range(warmup + iterations):
            steps = {
                "reset": (lambda: raw.reset(start_url), lambda: ours.reset(start_url)),
                "in_page": (raw.in_page, ours.in_page),
                "navigation": (raw.navigation, ours.navigation),
            }
            for name, (raw_fn, our_fn) in steps.items():
                if name == "reset":  # closing the previous episode is not part of a reset
                    await raw.close()
                    await ours.close()
                if name == "in_page":  # steady state, not the first input after a load
                    await _pair(i, raw_fn, our_fn)
                a, b = await _pair(i, raw_fn, our_fn)
                if i >= warmup:
                    samples[name][0].append(a)
                    samples[name][1].append(b)
    finally:
        await raw.close()
        await ours.close()
    for name, (a_samples, b_samples) in samples.items():
        result.raw[name] = Stat.of(a_samples)
        result.webdojo[name] = Stat.of(b_samples)


async def _measure_pool(
    host: BrowserHost,
    config: BrowserConfig | None,
    start_url: str,
    options: SessionOptions,
    iterations: int,
    result: EnvBenchResult,
) -> None:
    samples = await pool_resets(host, config, start_url, options, iterations, POOL_RESETS)
    result.pool_raw = Stat.of(samples.pop("raw"))
    result.pool_floor = Stat.of(samples.pop("floor"))
    result.pool = {name: Stat.of(values) for name, values in samples.items()}


async def _measure_cpu(
    host: BrowserHost,
    start_url: str,
    options: SessionOptions,
    iterations: int,
    result: EnvBenchResult,
) -> None:
    """CPU per step: blocks of steps (raw, then webdojo) under a ``CpuMeter`` (this process
    tree, Chromium included). Reset is not measured: each reset starts a renderer, and short
    lived processes are undercounted."""
    for name in ("in_page", "navigation"):
        result.cpu_ms[name] = {}
        for label, runner in (
            ("raw", RawRunner(host.browser, options)),
            ("webdojo", WebdojoRunner(host, options)),
        ):
            try:
                await runner.reset(start_url)
                step = getattr(runner, name)
                for _ in range(3):
                    await step()  # warm-up
                with CpuMeter() as meter:
                    for _ in range(iterations):
                        await step()
            finally:
                await runner.close()
            assert meter.usage is not None
            used = meter.usage.tree_cpu_s
            result.cpu_ms[name][label] = round(used * 1000 / iterations, 2)


async def _measure_extras(
    host: BrowserHost,
    start_url: str,
    options: SessionOptions,
    iterations: int,
    result: EnvBenchResult,
) -> None:
    """In-page steps with richer observations, interleaved round-robin on one session each."""
    runners = {name: WebdojoRunner(host, options) for name in EXTRAS}
    samples: dict[str, list[float]] = {name: [] for name in EXTRAS}
    pillow: list[float] = []
    try:
        for name, runner in runners.items():
            await runner.reset(start_url, EXTRAS[name])
            await runner.in_page(EXTRAS[name])  # warm-up
        for _ in range(iterations):
            for name, runner in runners.items():
                start = time.perf_counter()
                await runner.in_page(EXTRAS[name])
                samples[name].append((time.perf_counter() - start) * 1000)
        session = runners["elements"].session
        assert session is not None
        obs = await session.observe(EXTRAS["elements"])
        assert obs.screenshot is not None and obs.elements is not None
        pillow = [pillow_marks_ms(obs.screenshot, obs.elements) for _ in range(iterations)]
    finally:
        await asyncio.gather(*(r.close() for r in runners.values()))
    for name, values in samples.items():
        result.extras[name] = Stat.of(values)
    # Pillow drawing would replace the in-page overlay: its cost on top of an elements step.
    elements = result.extras["elements"]
    drawn = Stat.of(pillow)
    result.extras["marks_pillow"] = Stat(
        round(elements.p50_ms + drawn.p50_ms, 2), round(elements.p90_ms + drawn.p90_ms, 2), drawn.n
    )


# --- reporting --------------------------------------------------------------------------


def env_bench_table(result: EnvBenchResult) -> Table:
    """A rich table of the result: one row per step, then one per richer observation."""
    table = Table(
        title=f"webdojo env bench: {result.iterations} iterations, Chromium {result.chromium}"
    )
    columns = ("measure", "raw p50", "raw p90", "webdojo p50", "webdojo p90", "ratio p50")
    for column in (*columns, "CPU/step raw", "CPU/step webdojo"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    ratios = result.ratios()
    labels = {"in_page": "in-page step", "navigation": "navigation step", "reset": "reset (cold)"}
    for name in STEPS:
        if name not in result.raw:
            continue
        raw, ours, ratio = result.raw[name], result.webdojo[name], ratios.get(name, 0.0)
        mark = "green" if ratio <= TARGET_RATIO else "red"
        cpu = result.cpu_ms.get(name, {})
        table.add_row(
            labels[name],
            f"{raw.p50_ms:.1f} ms",
            f"{raw.p90_ms:.1f} ms",
            f"{ours.p50_ms:.1f} ms",
            f"{ours.p90_ms:.1f} ms",
            f"[{mark}]{ratio:.2f}[/{mark}]",
            f"{cpu['raw']:.1f} ms" if "raw" in cpu else "",
            f"{cpu['webdojo']:.1f} ms" if "webdojo" in cpu else "",
        )
    _pool_rows(table, result)
    added = result.added_ms()
    for name, stat in result.extras.items():
        delta = f"+{added[name]:.1f} ms" if name in added else "(base)"
        label = f"in-page, {name.replace('_', ' ')}"
        table.add_row(label, "", "", f"{stat.p50_ms:.1f} ms", f"{stat.p90_ms:.1f} ms", delta)
    return table


def _pool_rows(table: Table, result: EnvBenchResult) -> None:
    """Resets through the warm pool, against raw resets timed in the same loop; green where
    the p50 meets ``WARM_RESET_TARGET_MS``."""
    labels = {"reset_warm": "reset (warm pool)", "reset_warm_blank": "reset (warm, blank page)"}
    raw, ratios = result.pool_raw, result.pool_ratios()
    for name, stat in result.pool.items():
        mark = "green" if stat.p50_ms <= WARM_RESET_TARGET_MS else "red"
        table.add_row(
            labels.get(name, name),
            "" if raw is None else f"{raw.p50_ms:.1f} ms",
            "" if raw is None else f"{raw.p90_ms:.1f} ms",
            f"[{mark}]{stat.p50_ms:.1f} ms[/{mark}]",
            f"{stat.p90_ms:.1f} ms",
            f"{ratios[name]:.2f}" if name in ratios else "",
        )
    if result.pool_floor is not None:  # the browser's own floor for a reset with a page load
        floor = result.pool_floor
        label = "reset floor (raw goto + bare capture)"
        table.add_row(label, "", "", f"{floor.p50_ms:.1f} ms", f"{floor.p90_ms:.1f} ms", "")


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - manual entry point
    """``python -m webdojo.bench.env_bench [--iterations N] [--json]``."""
    import argparse
    import json

    from rich.console import Console

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="print the result as JSON last")
    args = parser.parse_args(argv)
    result = asyncio.run(run_env_bench(args.iterations))
    Console(width=max(Console().width, 120)).print(env_bench_table(result))
    if args.json:
        print(json.dumps(result.to_json()))


if __name__ == "__main__":  # pragma: no cover
    main()
