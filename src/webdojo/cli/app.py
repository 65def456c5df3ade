"""The ``webdojo`` command line (Typer). Each command is a thin shell over a library call."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from webdojo.cli.bench import register as register_bench
from webdojo.cli.bench_miniwob import register as register_bench_miniwob
from webdojo.cli.bench_soak import register as register_bench_soak
from webdojo.cli.exits import emit_json as _emit_json
from webdojo.cli.exits import fail as _fail
from webdojo.cli.export import register as register_export
from webdojo.cli.lazy_group import LazyGroup
from webdojo.cli.select import register as register_select
from webdojo.cli.signals import restore_ctrl_c
from webdojo.cli.sites_generate import register as register_sites_generate
from webdojo.cli.viewer import register as register_viewer_commands
from webdojo.errors import ModelError, ServerDown, WebdojoError
from webdojo.server.pool.retirement import DEFAULT_MAX_WORKER_SESSIONS
from webdojo.store.run_config import CONFIG

if TYPE_CHECKING:
    from webdojo.browser.netpolicy import NetworkPolicy

MODEL_DOWN_HINT = (
    "The model endpoint is not answering: start it (or fix --model-base-url / --model), then "
    "run the same command again to resume (finished episodes are kept)."
)

# Command groups are imported when a command of theirs runs (or help lists them): a command
# pays for its own imports only (`webdojo run` does not load the trainer or the judges).
LAZY_GROUPS = {
    "tasks": "webdojo.cli.tasks:tasks_app",
    "judge": "webdojo.cli.judge:judge_app",
    "eval": "webdojo.cli.eval:eval_app",
    "train": "webdojo.cli.train:train_app",
    "cache": "webdojo.cli.cache:cache_app",
    "wiki": "webdojo.cli.wiki:wiki_app",
}
app = typer.Typer(
    cls=LazyGroup.of(LAZY_GROUPS), no_args_is_help=True, add_completion=False, help=__doc__
)
sites_app = typer.Typer(no_args_is_help=True, help="Built-in and user-written synthetic sites.")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks that print ratios to a baseline.")


@app.callback()
def _every_command() -> None:
    restore_ctrl_c()  # a background job inherits SIGINT ignored; our commands stop on it


app.add_typer(sites_app, name="sites")
app.add_typer(bench_app, name="bench")
register_select(app)
register_sites_generate(sites_app)
register_export(app)

console = Console()  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)


RUN_HELP = {
    "tasks": "task spec: builtin, builtin:shop+wiki, miniwob, miniwob:click-test,enter-text, "
    "a sites dir or a task file",
    "policy": "scripted | random | perturbed | openai (default: openai if a model endpoint is configured, else scripted)",
    "limit": "run only the first N tasks (each --repeats times)",
    "concurrency": "episodes in flight",
    "repeats": "episodes per task (K repeats give pass@k)",
    "seed": "seed for the random policy and sampling",
    "out": "run directory (default runs/<timestamp>); an existing one is resumed",
    "model_base_url": "OpenAI-compatible endpoint (else $WEBDOJO_MODEL_BASE_URL)",
    "model": "model name (else $WEBDOJO_MODEL)",
    "template": "prompt template for the openai policy: qwen, webgym_memory, browseragent, funcall, chat (append-only, for token-in/token-out trainers), compact; options as NAME:FIELD=VALUE,... (default: browseragent with --wiki, else webgym_memory)",
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
SERVE_HELP = {
    "host": "address to bind; non-loopback needs --token",
    "port": "port; 0 picks a free one (printed)",
    "workers": "worker processes, one Chromium each; 0 = in this process",
    "max_sessions": "past this, create answers 429 + Retry-After",
    "token": "bearer token required on every route but health",
    "ray": "put workers in Ray actors: auto or HOST:PORT",
    "tasks": "task set that sessions can be created from by id",
    "idle_ttl": "seconds before an idle session is reaped",
    "action_timeout": "deadline of one action, seconds",
    "navigation_timeout": "deadline of a page load, seconds",
    "log_level": "uvicorn log level",
    "spare_browser": "each worker (--workers N or --ray) keeps a second browser launched ahead: "
    "a dead or recycled browser is replaced without a launch (about 130 MB per worker)",
    "warm_preload": "warm pages load the start page that episodes keep opening ahead of the next "
    "create: faster resets, but the load runs beside the open episodes' steps",
    "read_timeout": "seconds a request may take to arrive whole (and a new connection to send "
    "its first); past it, 408 and closed",
    "max_connections_per_client": "connections one client address may hold; past it, 429 and "
    "closed (0 = no bound)",
    "max_download_mb": "MB a session's downloads may hold together; past it, refused",
    "max_downloads": "files a session may download; past it, refused",
    "max_worker_sessions": "replace a worker (--workers N or --ray) after it has created this "
    "many sessions; its own sessions finish on it first. Bounds a long run's memory. Default: "
    f"{DEFAULT_MAX_WORKER_SESSIONS} with workers; 0 = never",
    "openenv": "also serve OpenEnv's WebSocket protocol at /ws (openenv-core's EnvClient and "
    "TRL connect to the server's URL): reset, step, state, close; screenshots as base64 JPEG, "
    "messages under 1 MB",
    "wiki": "serve this ZIM file (an offline Wikipedia) beside the sessions: --tasks are QA tasks "
    "in any format `webdojo tasks import` reads, each starting at its search page; clients run "
    "them with `webdojo run --server URL --wiki ZIM`",
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

    Exit codes: 0 done; 2 bad input (task spec, flags); 3 the --server or the model endpoint
    is not answering (checked before the first episode) or stopped answering and the run
    stopped early (run the same command again to resume)."""
    from webdojo.cli.run import run_command

    with _run_exits(server):
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


