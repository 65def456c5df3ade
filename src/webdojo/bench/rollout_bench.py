"""``webdojo bench rollout``: the rollout system against its baselines, in one run.

On one workload of simulated-VLM episodes (``webdojo.bench.simulated``: seeded, VLM-like
latency, WebGym's horizons and 25:5:1 difficulty mix, real browsers on the built-in sites) it
compares

* the async engine against the sync baseline (both in-process): target async >= 4x sync in
  env steps/s;
* in-process against the server (``webdojo serve`` in a child process, through ``HttpEnv``);
* per-operation queues against a single FIFO inside a worker
  (``webdojo.bench.worker_bench.compare_queue_modes``);

and measures in the same run raw Playwright's saturated steps/s (click + screenshot on N busy
pages) so that the server's saturated throughput reads as a share of it (target >= 90%), and
the server's step latency at low load against the in-process step (target <= 1.10x).

Defaults keep enough episodes in flight (32: about twice what the browsers can serve while
the others wait for their model) to make a 2-core machine CPU-bound, as WebGym's 64-CPU setting
was, and run 160 episodes: five refills of every slot, so that the start burst and the tail
weigh on the async figure about as much as they do in a rollout of hundreds of episodes
(WebGym collected 1,800 per half hour). ``quick()`` is a CI-sized run.

The sync baseline runs the first ``sync_batches`` batches of the same workload (one batch by
default: lock-step makes it the slow leg), and the comparison is in env steps/s: over the whole
async run (its tail included, where slots empty one by one) and over its steady phase (from the
first episode's end to the last episode's start: every slot busy and refilled, what a long
rollout sees). ``cpu_ceiling`` says how far any engine could go on this machine. Figures are
reported as measured, met or not.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from webdojo.bench.pages import write_pages
from webdojo.bench.percentiles import percentile
from webdojo.bench.rollout_legs import (
    Contender,
    ms,
    rollout_leg,
    saturate_inprocess,
    saturate_raw,
    saturate_server,
    saturation_rounds,
    step_latency,
)
from webdojo.bench.rollout_result import RolloutBenchConfig, RolloutBenchResult
from webdojo.bench.simulated import SimulatedVLMPolicy, sample_workload
from webdojo.bench.static import StaticServer
from webdojo.browser.host import BrowserHost
from webdojo.rollout.engine import AsyncEngine, EngineConfig
from webdojo.rollout.env_client import EnvClient, InProcessEnv
from webdojo.rollout.episode import EpisodeSpec
from webdojo.rollout.sync_engine import SyncConfig, SyncEngine
from webdojo.sites.server import SiteServer
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import load_spec

Log = Callable[[str], None]


def _machine() -> dict[str, Any]:
    load = os.getloadavg()
    return {"cores": os.cpu_count(), "load_avg_1m": round(load[0], 2)}


# --- the run ----------------------------------------------------------------------------------


async def run_rollout_bench(
    config: RolloutBenchConfig | None = None, log: Log | None = None
) -> RolloutBenchResult:
    """Run every leg (about 12 minutes at the defaults on 2 cores) and return the figures."""
    config = config or RolloutBenchConfig()
    say = log or (lambda _: None)
    result = RolloutBenchResult(config=config, machine={"start": _machine()})
    started = time.perf_counter()
    task_set = load_spec("builtin")
    workload = sample_workload(task_set.tasks, config.episodes, seed=config.seed)
    with tempfile.TemporaryDirectory(prefix="webdojo-rollout-bench-") as tmp_dir:
        tmp = Path(tmp_dir)
        write_pages(tmp / "pages")
        with StaticServer(tmp / "pages") as pages, SiteServer(task_set.sites) as sites:
            url = pages.url("a.html")
            async with await BrowserHost.launch() as host:
                # Which build ran matters: the headless shell costs under half the CPU.
                result.machine["chromium"] = f"{host.version} ({host.executable})"
                sat = _sat(config)
                contenders: dict[str, Contender] = {
                    "raw": functools.partial(saturate_raw, host, url, *sat),
                    "raw CDP": functools.partial(saturate_raw, host, url, *sat, cdp=True),
                    "in-process": functools.partial(saturate_inprocess, host, url, *sat),
                }
                if config.server:
                    try:
                        await _server_legs(
                            config, result, contenders, host, url, workload, tmp, say
                        )
                    except Exception as exc:  # a broken server is a finding, not a crash
                        result.skipped.append(f"server legs failed: {type(exc).__name__}: {exc}")
                else:
                    result.skipped.append("server legs: disabled (--no-server)")
                if not result.saturation:
                    say("saturation: raw Playwright and CDP, webdojo in-process")
                    result.saturation = await saturation_rounds(
                        contenders, config.saturation_rounds
                    )
            await _inprocess_rollouts(config, result, sites, workload, tmp, say)
    if config.queue_duration_s is not None:
        say("queues: per-operation vs FIFO")
        try:
            result.queues = await _queues(config.queue_duration_s, config.queue_sessions)
        except Exception as exc:
            result.skipped.append(f"queues failed: {type(exc).__name__}: {exc}")
    else:
        result.skipped.append("queues: disabled")
    result.machine["end"] = _machine()
    result.wall_s = time.perf_counter() - started
    return result


def _sat(config: RolloutBenchConfig) -> tuple[int, float, float]:
    return config.saturation_sessions, config.saturation_warmup_s, config.saturation_s


def _policy(config: RolloutBenchConfig) -> SimulatedVLMPolicy:
    return SimulatedVLMPolicy(seed=config.seed, latency=config.latency())


def _async_engine(config: RolloutBenchConfig, env: EnvClient, store: RunStore) -> AsyncEngine:
    limits = EngineConfig(
        episodes=config.in_flight, policy_calls=config.policy_calls, env_calls=config.env_calls
    )
    return AsyncEngine(env, _policy(config), store, limits)


async def _inprocess_rollouts(
    config: RolloutBenchConfig,
    result: RolloutBenchResult,
    sites: SiteServer,
    workload: list[EpisodeSpec],
    tmp: Path,
    say: Log,
) -> None:
    env = InProcessEnv(sites)
    await env.host()  # launched before the clock starts, as a server's browser would be
    try:
        say(f"rollout: async in-process, {len(workload)} episodes, {config.in_flight} in flight")
        with RunStore(tmp / "async-inprocess") as store:
            engine = _async_engine(config, env, store)
            leg = await rollout_leg("async in-process", ("async", "in-process"), engine, workload)
            result.rollouts.append(leg)
        sync_specs = workload[: config.sync_episodes()]
        say(f"rollout: sync in-process, {len(sync_specs)} episodes, batch {config.in_flight}")
        with RunStore(tmp / "sync-inprocess") as store:
            sync = SyncEngine(
                env,
                _policy(config),
                store,
                SyncConfig(batch_size=config.in_flight, env_calls=config.env_calls),
            )
            leg = await rollout_leg("sync in-process", ("sync", "in-process"), sync, sync_specs)
            result.rollouts.append(leg)
    finally:
        await env.aclose()


async def _server_legs(
    config: RolloutBenchConfig,
    result: RolloutBenchResult,
    contenders: dict[str, Contender],
    host: BrowserHost,
    url: str,
    workload: list[EpisodeSpec],
    tmp: Path,
    say: Log,
) -> None:
    """With a server running: saturation rounds (raw and in-process included, taking turns
    with the server), low-load latency, and the async rollout through the server."""
    from webdojo.rollout.http_env import HttpEnv
    from webdojo.server.child_process import ServerProcess

    max_sessions = max(64, config.in_flight, config.saturation_sessions) + 8
    args = ["--workers", str(config.server_workers), "--max-sessions", str(max_sessions)]
    args += ["--allow-host", url]  # the bench's own page server
    say(f"starting webdojo serve {' '.join(args)}")
    with ServerProcess(args) as server:
        async with HttpEnv(server.url) as env:
            say(
                f"saturation: raw Playwright and CDP, in-process, server ({config.saturation_rounds} rounds)"
            )
            server_leg = functools.partial(saturate_server, env, url, *_sat(config))
            contenders = {**contenders, "server": server_leg}
            result.saturation = await saturation_rounds(contenders, config.saturation_rounds)
            say("latency: in-process vs server, one session each")
            samples = await step_latency(host, env, url, config.latency_steps)
            result.latency_ms = {
                name: {"p50": ms(percentile(v, 50)), "p90": ms(percentile(v, 90)), "n": len(v)}
                for name, v in samples.items()
            }
            say(f"rollout: async through the server, {len(workload)} episodes")
            with RunStore(tmp / "async-server") as store:
                engine = _async_engine(config, env, store)
                leg = await rollout_leg("async server", ("async", "server"), engine, workload)
                result.rollouts.append(leg)


async def _queues(duration_s: float, sessions: tuple[int, int]) -> dict[str, Any]:
    from webdojo.bench.worker_bench import QueueBenchConfig, compare_queue_modes

    slow, fast = sessions
    bench = QueueBenchConfig(slow_sessions=slow, fast_sessions=fast, duration_s=duration_s)
    return await compare_queue_modes(bench)


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - manual entry point
    """``python -m webdojo.bench.rollout_bench [--quick] [--json]``."""
    import argparse
    import asyncio
    import json

    from rich.console import Console

    from webdojo.bench.rollout_report import rollout_bench_table

    parser = argparse.ArgumentParser(prog="python -m webdojo.bench.rollout_bench")
    parser.add_argument("--quick", action="store_true", help="a CI-sized run")
    parser.add_argument("--json", action="store_true", help="print the JSON as the last line")
    parser.add_argument("--no-server", action="store_true", help="skip the server legs")
    args = parser.parse_args(argv)
    config = RolloutBenchConfig.quick() if args.quick else RolloutBenchConfig()
    if args.no_server:
        config = RolloutBenchConfig(**{**asdict(config), "server": False})
    console = Console(stderr=args.json)
    result = asyncio.run(run_rollout_bench(config, log=lambda m: console.print(f"[dim]{m}[/dim]")))
    console.print(rollout_bench_table(result))
    if args.json:
        print(json.dumps(result.to_json()))


if __name__ == "__main__":  # pragma: no cover
    main()


__all__ = ["run_rollout_bench"]
