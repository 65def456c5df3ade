"""``webdojo tasks rubric`` and ``webdojo tasks decompose``: thin shells over
``webdojo.taskgen`` (model endpoint, reply cache, progress bar, summary)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from webdojo.cli.exits import model_command_exits
from webdojo.errors import WebdojoError
from webdojo.models import ModelClient, ModelConfig
from webdojo.models.reply_cache import ReplyCache
from webdojo.models.usage import Price
from webdojo.taskgen.runner import GenConfig, GenReport, JobResult, Outcome

console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)

HELP = {
    "file": "a JSONL task file",
    "out": "the task file to write (may be FILE itself)",
    "cache": "directory of cached replies (default: OUT's name + .cache, next to it); a killed "
    "run resumes from it",
    "concurrency": "model requests in flight",
    "attempts": "replies per question: a reply that fails validation is shown its error and "
    "asked again, up to this many times",
    "force": "regenerate what the input already has",
    "model_base_url": "OpenAI-compatible endpoint (else $WEBDOJO_MODEL_BASE_URL)",
    "model": "model name (else $WEBDOJO_MODEL, else the endpoint's first model)",
    "price_in": "price per 1M prompt tokens, for the cost line",
    "price_out": "price per 1M completion tokens, for the cost line",
    "max_tokens": "cap on the tokens of one reply",
    "json": "print the summary as JSON as the last stdout line",
    "stop_after_errors": "stop after this many endpoint failures in a row (exit 3; the next run "
    "resumes)",
}

FileArg = Annotated[Path, typer.Argument(help=HELP["file"])]
OutOpt = Annotated[Path, typer.Option(help=HELP["out"])]
CacheOpt = Annotated[Path | None, typer.Option(help=HELP["cache"])]
ConcurrencyOpt = Annotated[int, typer.Option(min=1, help=HELP["concurrency"])]
AttemptsOpt = Annotated[int, typer.Option(min=1, help=HELP["attempts"])]
ForceOpt = Annotated[bool, typer.Option(help=HELP["force"])]
BaseUrlOpt = Annotated[str | None, typer.Option(help=HELP["model_base_url"])]
ModelOpt = Annotated[str | None, typer.Option(help=HELP["model"])]
PriceInOpt = Annotated[float | None, typer.Option(help=HELP["price_in"])]
PriceOutOpt = Annotated[float | None, typer.Option(help=HELP["price_out"])]
MaxTokensOpt = Annotated[int, typer.Option(min=16, help=HELP["max_tokens"])]
JsonOpt = Annotated[bool, typer.Option("--json", help=HELP["json"])]
StopOpt = Annotated[int, typer.Option(min=1, help=HELP["stop_after_errors"])]

Generate = Callable[..., Awaitable[GenReport]]


def register(tasks_app: typer.Typer) -> None:
    tasks_app.command("rubric")(rubric)
    tasks_app.command("decompose")(decompose)


def rubric(
    file: FileArg,
    out: OutOpt,
    cache: CacheOpt = None,
    concurrency: ConcurrencyOpt = 8,
    attempts: AttemptsOpt = 3,
    force: ForceOpt = False,
    model_base_url: BaseUrlOpt = None,
    model: ModelOpt = None,
    price_in: PriceInOpt = None,
    price_out: PriceOutOpt = None,
    max_tokens: MaxTokensOpt = 2048,
    stop_after_errors: StopOpt = 20,
    as_json: JsonOpt = False,
) -> None:
    """Write a rubric (WebGym's fact groups; difficulty = number of facts) for every task that
    has none, with the model. Exit 1 when some tasks got none (they are written unchanged and
    listed), 2 on bad input, 3 when the endpoint kept failing (run again to resume)."""
    from webdojo.taskgen.rubric import generate_rubrics

    price = Price(price_in, price_out)
    config = GenConfig(concurrency, attempts, force, price, max_tokens, stop_after_errors)
    model_config = _model_config(model_base_url, model, concurrency)
    report = _generate(generate_rubrics, "rubric", file, out, cache, model_config, config, {})
    _finish(report, out, as_json)


def decompose(
    file: FileArg,
    out: Annotated[
        Path | None, typer.Option(help=HELP["out"] + "; not needed with --plan-only")
    ] = None,
    plan_only: Annotated[
        bool, typer.Option(help="list the subsets and their difficulties; call no model")
    ] = False,
    children_only: Annotated[
        bool, typer.Option(help="write only the children, not the input tasks")
    ] = False,
    cache: CacheOpt = None,
    concurrency: ConcurrencyOpt = 8,
    attempts: AttemptsOpt = 3,
    force: ForceOpt = False,
    model_base_url: BaseUrlOpt = None,
    model: ModelOpt = None,
    price_in: PriceInOpt = None,
    price_out: PriceOutOpt = None,
    max_tokens: MaxTokensOpt = 512,
    stop_after_errors: StopOpt = 20,
    as_json: JsonOpt = False,
) -> None:
    """Decompose tasks into strictly easier ones (WebGym's Algorithm 1): every proper subset of a
    rubric's fact groups that holds a group of 3+ facts becomes a child task, its instruction
    written by the model. The output holds the input tasks, each parent followed by its children.
    Exit codes as for `webdojo tasks rubric`."""
    if plan_only:
        _plan(file, out, cache, model or ModelConfig.from_env(), force, as_json)
        return
    if out is None:
        raise _bad("--out is required (or use --plan-only)")
    from webdojo.taskgen.subtasks import decompose_tasks

    price = Price(price_in, price_out)
    config = GenConfig(concurrency, attempts, force, price, max_tokens, stop_after_errors)
    model_config = _model_config(model_base_url, model, concurrency)
    extra = {"children_only": children_only}
    report = _generate(decompose_tasks, "decompose", file, out, cache, model_config, config, extra)
    _finish(report, out, as_json)


# --- shared glue ----------------------------------------------------------------------------


def _bad(message: str) -> typer.Exit:
    errors.print(f"[red]error[/red] {escape(message)}")
    return typer.Exit(code=2)


def _model_config(base_url: str | None, model: str | None, concurrency: int) -> ModelConfig:
    overrides: dict[str, Any] = {"base_url": base_url, "model": model}
    config = ModelConfig.from_env(max_concurrency=concurrency, **overrides)
    if config is None:
        raise _bad("no model endpoint: pass --model-base-url or set WEBDOJO_MODEL_BASE_URL")
    return config


def _cache_file(cache: Path | None, out: Path, kind: str) -> Path:
    directory = cache or out.with_name(f"{out.stem}.cache")
    return directory / f"{kind}.jsonl"


def _generate(
    generate: Generate,
    kind: str,
    file: Path,
    out: Path,
    cache_dir: Path | None,
    model_config: ModelConfig,
    config: GenConfig,
    extra: dict[str, Any],
) -> GenReport:
    cache_path = _cache_file(cache_dir, out, kind)
    with model_command_exits(errors):
        return asyncio.run(_run(generate, kind, file, out, cache_path, model_config, config, extra))


async def _run(
    generate: Generate,
    kind: str,
    file: Path,
    out: Path,
    cache_path: Path,
    model_config: ModelConfig,
    config: GenConfig,
    extra: dict[str, Any],
) -> GenReport:
    with ReplyCache(cache_path) as cache, _progress(kind) as (on_start, on_result):
        if cache.unreadable:
            console.print(
                f"[yellow]note[/yellow] {cache_path}: {cache.unreadable} unreadable "
                "line(s) skipped (a run killed mid-write); those are asked again"
            )
        async with ModelClient(model_config) as client:
            return await generate(
                file, out, client, cache, config, on_start=on_start, on_result=on_result, **extra
            )


_COUNTS = "new {task.fields[new]}  cached {task.fields[cached]}  failed {task.fields[failed]}"


class _progress:
    """A rich progress bar over model questions: new / cached / failed as they come."""

    def __init__(self, kind: str) -> None:
        self.counts = {o: 0 for o in Outcome}
        self.progress = Progress(
            TextColumn(f"[bold]{kind}[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(_COUNTS),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
        )
        self.bar = self.progress.add_task(kind, total=None, new=0, cached=0, failed=0)

    def __enter__(self) -> tuple[Callable[[int], None], Callable[[JobResult], None]]:
        self.progress.start()
        return self.on_start, self.on_result

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def on_start(self, total: int) -> None:
        self.progress.update(self.bar, total=total)

    def on_result(self, result: JobResult) -> None:
        self.counts[result.outcome] += 1
        c = self.counts
        self.progress.update(
            self.bar,
            advance=1,
            new=c[Outcome.GENERATED],
            cached=c[Outcome.CACHED],
            failed=c[Outcome.FAILED],
        )


def _finish(report: GenReport, out: Path, as_json: bool) -> None:
    data = report.to_json()
    table = Table(title=f"tasks {report.command} -> {out}", show_header=False)
    for name, value in data.items():
        if name != "failures":
            table.add_row(name.replace("_", " "), "-" if value is None else str(value))
    console.print(table)
    if report.failed:
        shown = Table("task", "why it failed", title=f"{len(report.failed)} failed")
        for task_id, error in report.failed[:10]:
            shown.add_row(escape(task_id), escape(error))
        console.print(shown)
    if as_json:
        print(json.dumps({**data, "out": str(out)}))
    if report.failed:
        raise typer.Exit(code=1)


def _plan(
    file: Path,
    out: Path | None,
    cache_dir: Path | None,
    model: str | ModelConfig | None,
    force: bool,
    as_json: bool,
) -> None:
    """``--plan-only``: the children and their difficulties, and the calls it would take (minus
    cached replies, when the model's name is known without asking the endpoint)."""
    from webdojo.taskgen.subtasks import count_cached, plan_decomposition, plan_rows

    name = model.model if isinstance(model, ModelConfig) else model
    cached = None
    try:
        plan = plan_decomposition(file)
        if name and (cache_dir is not None or out is not None):
            with ReplyCache(_cache_file(cache_dir, out or Path("."), "decompose")) as cache:
                cached = count_cached(plan, name, cache, force)
    except WebdojoError as exc:
        raise _bad(str(exc)) from exc
    data = plan.to_json(force, cached)
    table = Table("parent", "groups (facts)", "children (difficulty)", title=f"plan for {file}")
    for row in plan_rows(plan, limit=30):
        table.add_row(*(escape(cell) for cell in row))
    console.print(table)
    shown = {k: ("?" if v is None else v) for k, v in data.items()}
    console.print(", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in shown.items()))
    if cached is None:
        console.print(
            "[dim]calls: up to `to generate` (give --model and --out or --cache to "
            "subtract cached replies)[/dim]"
        )
    if as_json:
        print(json.dumps(data))
