"""``webdojo bench env|rollout|step-cpu|tasks|cache|adapters|...``: benchmarks that print
ratios to a baseline measured in the same run (``--json``: the result as the last stdout line)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Annotated, Any, Protocol

import typer
from rich.console import Console
from rich.markup import escape

from webdojo.cli.exits import emit_json as _emit_json
from webdojo.cli.exits import fail as _fail
from webdojo.errors import ConfigError, WebdojoError

console = Console()


class _Result(Protocol):
    def to_json(self) -> dict[str, Any]: ...


def _report(table: Any, result: _Result, started: float, as_json: bool) -> None:
    """A bench's ending: its table, how long it took, and with --json its result last."""
    console.print(table)
    console.print(f"[dim]bench took {time.perf_counter() - started:.1f} s[/dim]")
    if as_json:
        _emit_json(result.to_json())


def register(bench_app: typer.Typer) -> None:
    bench_app.command("env")(bench_env)
    bench_app.command("rollout")(bench_rollout)
    bench_app.command("step-cpu")(bench_step_cpu)
    bench_app.command("tasks")(bench_tasks)
    bench_app.command("cache")(bench_cache)
    bench_app.command("adapters")(bench_adapters)
    bench_app.command("stalled")(bench_stalled)
    bench_app.command("memory")(bench_memory)
    bench_app.command("compare-browsergym")(bench_compare_browsergym)


