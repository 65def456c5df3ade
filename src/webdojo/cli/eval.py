"""``webdojo eval``: score a policy on a suite with confidence intervals; ``eval compare``:
a paired comparison of two evals. Thin shells over ``webdojo.eval``.

Exit codes: 0 done; 2 bad input (an unknown suite, a bad flag or file); 3 the model endpoint
is not answering (checked before the first episode) or stopped answering midway (the same
command resumes); 4 the eval is invalid (too many faulted episodes: see ``--max-faults``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.cli.exits import emit_json, fail
from webdojo.errors import ModelError, WebdojoError

if TYPE_CHECKING:
    from webdojo.eval.suites import LoadedSuite

INVALID_EXIT = 4
MODEL_EXIT = 3

console = Console()
errors = Console(stderr=True, soft_wrap=True)
eval_app = typer.Typer(
    invoke_without_command=True,
    help="Score a policy on a fixed suite, with confidence intervals; compare two evals.",
)

HELP = {
    "suite": "a shipped suite (core, builtin: see --list-suites) or a suite file (YAML, or a "
    "JSON/JSONL task file)",
    "policy": "scripted | random | openai (default: openai if a model endpoint is configured, "
    "else scripted)",
    "repeats": "episodes per task (default: the suite's); K > 1 gives pass@k",
    "seed": "run seed (default: the suite's); every episode's seed derives from it",
    "out": "eval directory (default runs/eval-<suite>-<time>); an existing one is resumed",
    "retries": "passes over faulted episodes after the first (faults are never scored)",
    "max_faults": "above this share of faulted episodes the eval is invalid (exit 4)",
    "results": "leaderboard CSV to add this eval's row to (default: results.csv beside --out)",
    "list_suites": "list the shipped suites and exit",
    "show_suite": "show one suite's sets, tasks and hash, and exit",
    "allow_host": "let the browser reach this host glob or origin (http://127.0.0.1:9000: a "
    "server of yours that a suite's tasks start at; repeatable)",
    "deny_host": "never let the browser reach this host glob (repeatable; wins)",
    "network_policy": "on: block private addresses and local schemes (default); off: trusted "
    "sites only",
    "price_in": "USD per 1M prompt tokens (for the cost)",
    "price_out": "USD per 1M completion tokens (for the cost)",
}


@eval_app.callback()
def eval_command(
    ctx: typer.Context,
    suite: Annotated[str | None, typer.Option(help=HELP["suite"])] = None,
    policy: Annotated[str | None, typer.Option(help=HELP["policy"])] = None,
    model_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (else $WEBDOJO_MODEL_BASE_URL)")
    ] = None,
    model: Annotated[str | None, typer.Option(help="model name (else $WEBDOJO_MODEL)")] = None,
    template: Annotated[
        str | None,
        typer.Option(
            help="prompt template: qwen, webgym_memory, browseragent, funcall, chat, compact; "
            "options as NAME:FIELD=VALUE,..."
        ),
    ] = None,
    repeats: Annotated[int | None, typer.Option(min=1, help=HELP["repeats"])] = None,
    seed: Annotated[int | None, typer.Option(help=HELP["seed"])] = None,
    out: Annotated[Path | None, typer.Option(help=HELP["out"])] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="episodes in flight")] = 4,
    retries: Annotated[int, typer.Option(min=0, help=HELP["retries"])] = 2,
    max_faults: Annotated[float, typer.Option(min=0.0, max=1.0, help=HELP["max_faults"])] = 0.05,
    results: Annotated[Path | None, typer.Option(help=HELP["results"])] = None,
    server: Annotated[
        str | None, typer.Option(help="run the browsers on a `webdojo serve` server at this URL")
    ] = None,
    token: Annotated[
        str | None, typer.Option(help="that server's bearer token", envvar="WEBDOJO_SERVER_TOKEN")
    ] = None,
    allow_host: Annotated[list[str] | None, typer.Option(help=HELP["allow_host"])] = None,
    deny_host: Annotated[list[str] | None, typer.Option(help=HELP["deny_host"])] = None,
    network_policy: Annotated[str, typer.Option(help=HELP["network_policy"])] = "on",
    price_in: Annotated[float | None, typer.Option(help=HELP["price_in"])] = None,
    price_out: Annotated[float | None, typer.Option(help=HELP["price_out"])] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the scores as JSON as the last stdout line")
    ] = False,
    list_suites: Annotated[bool, typer.Option(help=HELP["list_suites"])] = False,
    show_suite: Annotated[str | None, typer.Option(help=HELP["show_suite"])] = None,
) -> None:
    """Roll a policy out over a suite (resumable), verify or judge every episode, and print
    the success rate with a 95% confidence interval, pass@k, faults and the parse rate.

    Exit codes: 0 done; 2 bad input; 3 the model endpoint is not answering (the same command
    resumes); 4 the eval is invalid (faulted share above --max-faults)."""
    if ctx.invoked_subcommand is not None:
        return
    if list_suites or show_suite:
        with _eval_exits():
            _describe_suites(show_suite, as_json)
        return
    from webdojo.cli.eval_job import EvalArgs, run_eval_command

    with _eval_exits():
        result = run_eval_command(EvalArgs.from_flags(ctx.params), console)
    if as_json:
        emit_json(result)
    if result["invalid"]:
        raise typer.Exit(code=INVALID_EXIT)


@contextmanager
def _eval_exits() -> Iterator[None]:
    """The exit codes of the module docstring for errors: 3 when the model endpoint is not
    answering (the same command resumes), 2 for bad input."""
    try:
        yield
    except ModelError as exc:
        errors.print(
            f"[red]error[/red] {escape(str(exc))}.\nThe model endpoint is not answering: start "
            "it (or fix --model-base-url / --model), then run the same command again to resume "
            "(scored episodes are kept)."
        )
        raise typer.Exit(code=MODEL_EXIT) from exc
    except WebdojoError as exc:
        raise fail(exc) from exc


def _describe_suites(name: str | None, as_json: bool) -> None:
    from webdojo.eval.suites import load_suite, shipped_names

    chosen = [load_suite(name)] if name else [load_suite(n) for n in shipped_names()]
    if as_json:
        emit_json({"suites": [_suite_json(s) for s in chosen]})
        return
    if name is None:
        table = Table(title="Shipped suites", title_justify="left")
        for column in ("name", "version", "tasks", "hash", "description"):
            table.add_column(column)
        for s in chosen:
            table.add_row(
                s.name, str(s.suite.version), str(s.task_count), s.hash[:19], s.suite.description
            )
        console.print(table)
        return
    _print_suite(chosen[0])


def _suite_json(suite: LoadedSuite) -> dict[str, Any]:
    return {
        "name": suite.name,
        "version": suite.suite.version,
        "origin": suite.origin,
        "hash": suite.hash,
        "seed": suite.suite.seed,
        "repeats": suite.suite.repeats,
        "tasks": suite.task_count,
        "sets": [
            {
                **s.model_dump(),
                "tasks_in_set": sum(1 for v in suite.sources().values() if v == s.name),
            }
            for s in suite.suite.sets
        ],
        "description": suite.suite.description,
    }


def _print_suite(suite: LoadedSuite) -> None:
    console.print(
        f"[bold]{suite.name}[/bold] v{suite.suite.version} · {suite.task_count} tasks · "
        f"seed {suite.suite.seed} · repeats {suite.suite.repeats}\n{suite.hash}\n"
        f"{suite.suite.description}",
        soft_wrap=True,
    )
    table = Table(title="Sets", title_justify="left")
    for column in ("set", "tasks", "sites", "runs with"):
        table.add_column(column)
    sources = suite.sources()
    for entry in suite.suite.sets:
        ids = [t for t, s in sources.items() if s == entry.name]
        sites = sorted({t.split(".")[0] for t in ids})
        how = ", ".join(
            f"{k} {v}" for k, v in (("archive", entry.archive), ("wiki", entry.wiki)) if v
        )
        table.add_row(
            entry.name,
            str(len(ids)),
            ", ".join(sites),
            f"{how or 'live'}; judge {entry.judge or 'verifier'}",
        )
    console.print(table)


@eval_app.command("compare")
def compare_command(
    run_a: Annotated[Path, typer.Argument(help="an eval (or run) directory: A")],
    run_b: Annotated[Path, typer.Argument(help="an eval (or run) directory: B")],
    plot: Annotated[
        Path | None, typer.Option(help="the plot's path (default: compare-<A>-<B>.png beside B)")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print the comparison as JSON as the last stdout line")
    ] = False,
) -> None:
    """A paired comparison of B against A on the tasks both scored: the difference in
    success with a 95% CI, a p-value from a paired sign-flip permutation test, the tasks that
    flipped each way, a plot, and a warning for every manifest difference."""
    from webdojo.cli.eval_job import compare_evals

    try:
        result = compare_evals(run_a, run_b, plot, console)
    except WebdojoError as exc:
        raise fail(exc) from exc
    if as_json:
        emit_json(result)


def default_out(suite: str | None) -> Path:
    name = Path(suite).stem if suite else "core"
    return Path("runs") / f"eval-{name}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
