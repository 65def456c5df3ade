"""``webdojo tasks import``: public task sets (and the built-in sites) into one task file.

A thin shell over ``webdojo.tasks.sources.import_tasks``: it prints which format each source
was read as, a table of skipped records (with ``--skip-invalid``) and the counts per reason.
With ``--json`` the last stdout line is::

    {"tasks": 643, "skipped": 0, "format": "webvoyager", "out": "wv.jsonl",
     "reasons": {}, "sources": [{"source": ..., "format": ..., "tasks": ..., ...}]}

where ``format`` joins the formats of several sources with commas, in source order, each once
(``"webvoyager,flashrag"``). Exit 2 on bad input: an unknown format, an empty file, a bad record
(without ``--skip-invalid``), or nothing left to import.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from webdojo.errors import WebdojoError
from webdojo.tasks.sources import FORMATS, ImportReport, import_tasks

SHOWN_SKIPS = 1000  # skipped records listed in the terminal; all go to a side file past this

HELP = {
    "sources": "task-set files (.jsonl, .json, .csv, .parquet), or 'builtin'",
    "out": "the task file to write (JSONL, written atomically)",
    "format": f"read every SOURCE as this format: {', '.join(FORMATS)} (default: detect)",
    "skip_invalid": "skip bad records and list them, instead of stopping at the first",
    "json": "print a JSON summary as the last stdout line",
}


def register(tasks_app: typer.Typer) -> None:
    tasks_app.command("import")(import_command)


def import_command(
    sources: Annotated[
        list[str], typer.Argument(help=HELP["sources"], metavar="SOURCE...", show_default=False)
    ],
    out: Annotated[Path, typer.Option("--out", help=HELP["out"], show_default=False)],
    fmt: Annotated[str | None, typer.Option("--format", help=HELP["format"])] = None,
    skip_invalid: Annotated[
        bool, typer.Option("--skip-invalid", help=HELP["skip_invalid"])
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help=HELP["json"])] = False,
) -> None:
    """Import public task sets (WebVoyager, Online-Mind2Web, Mind2Web-Live, DeepShop,
    Mind2Web-2, WebGym, InSTA, FlashRAG / verl QA) or the built-in tasks into one task file.
    The format of each source is detected from its extension and first record."""
    console = Console(soft_wrap=True)  # a source line stays one line, whatever its path
    errors = Console(stderr=True, soft_wrap=True)
    try:
        with Progress(
            SpinnerColumn(),
            TextColumn("importing: {task.completed:,} records read"),
            TimeElapsedColumn(),
            console=errors,
            transient=True,
        ) as progress:
            bar = progress.add_task("import", total=None)
            report = import_tasks(
                sources,
                out,
                fmt=fmt,
                skip_invalid=skip_invalid,
                progress=lambda n: progress.update(bar, completed=n),
            )
    except WebdojoError as exc:
        hint = (
            ""
            if skip_invalid or "reason" not in exc.details
            else ("\n(--skip-invalid imports the valid records and lists the bad ones)")
        )
        errors.print(f"[red]error[/red] {escape(str(exc))}{hint}")
        raise typer.Exit(code=2) from exc
    render(report, console)
    if as_json:
        print(json.dumps(report.to_json()))


def render(report: ImportReport, console: Console) -> None:
    for source in report.sources:
        console.print(
            f"{escape(source.source)}: format [bold]{source.format}[/bold] "
            f"({escape(source.why)}); {source.tasks:,} tasks, {source.skipped:,} skipped"
        )
        for note in source.notes:
            console.print(f"  [yellow]note[/yellow] {escape(note)}")
    if report.skipped:
        console.print(skipped_table(report))
        console.print(reasons_table(report))
        if len(report.skipped) > SHOWN_SKIPS:
            side = write_skipped(report)
            console.print(
                f"{SHOWN_SKIPS:,} of {len(report.skipped):,} skipped records shown; "
                f"all are listed in {escape(str(side))}"
            )
    console.print(f"wrote {report.tasks:,} tasks to {escape(report.out)}")


def skipped_table(report: ImportReport) -> Table:
    table = Table(title="Skipped records")
    table.add_column("where")
    table.add_column("reason")
    table.add_column("detail", overflow="fold")
    for skip in report.skipped[:SHOWN_SKIPS]:
        table.add_row(escape(skip.where), skip.reason, escape(skip.detail))
    return table


def reasons_table(report: ImportReport) -> Table:
    table = Table(title="Skipped per reason")
    table.add_column("reason")
    table.add_column("records", justify="right")
    for reason, count in report.reasons().items():
        table.add_row(reason, f"{count:,}")
    table.add_row("[bold]total[/bold]", f"[bold]{len(report.skipped):,}[/bold]")
    return table


def write_skipped(report: ImportReport) -> Path:
    """Every skipped record, one JSON object per line, next to the output file."""
    side = Path(report.out).with_suffix(".skipped.jsonl")
    with side.open("w", encoding="utf-8") as handle:
        for skip in report.skipped:
            handle.write(json.dumps(skip.to_json(), ensure_ascii=False) + "\n")
    return side
