"""``webdojo bench miniwob``: a policy (random by default) over MiniWoB++ tasks, as a table."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console


def register(bench_app: typer.Typer) -> None:
    bench_app.command("miniwob")(bench_miniwob)


def bench_miniwob(
    episodes: Annotated[int, typer.Option(help="episodes per task (each its own seed)")] = 3,
    tasks: Annotated[
        str, typer.Option(help="miniwob, or miniwob:name1,name2 for some tasks")
    ] = "miniwob",
    policy: Annotated[str, typer.Option(help="random or scripted")] = "random",
    seed: Annotated[int, typer.Option(help="the run seed (episode seeds derive from it)")] = 0,
    concurrency: Annotated[int, typer.Option(help="episodes in flight")] = 4,
    markdown: Annotated[
        Path | None, typer.Option(help="also write the markdown table to this file")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
) -> None:
    """A policy's success on every MiniWoB++ task (the page's own reward), as a markdown
    table; tasks with a scripted solver are marked."""
    from webdojo.bench.miniwob_bench import markdown_table, run_miniwob_bench
    from webdojo.policies import make_policy
    from webdojo.policies.miniwob import SOLVERS

    console = Console()
    chosen = make_policy(policy, seed=seed)
    result = asyncio.run(
        run_miniwob_bench(
            chosen, tasks=tasks, episodes=episodes, seed=seed, concurrency=concurrency
        )
    )
    table = markdown_table(result, set(SOLVERS))
    console.print(table, markup=False, highlight=False, soft_wrap=True)
    console.print(f"bench took {result.wall_s:.1f} s", style="dim")
    if markdown is not None:
        markdown.write_text(table + "\n", encoding="utf-8")
    if as_json:
        print(json.dumps(result.to_json()))