def bench_env(
    iterations: Annotated[int, typer.Option(help="measured steps per operation")] = 40,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Step, navigation and reset latency: webdojo's session against raw Playwright."""
    from webdojo.bench.env_bench import env_bench_table, run_env_bench

    started = time.perf_counter()
    result = asyncio.run(run_env_bench(iterations=iterations))
    _report(env_bench_table(result), result, started, as_json)


def bench_step_cpu(
    nav: Annotated[bool, typer.Option("--nav", help="goto between two pages, not a click")] = False,
    rounds: Annotated[int, typer.Option(min=1, help="rounds, the order reversed each")] = 4,
    seconds: Annotated[float, typer.Option(min=0.5, help="measured seconds per window")] = 6.0,
    sessions: Annotated[
        int, typer.Option(min=0, help="sessions stepping (0: 8, or 2 with --nav)")
    ] = 0,
    server: Annotated[bool, typer.Option(help="also step through `webdojo serve`")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Where a step's CPU goes, by process (client, server, driver, browser, renderer, GPU),
    for webdojo in-process and served against the raw CDP floor, in the same run."""
    from webdojo.bench.step_cpu import run_step_cpu

    started = time.perf_counter()
    try:
        result = asyncio.run(
            run_step_cpu(nav=nav, rounds=rounds, seconds=seconds, sessions=sessions, server=server)
        )
    except WebdojoError as exc:  # no Chromium, a server that would not start
        raise _fail(exc) from exc
    _report(result.table(), result, started, as_json)


def bench_adapters(
    iterations: Annotated[int, typer.Option(help="measured steps per way in")] = 40,
    rounds: Annotated[
        int, typer.Option(help="run every way in this many times, on fresh browsers")
    ] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """One step through each way in (webdojo.make, Gymnasium, OpenEnv) against the rollout's
    in-process step, on the same page in the same run."""
    from webdojo.bench.adapters_bench import run_adapters_bench

    started = time.perf_counter()
    try:
        result = run_adapters_bench(iterations=iterations, rounds=rounds)
    except ConfigError as exc:
        raise _fail(exc) from exc
    _report(result.table(), result, started, as_json)


def bench_compare_browsergym(
    steps: Annotated[int, typer.Option(help="measured steps of each kind per side and round")] = 20,
    rounds: Annotated[
        int, typer.Option(help="rounds, each side on fresh browsers, the order alternating")
    ] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """webdojo's in-page and navigation steps against BrowserGym 0.14.3's, on the same pages and
    Chromium, with the floor's (raw Playwright, a bare capture) beside them (BrowserGym runs in
    .venv-browsergym: `make browsergym-venv`)."""
    from webdojo.bench.browsergym_bench import run_compare

    started = time.perf_counter()
    try:
        result = run_compare(steps=steps, rounds=rounds)
    except WebdojoError as exc:
        raise _fail(exc) from exc
    _report(result.table(), result, started, as_json)


def bench_stalled(
    connections: Annotated[int, typer.Option(help="stalled sockets from one address")] = 2000,
    read_timeout: Annotated[float, typer.Option(help="the server's --read-timeout")] = 5.0,
    max_per_client: Annotated[
        int, typer.Option(help="the server's --max-connections-per-client")
    ] = 256,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """A server under stalled and crowding clients: how fast another client is answered, and
    when every stalled socket is closed."""
    from webdojo.bench.stalled_bench import run_stalled_bench, stalled_table

    started = time.perf_counter()
    try:
        result = run_stalled_bench(connections, read_timeout, max_per_client)
    except WebdojoError as exc:
        raise _fail(exc) from exc
    _report(stalled_table(result), result, started, as_json)


def bench_memory(
    sessions: Annotated[
        str, typer.Option(help="session counts, comma-separated; a fresh server for each")
    ] = "8,32",
    warmup: Annotated[float, typer.Option(min=0.0, help="seconds of stepping first")] = 5.0,
    window: Annotated[float, typer.Option(min=1.0, help="seconds of stepping measured")] = 20.0,
    server_args: Annotated[
        str, typer.Option(help="more `webdojo serve` flags, e.g. '--spare-browser --workers 2'")
    ] = "",
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """PSS per stepping session of a server's process tree (server, workers, browsers), at
    each session count."""
    import shlex

    from webdojo.bench.memory_bench import memory_table, parse_counts, run_memory_bench

    started = time.perf_counter()
    try:
        result = run_memory_bench(
            parse_counts(sessions),
            server_args=shlex.split(server_args),
            warmup_s=warmup,
            window_s=window,
            say=console.print,
        )
    except WebdojoError as exc:
        raise _fail(exc) from exc
    _report(memory_table(result), result, started, as_json)


def bench_rollout(
    quick: Annotated[
        bool, typer.Option(help="a CI-sized run (minutes -> tens of seconds)")
    ] = False,
    server: Annotated[
        bool, typer.Option(help="include the legs through a webdojo serve process")
    ] = True,
    episodes: Annotated[
        int | None, typer.Option(help="episodes in the workload (the async legs run all)")
    ] = None,
    in_flight: Annotated[
        int | None, typer.Option(help="async episodes in flight; also the sync batch size")
    ] = None,
    env_calls: Annotated[
        int | None, typer.Option(help="concurrent env operations (both engines)")
    ] = None,
    latency_median: Annotated[
        float | None, typer.Option(help="median seconds of a simulated policy call")
    ] = None,
    server_workers: Annotated[
        int | None, typer.Option(help="`webdojo serve --workers` for the server legs")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Async vs sync engine, in-process vs server, per-operation queues vs one FIFO, and raw
    Playwright's saturated steps/s, all on the same workload in one run. The defaults suit a
    2-core machine; on a bigger one raise --in-flight and --env-calls until it is CPU-bound."""
    from dataclasses import replace

    from webdojo.bench.rollout_bench import run_rollout_bench
    from webdojo.bench.rollout_report import rollout_bench_table
    from webdojo.bench.rollout_result import RolloutBenchConfig

    config = RolloutBenchConfig.quick() if quick else RolloutBenchConfig()
    overrides: dict[str, Any] = {
        "server": server,
        "episodes": episodes,
        "in_flight": in_flight,
        "env_calls": env_calls,
        "latency_median_s": latency_median,
        "server_workers": server_workers,
    }
    try:
        config = replace(config, **{k: v for k, v in overrides.items() if v is not None})
    except WebdojoError as exc:
        raise _fail(exc) from exc
    result = asyncio.run(
        run_rollout_bench(config, log=lambda m: console.print(f"[dim]{escape(m)}[/dim]"))
    )
    console.print(rollout_bench_table(result))
    if as_json:
        _emit_json(result.to_json())


def bench_tasks(
    n: Annotated[
        int, typer.Option("--n", help="tasks in the synthetic WebGym-format set")
    ] = 300_000,
    work: Annotated[
        Path | None, typer.Option(help="keep the files here (default: a temporary directory)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Time and peak memory of task import, split, stats and sampling at WebGym's scale, each
    phase in its own process (target: under 30 s and 2 GB each)."""
    from webdojo.bench.tasks_bench import run_tasks_bench, tasks_bench_table

    result = run_tasks_bench(n, work, log=lambda m: console.print(f"[dim]{escape(m)}[/dim]"))
    console.print(tasks_bench_table(result))
    if as_json:
        _emit_json(result.to_json())
    if not result.to_json()["ok"]:
        raise typer.Exit(code=1)


def bench_cache(
    replays: Annotated[
        int | None, typer.Option(help="replays with the aids on, and as many off [default: 10]")
    ] = None,
    entries: Annotated[
        int | None,
        typer.Option(help="exchanges in the synthetic archive of lookups [default: 100000]"),
    ] = None,
    loads: Annotated[
        int | None,
        typer.Option(help="page loads timed each way: live, replayed, routed [default: 10]"),
    ] = None,
    quick: Annotated[
        bool, typer.Option(help="small numbers (3 replays, 2,000 entries, 3 loads) unless given")
    ] = False,
    work: Annotated[
        Path | None, typer.Option(help="keep the archives here (default: a temporary directory)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Record and replay the volatile site: hit rates by level, false matches on trap
    parameters, volatile-field precision and recall, identical screenshots with the aids on
    and off, a canary for outbound requests, index lookup times at 100k entries, and page
    load time live, replayed and replayed through Playwright's route, taking turns."""
    from dataclasses import replace

    from webdojo.bench.cache_bench import CacheBenchConfig, run_cache_bench
    from webdojo.bench.cache_bench_report import cache_bench_tables

    config = CacheBenchConfig.quick() if quick else CacheBenchConfig()
    given = {"replays": replays, "entries": entries, "loads": loads}
    config = replace(config, **{k: v for k, v in given.items() if v is not None})
    if config.replays < 1 or config.entries < 10 or config.loads < 1:
        raise _fail(
            ConfigError("--replays and --loads must be at least 1, and --entries at least 10")
        )
    try:
        result = asyncio.run(
            run_cache_bench(config, work, log=lambda m: console.print(f"[dim]{escape(m)}[/dim]"))
        )
    except WebdojoError as exc:
        raise _fail(exc) from exc
    console.print(cache_bench_tables(result))
    if as_json:
        _emit_json(result.to_json())
