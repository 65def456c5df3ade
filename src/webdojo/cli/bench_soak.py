"""``webdojo bench soak``: a rollout through the server and its workers under injected faults."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from webdojo.errors import ConfigError
from webdojo.server.pool.retirement import DEFAULT_MAX_WORKER_SESSIONS


def register(bench_app: typer.Typer) -> None:
    bench_app.command("soak")(bench_soak)


def bench_soak(
    steps: Annotated[int, typer.Option(help="episode steps to run")] = 10_000,
    sessions: Annotated[int, typer.Option(help="episodes in flight")] = 4,
    workers: Annotated[int, typer.Option(help="worker processes of the server")] = 2,
    faults: Annotated[
        str | None,
        typer.Option(
            help="fault rates per step over the defaults, e.g. tab_crash=0.01,server_kill=0 "
            "(kinds: tab_crash, browser_kill, worker_kill, server_kill, hung_navigation, "
            "slow_page, dialog, popup, download); none: no faults"
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="seed of the fault schedule and the policy")] = 0,
    spare_browser: Annotated[
        bool, typer.Option(help="serve with --spare-browser, as a long run should")
    ] = True,
    max_worker_sessions: Annotated[
        int,
        typer.Option(help="serve with --max-worker-sessions: replace workers after N (0: never)"),
    ] = DEFAULT_MAX_WORKER_SESSIONS,
    samples: Annotated[
        int, typer.Option(help="RSS and open-file samples over the run (0: one per 250 steps)")
    ] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Run episodes through `webdojo serve` while killing tabs, browsers, workers and the
    server and opening hanging, slow, dialog, popup and download pages; report lost and
    duplicated steps, recovery times, late answers, growth and leftovers."""
    from webdojo.bench.soak import SoakConfig, run_soak
    from webdojo.bench.soak_faults import parse_faults
    from webdojo.bench.soak_report import soak_table

    console = Console(stderr=as_json)
    try:
        config = SoakConfig(
            steps=steps,
            sessions=sessions,
            workers=workers,
            faults=parse_faults(faults),
            seed=seed,
            spare_browser=spare_browser,
            max_worker_sessions=max_worker_sessions,
            samples=samples,
        )
    except (ConfigError, ValueError) as exc:
        console.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=2) from exc
    result = asyncio.run(run_soak(config, log=lambda m: console.print(f"[dim]{escape(m)}[/dim]")))
    console.print(soak_table(result))
    for note in result.notes[:20]:
        console.print(f"[yellow]note[/yellow] {escape(note)}")
    if as_json:
        print(json.dumps(result.to_json()))
