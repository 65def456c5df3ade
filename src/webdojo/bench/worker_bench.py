"""Measurements of one worker: per-operation queues vs one FIFO, and warm vs cold creates.

Queues (``compare_queue_modes``). A mixed workload on one worker: ``slow_sessions`` sessions
navigate again and again to a page that takes ``slow_page_ms`` to answer (a slow site: the
browser waits on the network, the CPU is idle) while ``fast_sessions`` sessions click a button
in their page (a few tens of ms of CPU each). In per-op mode the navigations queue among
themselves for the ``create`` slots and the clicks have their own ``execute`` slots; in FIFO
mode everything shares one queue with the same total number of slots, so once the navigations
outnumber the slots every click waits behind them. The result gives the clicks' latency
(p50/p90, queue wait included) and both kinds' throughput: per-op queues trade some navigation
concurrency for responsive in-page steps.

Warm pool (``compare_warm_cold``). Create latency (context + first page + start page load +
first screenshot) with the warm pool on and off, one create at a time, the pool refilled
between creates as it is between real episodes.

    python -m webdojo.bench.worker_bench            # both, as text
    python -m webdojo.bench.worker_bench --json
    result = await compare_queue_modes(QueueBenchConfig(duration_s=10))   # from code
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from webdojo.actions import Click, Goto
from webdojo.bench.percentiles import percentile
from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.options import SessionOptions
from webdojo.local_http import LoopbackHTTPServer
from webdojo.observation import ObservationOptions
from webdojo.server.worker.core import QueueMode, Worker, WorkerConfig

PAGE = b"""<!doctype html><html><head><title>Bench</title></head><body>
<button id="b" style="position:absolute;left:10px;top:10px;width:200px;height:60px"
 onclick="this.textContent = Number(this.textContent) + 1">0</button></body></html>"""
BUTTON = Click(x=100, y=40)  # the button's centre: no element list needed
SHOT = ObservationOptions()  # a JPEG screenshot, as a VLM agent would ask for


@dataclass(frozen=True)
class QueueBenchConfig:
    slow_sessions: int = 24  # sessions that navigate to the slow page over and over
    fast_sessions: int = 4  # sessions that click in their page over and over
    slow_page_ms: int = 1500  # how long the slow page takes to answer (network wait)
    duration_s: float = 20.0  # measured time per mode
    create_limit: int = 8  # per-op slots for navigations; FIFO gets the sum of the three
    execute_limit: int = 4
    observe_limit: int = 4


# --- a site with a slow page --------------------------------------------------------------


@contextlib.contextmanager
def _site() -> Iterator[str]:
    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.startswith("/slow"):  # /slow?ms=N&n=I
                ms = int(self.path.partition("ms=")[2].partition("&")[0] or 0)
                stop.wait(ms / 1000)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            with contextlib.suppress(OSError):
                self.wfile.write(PAGE)

    server = LoopbackHTTPServer(Handler).start()
    try:
        yield server.base_url
    finally:
        stop.set()  # release the slow pages first: shutdown waits for nothing then
        server.close()


# --- per-op queues vs FIFO ----------------------------------------------------------------


async def compare_queue_modes(
    config: QueueBenchConfig | None = None, browser: BrowserConfig | None = None
) -> dict[str, Any]:
    """Run the mixed workload once per queue mode, and the fast sessions once alone (the
    floor). Returns per run the fast steps' p50/p90 (ms), fast steps/s and slow
    navigations/s, plus the configuration."""
    config = config or QueueBenchConfig()
    out: dict[str, Any] = {"config": asdict(config)}
    runs = [
        ("alone", QueueMode.PER_OP, dataclasses.replace(config, slow_sessions=0)),
        ("per_op", QueueMode.PER_OP, config),
        ("fifo", QueueMode.FIFO, config),
    ]
    with _site() as base:
        for name, mode, workload in runs:
            worker_config = WorkerConfig(
                queue_mode=mode,
                create_limit=config.create_limit,
                execute_limit=config.execute_limit,
                observe_limit=config.observe_limit,
                warm_contexts=0,
                browser=browser or BrowserConfig(),
            )
            out[name] = await _run_mode(worker_config, workload, base)
    return out


async def _run_mode(worker_config: WorkerConfig, config: QueueBenchConfig, base: str) -> Any:
    options = SessionOptions(navigation_timeout_s=60.0, action_timeout_s=30.0).allowing(base)
    async with Worker(worker_config) as worker:
        n = config.slow_sessions + config.fast_sessions
        ids = [(await worker.create(f"{base}/page", options, SHOT))[0] for _ in range(n)]
        slow, fast = ids[: config.slow_sessions], ids[config.slow_sessions :]
        fast_ms: list[float] = []
        slow_done = [0]
        end = time.perf_counter() + config.duration_s
        start = time.perf_counter()

        async def click_loop(session_id: str) -> None:
            while time.perf_counter() < end:
                t0 = time.perf_counter()
                await worker.step(session_id, BUTTON, SHOT)
                fast_ms.append((time.perf_counter() - t0) * 1000)

        async def navigate_loop(session_id: str, k: int) -> None:
            i = 0
            while time.perf_counter() < end:
                i += 1
                url = f"{base}/slow?ms={config.slow_page_ms}&n={k}-{i}"
                await worker.step(session_id, Goto(url=url), SHOT)
                slow_done[0] += 1

        await asyncio.gather(
            *(navigate_loop(s, k) for k, s in enumerate(slow)), *(click_loop(s) for s in fast)
        )
        elapsed = time.perf_counter() - start
        for session_id in ids:
            await worker.close(session_id)
    return {
        "fast_step_p50_ms": _pct(fast_ms, 50),
        "fast_step_p90_ms": _pct(fast_ms, 90),
        "fast_steps_per_s": round(len(fast_ms) / elapsed, 2),
        "slow_navigations_per_s": round(slow_done[0] / elapsed, 2),
        "fast_steps": len(fast_ms),
        "elapsed_s": round(elapsed, 1),
    }


# --- warm vs cold creates -----------------------------------------------------------------


async def compare_warm_cold(creates: int = 20, browser: BrowserConfig | None = None) -> Any:
    """p50/p90 create latency (ms) with a warm pool of 2 and without one."""
    out: dict[str, Any] = {"creates": creates}
    with _site() as base:
        for name, warm in (("warm", 2), ("cold", 0)):
            config = WorkerConfig(warm_contexts=warm, browser=browser or BrowserConfig())
            async with Worker(config) as worker:
                times: list[float] = []
                contexts: list[float] = []
                for _ in range(creates + 1):  # the first one warms the browser up: dropped
                    while worker.stats()["warm_ready"] < warm:
                        await asyncio.sleep(0.02)
                    t0 = time.perf_counter()
                    session_id, obs = await worker.create(
                        f"{base}/page", SessionOptions().allowing(base), SHOT
                    )
                    times.append((time.perf_counter() - t0) * 1000)
                    contexts.append(obs.timings_ms["context"])
                    await worker.close(session_id)
                out[name] = {
                    "create_p50_ms": _pct(times[1:], 50),
                    "create_p90_ms": _pct(times[1:], 90),
                    "context_p50_ms": _pct(contexts[1:], 50),  # the part the warm pool saves
                    "warm_hits": worker.stats()["warm_hits"],
                }
    return out


def _pct(values: list[float], q: int) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(value, 1)


def format_results(queues: dict[str, Any], warm: dict[str, Any] | None = None) -> str:
    lines = ["queue mode   fast p50 ms  fast p90 ms  fast steps/s  slow navs/s"]
    for mode in ("alone", "per_op", "fifo"):
        r = queues[mode]
        lines.append(
            f"{mode:<12} {r['fast_step_p50_ms']!s:>11}  {r['fast_step_p90_ms']!s:>11}"
            f"  {r['fast_steps_per_s']:>12}  {r['slow_navigations_per_s']:>11}"
        )
    c = queues["config"]
    lines.append(
        f"({c['slow_sessions']} sessions loading a {c['slow_page_ms']} ms page, "
        f"{c['fast_sessions']} clicking; limits create/execute/observe "
        f"{c['create_limit']}/{c['execute_limit']}/{c['observe_limit']}, FIFO "
        f"{c['create_limit'] + c['execute_limit'] + c['observe_limit']}; "
        f"{c['duration_s']:g} s each; alone = the clicking sessions without the others)"
    )
    if warm is not None:
        lines.append("create       p50 ms  p90 ms  context p50 ms")
        for name in ("warm", "cold"):
            r = warm[name]
            lines.append(
                f"{name:<12} {r['create_p50_ms']!s:>6}  {r['create_p90_ms']!s:>6}"
                f"  {r['context_p50_ms']!s:>14}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m webdojo.bench.worker_bench")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--duration", type=float, default=QueueBenchConfig.duration_s)
    parser.add_argument("--creates", type=int, default=20)
    args = parser.parse_args(argv)

    async def both() -> tuple[dict[str, Any], dict[str, Any]]:
        queues = await compare_queue_modes(QueueBenchConfig(duration_s=args.duration))
        return queues, await compare_warm_cold(args.creates)

    queues, warm = asyncio.run(both())
    if args.json:
        print(json.dumps({"queues": queues, "warm_pool": warm}, indent=2))
    else:
        print(format_results(queues, warm))


if __name__ == "__main__":
    main()
