"""The ``webdojo`` command line (Typer). Each command is a thin shell over a library call."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from webdojo.cli.bench_miniwob import register as register_bench_miniwob
from webdojo.cli.bench_soak import register as register_bench_soak
from webdojo.cli.cache import cache_app
from webdojo.cli.export import register as register_export
from webdojo.cli.judge import judge_app
from webdojo.cli.select import register as register_select
from webdojo.cli.sites_generate import register as register_sites_generate
from webdojo.cli.tasks import tasks_app
from webdojo.cli.train import train_app
from webdojo.cli.viewer import register as register_viewer_commands
from webdojo.cli.wiki import wiki_app
from webdojo.errors import ConfigError, ServerDown, WebdojoError

if TYPE_CHECKING:
    from webdojo.browser.netpolicy import NetworkPolicy

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
sites_app = typer.Typer(no_args_is_help=True, help="Built-in and user-written synthetic sites.")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks that print ratios to a baseline.")
app.add_typer(sites_app, name="sites")
app.add_typer(bench_app, name="bench")
app.add_typer(tasks_app, name="tasks")
app.add_typer(judge_app, name="judge")
app.add_typer(train_app, name="train")
app.add_typer(cache_app, name="cache")
app.add_typer(wiki_app, name="wiki")
register_select(app)
register_sites_generate(sites_app)
register_export(app)

console = Console()  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)


def _fail(exc: WebdojoError) -> typer.Exit:
    errors.print(f"[red]error[/red] {escape(str(exc))}")
    return typer.Exit(code=2)


def _emit_json(data: dict[str, Any]) -> None:
    """The last line on stdout: one JSON object."""
    print(json.dumps(data, sort_keys=False))


RUN_HELP = {
    "tasks": "task spec: builtin, builtin:shop+wiki, miniwob, miniwob:click-test,enter-text, "
    "a sites dir or a task file",
    "policy": "scripted | random | perturbed | openai (default: openai if a model endpoint is configured, else scripted)",
    "limit": "run only the first N episodes",
    "concurrency": "episodes in flight",
    "repeats": "episodes per task",
    "seed": "seed for the random policy and sampling",
    "out": "run directory (default runs/<timestamp>); an existing one is resumed",
    "model_base_url": "OpenAI-compatible endpoint (else $WEBDOJO_MODEL_BASE_URL)",
    "model": "model name (else $WEBDOJO_MODEL)",
    "template": "prompt template for the openai policy: qwen, webgym_memory, browseragent, funcall (default: browseragent with --wiki, else webgym_memory)",
    "server": "run the browsers on a `webdojo serve` server at this URL",
    "token": "that server's bearer token",
    "json": "print a JSON summary as the last stdout line",
    "archive": "replay every page from this cache archive (`webdojo cache record`); no network",
    "allow_host": "let the agent's browser reach this host glob (*.example.com; repeatable; "
    "given any, only these hosts) or this origin (http://127.0.0.1:9000, even on loopback)",
    "deny_host": "never let the agent's browser reach this host glob (repeatable; wins)",
    "network_policy": "on: block private addresses and local schemes (default); off: trusted sites only",
    "wiki": "serve this ZIM file (an offline Wikipedia) and start every task at its search page; tasks may be in any QA format `webdojo tasks import` reads",
}


@app.command()
def run(
    tasks: Annotated[str, typer.Option(help=RUN_HELP["tasks"])] = "builtin",
    policy: Annotated[str | None, typer.Option(help=RUN_HELP["policy"])] = None,
    limit: Annotated[int | None, typer.Option(help=RUN_HELP["limit"])] = None,
    concurrency: Annotated[int, typer.Option(help=RUN_HELP["concurrency"])] = 4,
    repeats: Annotated[int, typer.Option(help=RUN_HELP["repeats"])] = 1,
    seed: Annotated[int, typer.Option(help=RUN_HELP["seed"])] = 0,
    out: Annotated[Path | None, typer.Option(help=RUN_HELP["out"])] = None,
    model_base_url: Annotated[str | None, typer.Option(help=RUN_HELP["model_base_url"])] = None,
    model: Annotated[str | None, typer.Option(help=RUN_HELP["model"])] = None,
    template: Annotated[str | None, typer.Option(help=RUN_HELP["template"])] = None,
    server: Annotated[str | None, typer.Option(help=RUN_HELP["server"])] = None,
    token: Annotated[
        str | None, typer.Option(help=RUN_HELP["token"], envvar="WEBDOJO_SERVER_TOKEN")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help=RUN_HELP["json"])] = False,
    archive: Annotated[Path | None, typer.Option(help=RUN_HELP["archive"])] = None,
    wiki: Annotated[Path | None, typer.Option(help=RUN_HELP["wiki"])] = None,
    allow_host: Annotated[list[str] | None, typer.Option(help=RUN_HELP["allow_host"])] = None,
    deny_host: Annotated[list[str] | None, typer.Option(help=RUN_HELP["deny_host"])] = None,
    network_policy: Annotated[str, typer.Option(help=RUN_HELP["network_policy"])] = "on",
) -> None:
    """Roll out a policy on a task set, verify every episode, store and summarize the run.

    Exit codes: 0 done; 2 bad input (task spec, flags); 3 the --server stopped answering and
    the run stopped early (run the same command again to resume)."""
    from webdojo.cli.run import run_command

    try:
        run_command(
            tasks=tasks,
            policy=policy,
            limit=limit,
            concurrency=concurrency,
            repeats=repeats,
            seed=seed,
            out=out or Path("runs") / datetime.now().strftime("%Y%m%d-%H%M%S"),
            model_base_url=model_base_url,
            model=model,
            template=template,
            server=server,
            token=token,
            archive=_checked_archive(archive),
            as_json=as_json,
            console=console,
            emit_json=_emit_json,
            wiki=None if wiki is None else str(wiki),
            network=_network(allow_host, deny_host, network_policy),
        )
    except ServerDown as exc:
        errors.print(
            f"[red]error[/red] {escape(str(exc))}.\nThe server at {server} is not answering: "
            "restart it, then run the same command again to resume (finished episodes are kept)."
        )
        raise typer.Exit(code=3) from exc
    except WebdojoError as exc:
        raise _fail(exc) from exc


def _network(allow: list[str] | None, deny: list[str] | None, mode: str) -> NetworkPolicy:
    from webdojo.browser.netpolicy import policy_from_flags

    return policy_from_flags(tuple(allow or ()), tuple(deny or ()), mode)


def _checked_archive(path: Path | None) -> str | None:
    """An archive's absolute path, after opening it once: a bad archive fails before any
    browser starts."""
    if path is None:
        return None
    from webdojo.cache.archive import Archive

    Archive.open(path).close()
    return str(path.resolve())


@app.command()
def verify(
    run_dir: Annotated[Path, typer.Argument(help="a run directory written by `webdojo run`")],
    tasks: Annotated[
        str | None, typer.Option(help="task spec (default: the one in the run's config.json)")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the agreement as JSON as the last stdout line")
    ] = False,
) -> None:
    """Verify every stored episode again from its stored final state (no browser) and report
    agreement with the stored rewards. Exit 1 when any reward disagrees."""
    from webdojo.judges.reverify import reverify_run, reverify_table

    try:
        report = reverify_run(run_dir, tasks)
    except WebdojoError as exc:
        raise _fail(exc) from exc
    console.print(reverify_table(report))
    if as_json:
        _emit_json(report.to_json())
    if not report.ok:
        raise typer.Exit(code=1)


@app.command()
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="print the findings as JSON")] = False,
) -> None:
    """Check the installation: Chromium, Playwright, the model endpoint."""
    from webdojo.doctor import diagnose, render

    findings = asyncio.run(diagnose())
    if as_json:
        _emit_json(findings)
    else:
        render(findings, console)
    if not findings["ok"]:
        raise typer.Exit(code=1)


@app.command()
def serve(
    host: Annotated[
        str, typer.Option(help="address to bind; non-loopback needs --token")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port; 0 picks a free one (printed)")] = 8700,
    workers: Annotated[
        int, typer.Option(help="worker processes, one Chromium each; 0 = in this process")
    ] = 0,
    max_sessions: Annotated[
        int, typer.Option(help="past this, create answers 429 + Retry-After")
    ] = 64,
    token: Annotated[
        str | None, typer.Option(help="bearer token required on every route but health")
    ] = None,
    ray: Annotated[
        str | None, typer.Option(help="put workers in Ray actors: auto or HOST:PORT")
    ] = None,
    tasks: Annotated[
        str, typer.Option(help="task set that sessions can be created from by id")
    ] = "builtin",
    idle_ttl: Annotated[
        float, typer.Option(help="seconds before an idle session is reaped")
    ] = 300.0,
    action_timeout: Annotated[float, typer.Option(help="deadline of one action, seconds")] = 10.0,
    navigation_timeout: Annotated[
        float, typer.Option(help="deadline of a page load, seconds")
    ] = 15.0,
    log_level: Annotated[str, typer.Option(help="uvicorn log level")] = "warning",
    archive: Annotated[Path | None, typer.Option(help=RUN_HELP["archive"])] = None,
    allow_host: Annotated[list[str] | None, typer.Option(help=RUN_HELP["allow_host"])] = None,
    deny_host: Annotated[list[str] | None, typer.Option(help=RUN_HELP["deny_host"])] = None,
    network_policy: Annotated[str, typer.Option(help=RUN_HELP["network_policy"])] = "on",
) -> None:
    """Serve browser sessions over HTTP (OpenAPI at /openapi.json, metrics at /metrics)."""
    from webdojo.server.serve import serve as run_server

    try:
        replayed = _checked_archive(archive)
        run_server(
            host,
            port,
            workers,
            max_sessions,
            token,
            ray,
            tasks,
            idle_ttl_s=idle_ttl,
            action_timeout_s=action_timeout,
            navigation_timeout_s=navigation_timeout,
            log_level=log_level,
            archive=replayed,
            network=_network(allow_host, deny_host, network_policy),
        )
    except WebdojoError as exc:
        raise _fail(exc) from exc


@sites_app.command("check")
def sites_check(
    directory: Annotated[
        str, typer.Argument(help="a sites root, one site directory, or 'builtin'")
    ] = "builtin",
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Load every page, report console errors and failed requests, and run every reference
    solution (which must pass) and wrong solution (which must fail) against its verifier."""
    from webdojo.checks.sites import check_sites, render_report

    try:
        report = asyncio.run(check_sites(directory, progress_console=None if as_json else console))
    except WebdojoError as exc:
        raise _fail(exc) from exc
    if as_json:
        _emit_json(report.to_json())
    else:
        render_report(report, console)
    if not report.ok:
        raise typer.Exit(code=1)


