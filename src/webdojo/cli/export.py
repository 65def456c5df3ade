"""``webdojo export DIR --format openai|sharegpt|hf|verl --out OUT``: a thin shell over
``webdojo.training.exports``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from webdojo.errors import WebdojoError

if TYPE_CHECKING:  # the exports import pyarrow: only when the command runs
    from webdojo.training.exports import ExportSummary

console = Console(soft_wrap=True)  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)

HELP = {
    "selection": "a selection directory written by `webdojo select`",
    "format": "openai | sharegpt | hf | verl",
    "out": "the directory to write (must be empty or absent, unless --force)",
    "template": "prompt template (default: the one each run was made with)",
    "max_images": "screenshots shown as images per prompt (default: the template's)",
    "force": "replace a non-empty --out (only once the new export is complete)",
    "json": "print the summary as JSON as the last stdout line",
}


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)


def export_command(
    selection: Annotated[Path, typer.Argument(help=HELP["selection"])],
    fmt: Annotated[str, typer.Option("--format", help=HELP["format"])],
    out: Annotated[Path, typer.Option(help=HELP["out"])],
    template: Annotated[str | None, typer.Option(help=HELP["template"])] = None,
    max_images: Annotated[int | None, typer.Option(min=0, help=HELP["max_images"])] = None,
    force: Annotated[bool, typer.Option("--force", help=HELP["force"])] = False,
    as_json: Annotated[bool, typer.Option("--json", help=HELP["json"])] = False,
) -> None:
    """Write a selection's samples as training data: each prompt rebuilt exactly as the policy
    saw it (its template, memory, last screenshots, older steps as text), the reply to learn,
    and the sample's reward, advantage and weight. Exit 2 on bad input; nothing is written."""
    from webdojo.training.exports import export

    options: dict[str, Any] = {} if max_images is None else {"max_images": max_images}
    columns = (
        TextColumn(f"[bold]export {escape(fmt)}[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            bar = progress.add_task("samples", total=None)
            summary = export(
                selection,
                out,
                fmt,
                template=template,
                template_options=options,
                force=force,
                on_sample=lambda done, total: progress.update(bar, completed=done, total=total),
            )
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=2) from exc
    console.print(summary_table(summary))
    if as_json:
        print(json.dumps(summary.to_json()))


def summary_table(summary: ExportSummary) -> Table:
    table = Table(title=f"export: {summary.samples} samples", title_justify="left")
    for name in ("samples", "images", "image parts", "bytes", "format"):
        table.add_column(name, justify="left" if name == "format" else "right")
    table.add_row(
        str(summary.samples),
        str(summary.images),
        str(summary.image_refs),
        f"{summary.bytes:,}",
        summary.format,
    )
    table.caption = f"written to {summary.out}"
    return table