@contextmanager
def _run_exits(server: str | None) -> Iterator[None]:
    """``run``'s exit codes: 3 when the server or the model endpoint is not answering (the
    same command resumes), 2 for bad input."""
    try:
        yield
    except ServerDown as exc:
        errors.print(
            f"[red]error[/red] {escape(str(exc))}.\nThe server at {server} is not answering: "
            "restart it, then run the same command again to resume (finished episodes are kept)."
        )
        raise typer.Exit(code=3) from exc
    except ModelError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}.\n{MODEL_DOWN_HINT}")
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
        str | None, typer.Option(help=f"task spec (default: the one in the run's {CONFIG})")
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


NavigationDeadline = Annotated[float, typer.Option(help=SERVE_HELP["navigation_timeout"])]
MaxWorkerSessions = Annotated[
    int | None, typer.Option(help=SERVE_HELP["max_worker_sessions"], show_default=False)
]
MaxConnections = Annotated[int, typer.Option(help=SERVE_HELP["max_connections_per_client"])]


@app.command()
def serve(
    host: Annotated[str, typer.Option(help=SERVE_HELP["host"])] = "127.0.0.1",
    port: Annotated[int, typer.Option(help=SERVE_HELP["port"])] = 8700,
    workers: Annotated[int, typer.Option(help=SERVE_HELP["workers"])] = 0,
    max_sessions: Annotated[int, typer.Option(help=SERVE_HELP["max_sessions"])] = 64,
    token: Annotated[str | None, typer.Option(help=SERVE_HELP["token"])] = None,
    ray: Annotated[str | None, typer.Option(help=SERVE_HELP["ray"])] = None,
    tasks: Annotated[str, typer.Option(help=SERVE_HELP["tasks"])] = "builtin",
    idle_ttl: Annotated[float, typer.Option(help=SERVE_HELP["idle_ttl"])] = 300.0,
    action_timeout: Annotated[float, typer.Option(help=SERVE_HELP["action_timeout"])] = 10.0,
    navigation_timeout: NavigationDeadline = 15.0,
    log_level: Annotated[str, typer.Option(help=SERVE_HELP["log_level"])] = "warning",
    archive: Annotated[Path | None, typer.Option(help=RUN_HELP["archive"])] = None,
    allow_host: Annotated[list[str] | None, typer.Option(help=RUN_HELP["allow_host"])] = None,
    deny_host: Annotated[list[str] | None, typer.Option(help=RUN_HELP["deny_host"])] = None,
    network_policy: Annotated[str, typer.Option(help=RUN_HELP["network_policy"])] = "on",
    spare_browser: Annotated[bool, typer.Option(help=SERVE_HELP["spare_browser"])] = False,
    warm_preload: Annotated[bool, typer.Option(help=SERVE_HELP["warm_preload"])] = True,
    max_download_mb: Annotated[float, typer.Option(help=SERVE_HELP["max_download_mb"])] = 50.0,
    max_downloads: Annotated[int, typer.Option(help=SERVE_HELP["max_downloads"])] = 20,
    max_worker_sessions: MaxWorkerSessions = None,
    wiki: Annotated[Path | None, typer.Option(help=SERVE_HELP["wiki"])] = None,
    openenv: Annotated[bool, typer.Option("--openenv", help=SERVE_HELP["openenv"])] = False,
    read_timeout: Annotated[float, typer.Option(help=SERVE_HELP["read_timeout"])] = 10.0,
    max_connections_per_client: MaxConnections = 256,
) -> None:
    """Serve browser sessions over HTTP (OpenAPI at /openapi.json, metrics at /metrics)."""
    from webdojo.server.serve import ServeOptions
    from webdojo.server.serve import serve as run_server

    try:
        options = ServeOptions(
            host=host,
            port=port,
            workers=workers,
            max_sessions=max_sessions,
            token=token,
            ray_address=ray,
            tasks=tasks,
            idle_ttl_s=idle_ttl,
            action_timeout_s=action_timeout,
            navigation_timeout_s=navigation_timeout,
            log_level=log_level,
            archive=_checked_archive(archive),
            network=_network(allow_host, deny_host, network_policy),
            spare_browser=spare_browser,
            warm_preload=warm_preload,
            max_download_mb=max_download_mb,
            max_downloads=max_downloads,
            max_worker_sessions=max_worker_sessions,
            wiki=None if wiki is None else str(wiki),
            openenv=openenv,
            read_timeout_s=read_timeout,
            max_connections_per_client=max_connections_per_client,
        )
        run_server(options)
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


register_viewer_commands(app)  # view, report
register_bench(bench_app)  # bench env, rollout, tasks, cache
register_bench_miniwob(bench_app)  # bench miniwob
register_bench_soak(bench_app)  # bench soak
