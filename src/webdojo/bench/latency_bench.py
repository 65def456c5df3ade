"""Step latency through the server against in-process sessions, at low load, in one run.

One session each, on the same page (the benchmark shop page of ``webdojo.bench.pages``), the
same step (click the in-page counter button + a JPEG q80 screenshot, DESIGN.md's reference
step):

* ``in-process``: ``InProcessEnv`` (a Chromium in this process);
* ``server/msgpack``: ``HttpEnv`` (its default transport) to ``webdojo serve --workers 0``
  in a child process, on loopback;
* ``server/json``: the same with ``transport="json"``.

The contenders take turns step by step, in a rotating order, so that background load hits all
alike. The issue's target: server p50 <= 1.10x in-process p50.

``python -m webdojo.bench.latency_bench`` prints the table; ``run_latency_bench()`` returns a
dict. Benchmarks report, they do not assert.
"""

from __future__ import annotations

import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any, Protocol

from webdojo.actions import Click
from webdojo.bench.pages import COUNTER_XY, write_pages
from webdojo.bench.server_report import bench_main, percentiles_ms, table
from webdojo.bench.static import StaticServer
from webdojo.browser.options import SessionOptions
from webdojo.observation import Observation, ObservationOptions
from webdojo.rollout.env_client import InProcessEnv
from webdojo.rollout.http_env import HttpEnv, HttpSession
from webdojo.server.child_process import ServerProcess
from webdojo.sites.server import SiteServer
from webdojo.tasks.schema import Task

TARGET_RATIO = 1.10
SHOT = ObservationOptions(jpeg_quality=80)
CLICK = Click(x=COUNTER_XY[0], y=COUNTER_XY[1])


class _Stepper(Protocol):
    async def step(self, action: Click, options: ObservationOptions) -> Observation: ...
    async def aclose(self) -> None: ...


def bench_task(url: str) -> Task:
    """A task whose start is the benchmark page (InProcessEnv opens tasks)."""
    return Task.model_validate(
        {
            "id": "bench.counter",
            "site": "bench",
            "instruction": "Click the counter.",
            "start": url,
            "rubric": {"fact_groups": [{"id": 1, "facts": ["clicked"]}]},
            "verifier": {"checks": [{"kind": "url", "value": "a.html"}]},
            "solution": [{"type": "stop"}],
        }
    )


async def _measure(
    contenders: dict[str, _Stepper], steps: int, warmup: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds per step by contender and, for server sessions, the part of each step spent
    outside the pool (HTTP, encoding, bookkeeping: the server's own cost)."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    outside: dict[str, list[float]] = {}
    names = list(contenders)
    for i in range(warmup + steps):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            session = contenders[name]
            start = time.perf_counter()
            await session.step(CLICK, SHOT)
            took = time.perf_counter() - start
            if i < warmup:
                continue
            samples[name].append(took)
            if isinstance(session, HttpSession) and session.last is not None:
                pool_s = session.last.info.timings_ms.get("pool", 0.0) / 1000
                outside.setdefault(name, []).append(took - pool_s)
    return samples, outside


def _row(values: list[float]) -> dict[str, float]:
    return percentiles_ms(values, (10, 50, 90), digits=2)


def _serve_args(pages: StaticServer) -> list[str]:
    return ["--workers", "0", "--allow-host", pages.base_url]  # the bench's own page server


async def run_latency_bench(steps: int = 100, warmup: int = 5) -> dict[str, Any]:
    with TemporaryDirectory() as tmp:
        write_pages(Path(tmp))
        with StaticServer(tmp) as pages, ServerProcess(_serve_args(pages)) as server:
            url = pages.url("a.html")
            local_env = InProcessEnv(SiteServer({}), SessionOptions().allowing(pages.base_url))
            remote = HttpEnv(server.url)
            remote_json = HttpEnv(server.url, transport="json")
            opened: dict[str, _Stepper] = {}
            try:
                opened["in-process"] = (await local_env.open(bench_task(url), SHOT))[0]
                opened["server/msgpack"] = (await remote.open_url(url, SHOT))[0]
                opened["server/json"] = (await remote_json.open_url(url, SHOT))[0]
                samples, outside = await _measure(opened, steps, warmup)
            finally:
                for session in opened.values():
                    await session.aclose()
                await local_env.aclose()
                local_env.server.close()
                await remote.aclose()
                await remote_json.aclose()
    stats = {name: _row(values) for name, values in samples.items()}
    base = stats["in-process"]
    ratios = {
        name: {
            "p50": round(row["p50_ms"] / base["p50_ms"], 3),
            "p90": round(row["p90_ms"] / base["p90_ms"], 3),
        }
        for name, row in stats.items()
        if name != "in-process"
    }
    return {
        "steps": steps,
        "latency": stats,
        "ratio_to_in_process": ratios,
        # per step, outside the pool: what the server adds on top of the browser work
        "server_overhead": {name: _row(values) for name, values in outside.items()},
        "target": TARGET_RATIO,
    }


def render(result: dict[str, Any]) -> str:
    lines = [f"step latency, one session each, {result['steps']} steps (click + JPEG q80)"]
    columns = {"p50 ms": 8, "p90 ms": 8, "p50 x": 7, "p90 x": 7}
    rows = []
    for name, row in result["latency"].items():
        ratio = result["ratio_to_in_process"].get(name, {"p50": 1.0, "p90": 1.0})
        rows.append((name, [row["p50_ms"], row["p90_ms"], ratio["p50"], ratio["p90"]]))
    lines += table(16, columns, rows)
    lines.append(f"  target: server p50 <= {result['target']}x in-process")
    lines.append("  server's own share of each step (client time minus the pool's time)")
    for name, row in result["server_overhead"].items():
        lines.append(
            f"  {name:16} p10 {row['p10_ms']} ms, p50 {row['p50_ms']} ms, p90 {row['p90_ms']} ms"
        )
    return "\n".join(lines)


def main() -> None:
    bench_main(__doc__ or "", run_latency_bench, render, steps=100)


if __name__ == "__main__":
    main()
