"""``webdojo judge RUN_DIR --judge SPEC``: a thin shell over ``webdojo.judges.runner``.

``judge`` is a group whose default command judges a run, so that ``webdojo judge RUN_DIR`` and
``webdojo judge calibrate`` both work (``webdojo judge run RUN_DIR`` is the same as the first).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from typer.core import TyperGroup

from webdojo.cli.exits import model_command_exits
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import BlockReports, JudgeReport, judge_run
from webdojo.judges.spec import judge_names
from webdojo.models import ModelConfig
from webdojo.models.usage import Price
from webdojo.store.verdicts import LABELS, Verdict
from webdojo.tasks.blocklist import parse_duration

console = Console(soft_wrap=True)  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)


class _DefaultRun(TyperGroup):
    """Arguments that name no subcommand go to ``run``: ``webdojo judge RUN_DIR ...``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # a click Context
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


judge_app = typer.Typer(
    cls=_DefaultRun,
    no_args_is_help=True,
    help="Judge stored runs (webdojo judge RUN_DIR --judge SPEC) and calibrate judges.",
)

SPEC_HELP = (
    f"the judge: {', '.join(judge_names())}; NAME@MODEL; consensus:J1,J2,J3 (majority) or "
    "unanimous:J1,J2,..."
)


@judge_app.command("run")
def run_command(
    run_dir: Annotated[Path, typer.Argument(help="a run directory written by webdojo run")],
    judge: Annotated[str, typer.Option("--judge", help=SPEC_HELP)],
    tasks: Annotated[str | None, typer.Option(help="task spec (default: the run's own)")] = None,
    model_base_url: Annotated[
        str | None, typer.Option(help="judge model endpoint (else $WEBDOJO_MODEL_BASE_URL)")
    ] = None,
    model: Annotated[str | None, typer.Option(help="judge model (else $WEBDOJO_MODEL)")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="episodes judged at once")] = 8,
    all_facts: Annotated[
        bool, typer.Option(help="rubric: check every fact, not only up to the first failure")
    ] = False,
    max_images: Annotated[int, typer.Option(min=1, help="images per model request")] = 8,
    attempts: Annotated[int, typer.Option(min=1, help="replies asked when one is unreadable")] = 3,
    f1_threshold: Annotated[
        float, typer.Option(min=0.01, max=1.0, help="f1: the token F1 that counts as success")
    ] = 0.5,
    price_in: Annotated[float | None, typer.Option(help="price per 1M prompt tokens")] = None,
    price_out: Annotated[float | None, typer.Option(help="price per 1M completion tokens")] = None,
    force: Annotated[bool, typer.Option(help="judge again what was judged before")] = False,
    blocklist: Annotated[
        Path | None, typer.Option(help="report websites of blocked verdicts to this blocklist")
    ] = None,
    block_for: Annotated[str, typer.Option(help="how long a report blocks: 12h, 7d")] = "7d",
    as_json: Annotated[
        bool, typer.Option("--json", help="print the summary as JSON as the last line")
    ] = False,
) -> None:
    """Judge every episode of RUN_DIR; verdicts go to RUN_DIR/verdicts/ (resumable)."""
    options = JudgeOptions(
        model=ModelConfig.from_env(base_url=model_base_url, model=model),
        price=Price(price_in, price_out),
        all_facts=all_facts,
        max_images=max_images,
        attempts=attempts,
        f1_threshold=f1_threshold,
    )
    with model_command_exits(errors):
        block = None if blocklist is None else BlockReports(blocklist, parse_duration(block_for))
        report = asyncio.run(
            _judge_with_progress(
                run_dir,
                judge,
                options,
                tasks=tasks,
                force=force,
                concurrency=concurrency,
                block=block,
            )
        )
    console.print(report_table(report))
    if as_json:
        print(json.dumps(report.to_json()))


async def _judge_with_progress(
    run_dir: Path, spec: str, options: JudgeOptions, **run_kw: Any
) -> JudgeReport:
    with Progress(
        TextColumn(f"judging ({escape(spec)})"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[labels]}"),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
    ) as progress:
        bar = progress.add_task("judge", total=None, labels="")
        seen: dict[str, int] = {}

        def on_verdict(verdict: Verdict) -> None:
            seen[verdict.label] = seen.get(verdict.label, 0) + 1
            shown = " ".join(f"{k}={v}" for k, v in sorted(seen.items()))
            progress.update(bar, advance=1, labels=shown)

        return await judge_run(
            run_dir,
            spec,
            options,
            **run_kw,
            on_start=lambda n: progress.update(bar, total=n),
            on_verdict=on_verdict,
        )


def report_table(report: JudgeReport) -> Table:
    """Label counts with rewards, then the model calls and what was judged before."""
    summary = report.to_json()
    table = Table(title=f"{report.judge} on {report.run}", title_justify="left")
    for name in ("label", "episodes", "reward"):
        table.add_column(name, justify="left" if name == "label" else "right")
    for label in LABELS:
        count = summary["labels"][label]
        reward = {"success": "1", "failure": "0"}.get(label, "none (discarded)")
        table.add_row(label, str(count), reward if count else "")
    table.caption = _caption(report, summary)
    return table


def _caption(report: JudgeReport, summary: dict[str, Any]) -> str:
    parts = [
        f"{summary['judged']} judged ({report.todo} now)",
        f"reward mean {summary['reward_mean']}",
        f"{summary['model_calls']} model calls, {summary['cached_calls']} cached, "
        f"{summary['tokens']:,} tokens" + (f", cost {summary['cost']}" if summary["cost"] else ""),
    ]
    if summary["unparseable"]:
        parts.append(f"{summary['unparseable']} unparseable judge replies")
    if summary["disagreements"]:
        parts.append(f"{summary['disagreements']} split votes")
    if "pass_at_k" in summary:
        parts.append("pass@k " + ", ".join(f"{k}: {v}" for k, v in summary["pass_at_k"].items()))
    if report.blocked_websites:
        parts.append(f"{len(report.blocked_websites)} websites sent to the blocklist")
    if report.invalid_records:
        parts.append(f"{len(report.invalid_records)} unreadable run lines skipped")
    return "; ".join(parts)


def _register_subcommands() -> None:
    from webdojo.cli.judge_calibrate import register

    register(judge_app)


_register_subcommands()
