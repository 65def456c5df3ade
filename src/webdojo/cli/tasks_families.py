"""``webdojo tasks families``: the task families, their sizes and an example instance each.

With ``--json`` the last stdout line is ``{"families": [{"name", "instances", "site",
"summary", "max_steps", "example"}]}``, ``example`` being instance 0's instruction. Run a
family with ``--tasks family:NAME[:N][@SEED]``; check its instances with ``webdojo sites check
family:NAME:N@SEED``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.tasks.families.registry import families

console = Console(soft_wrap=True)


def register(tasks_app: typer.Typer) -> None:
    tasks_app.command("families")(families_command)


def families_command(
    as_json: Annotated[bool, typer.Option("--json", help="print the list as JSON last")] = False,
) -> None:
    """List the task families: parameterized tasks on the built-in sites, instances by seed."""
    rows = [_row(f) for f in families().values()]
    if as_json:
        print(json.dumps({"families": rows}))
        return
    table = Table(title=escape(f"{len(rows)} task families (--tasks family:NAME[:N][@SEED])"))
    for column in ("name", "site", "instances", "steps", "example (seed 0)"):
        table.add_column(column, justify="right" if column in ("instances", "steps") else "left")
    for row in rows:
        table.add_row(
            row["name"],
            row["site"],
            f"{row['instances']:,}",
            str(row["max_steps"]),
            escape(row["example"]),
        )
    console.print(table)


def _row(family: Any) -> dict[str, Any]:
    return {
        "name": family.name,
        "instances": family.size,
        "site": family.site,
        "summary": family.summary,
        "max_steps": family.max_steps,
        "example": family.instance(0).instruction,
    }
