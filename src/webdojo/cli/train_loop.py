"""``webdojo train loop``: a thin shell over ``webdojo.training.loop``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.errors import WebdojoError
from webdojo.training.loop_config import LoopConfig
from webdojo.training.loop_report import LoopReport, pct
from webdojo.training.selection import BcSettings

console = Console(soft_wrap=True)  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)


def loop_command(
    model: Annotated[str, typer.Option(help="tiny | tiny-vl | a model directory")] = "tiny",
    out: Annotated[Path, typer.Option(help="where every stage writes")] = Path("runs/loop"),
    template: Annotated[str, typer.Option(help="prompt template")] = "browseragent",
    tasks: Annotated[str, typer.Option(help="task set")] = "builtin",
    iterations: Annotated[int, typer.Option(min=1, help="roll out, judge, select, update")] = 2,
    train_tasks: Annotated[int, typer.Option(min=1, help="tasks trained on")] = 12,
    held_out: Annotated[int, typer.Option(min=0, help="tasks only evaluated")] = 6,
    max_steps: Annotated[int, typer.Option(min=2, help="step cap per episode")] = 6,
    train_steps: Annotated[int, typer.Option(min=1, help="updates per iteration")] = 120,
    batch_size: Annotated[int, typer.Option(min=1)] = 4,
    lr: Annotated[float, typer.Option(help="learning rate")] = 3e-3,
    power: Annotated[float, typer.Option(help="bc: recency bias power")] = 1.0,
    last_k: Annotated[int, typer.Option(min=1, help="bc: iterations in the buffer")] = 4,
    serve: Annotated[str, typer.Option(help="auto | vllm | transformers (in-process)")] = "auto",
    seed: Annotated[int, typer.Option()] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON last")] = False,
) -> None:
    """WebGym's synchronous loop: serve the model, roll out, judge, select (filtered BC),
    update, repeat; success before and after on training and held-out tasks."""
    config = LoopConfig(
        out=out,
        model=model,
        template=template,
        tasks=tasks,
        train_tasks=train_tasks,
        held_out=held_out,
        iterations=iterations,
        max_steps=max_steps,
        train_steps=train_steps,
        batch_size=batch_size,
        lr=lr,
        bc=BcSettings(power=power, last_k=last_k, seed=seed),
        serve=serve,
        seed=seed,
    )
    try:
        config.check()  # before torch's import: a wrong flag answers at once
        from webdojo.training.loop import run_loop  # torch: only when training

        report = run_loop(config, say=lambda line: console.print(escape(line)))
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] [{exc.code}] {escape(exc.message)}")
        raise typer.Exit(2) from exc
    console.print(_table(report))
    console.print(f"everything is under {out}; loop.json holds this report")
    if as_json:
        print(json.dumps(report.to_json()))


def _table(report: LoopReport) -> Table:
    table = Table(title="greedy decoding, before and after training")
    table.add_column("tasks")
    for column in ("success before", "success after", "parsed before", "parsed after"):
        table.add_column(column, justify="right")
    for split in ("train", "held_out"):
        rates = (report.before, report.after, report.valid_before, report.valid_after)
        table.add_row(split, *(pct(r.get(split)) for r in rates))
    return table