@bench_app.command("env")
def bench_env(
    iterations: Annotated[int, typer.Option(help="measured steps per operation")] = 40,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Step, navigation and reset latency: webdojo's session against raw Playwright."""
    from webdojo.bench.env_bench import env_bench_table, run_env_bench

    started = time.perf_counter()
    result = asyncio.run(run_env_bench(iterations=iterations))
    console.print(env_bench_table(result))
    console.print(f"[dim]bench took {time.perf_counter() - started:.1f} s[/dim]")
    if as_json:
        _emit_json(result.to_json())


@bench_app.command("rollout")
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


@bench_app.command("tasks")
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


@bench_app.command("cache")
def bench_cache(
    replays: Annotated[
        int | None, typer.Option(help="replays with the aids on, and as many off [default: 10]")
    ] = None,
    entries: Annotated[
        int | None,
        typer.Option(help="exchanges in the synthetic archive of lookups [default: 100000]"),
    ] = None,
    quick: Annotated[
        bool, typer.Option(help="small numbers (3 replays, 2,000 entries) unless given")
    ] = False,
    work: Annotated[
        Path | None, typer.Option(help="keep the archives here (default: a temporary directory)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """Record and replay the volatile site: hit rates by level, false matches on trap
    parameters, volatile-field precision and recall, identical screenshots with the aids on
    and off, a canary for outbound requests, index lookup times at 100k entries, and page
    load time live vs replayed."""
    from dataclasses import replace

    from webdojo.bench.cache_bench import CacheBenchConfig, run_cache_bench
    from webdojo.bench.cache_bench_report import cache_bench_tables

    config = CacheBenchConfig.quick() if quick else CacheBenchConfig()
    given = {"replays": replays, "entries": entries}
    config = replace(config, **{k: v for k, v in given.items() if v is not None})
    if config.replays < 1 or config.entries < 10:
        raise _fail(ConfigError("--replays must be at least 1 and --entries at least 10"))
    try:
        result = asyncio.run(
            run_cache_bench(config, work, log=lambda m: console.print(f"[dim]{escape(m)}[/dim]"))
        )
    except WebdojoError as exc:
        raise _fail(exc) from exc
    console.print(cache_bench_tables(result))
    if as_json:
        _emit_json(result.to_json())


register_viewer_commands(app)  # view, report
register_bench_miniwob(bench_app)  # bench miniwob
register_bench_soak(bench_app)  # bench soak
