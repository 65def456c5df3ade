"""``webdojo select RUN_DIR... --rule bc|rft|grpo --out DIR``: a thin shell over
``webdojo.training.select_runs``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.errors import WebdojoError

if TYPE_CHECKING:
    from webdojo.training.samples import SelectionSummary

console = Console(soft_wrap=True)  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)

WHY = {
    "fault": "an env/infra fault ended it (never scored)",
    "website_failure": "the judge found the website broken",
    "blocked": "the website blocked the agent",
    "infra_error": "the judge could not judge it",
    "unjudged": "no verdict of this judge on this attempt",
    "unverified": "no verifier result (judge the run first)",
    "failure": "not a success (bc keeps successes only)",
    "older_than_buffer": "its run is older than the last --last-k",
    "uniform_group": "every episode of its task has the same reward",
    "not_chosen": "rft keeps one correct trajectory per task (the longest)",
    "incomplete_group": "its task has fewer than --group-size scored episodes",
    "beyond_group_size": "its task has more than --group-size episodes",
    "unparsed_step": "the policy's text did not parse into an action",
    "repeated_step": "the next screenshot is identical (WebGym's filter)",
    "not_sampled_step": "not drawn into the buffer (--samples)",
}


def register(app: typer.Typer) -> None:
    app.command("select")(select_command)


def select_command(
    runs: Annotated[list[Path], typer.Argument(help="run directories, oldest first")],
    rule: Annotated[str, typer.Option(help="bc (filtered BC) | rft | grpo")],
    out: Annotated[Path, typer.Option(help="the selection directory to write")],
    judge: Annotated[str | None, typer.Option(help="use this judge's rewards")] = None,
    power: Annotated[float, typer.Option(help="bc: recency bias power")] = 1.0,
    last_k: Annotated[int, typer.Option(min=1, help="bc: iterations in the buffer")] = 4,
    samples: Annotated[int | None, typer.Option(min=1, help="bc: steps to draw")] = None,
    group_size: Annotated[int | None, typer.Option(min=2, help="grpo: rollouts per task")] = None,
    sft: Annotated[Path | None, typer.Option(help="rft: a selection of SFT data to mix in")] = None,
    sft_share: Annotated[float, typer.Option(help="rft: share of --sft mixed in")] = 0.8,
    seed: Annotated[int, typer.Option(help="seed of every random draw")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON last")] = False,
) -> None:
    """Turn stored runs into training samples with WebGym's, BrowserAgent's or Weblica's rule."""
    from webdojo.training.select_runs import SelectSettings, select  # numpy: only when run
    from webdojo.training.selection import BcSettings

    settings = SelectSettings(
        rule=rule,
        judge=judge,
        bc=BcSettings(power, last_k, samples, seed),
        group_size=group_size,
        sft=sft,
        sft_share=sft_share,
        seed=seed,
    )
    try:
        summary = select(runs, out, settings)
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=2) from exc
    console.print(summary_table(summary, out))
    if as_json:
        print(json.dumps(summary.to_json(out)))


def summary_table(summary: SelectionSummary, out: Path) -> Table:
    table = Table(title=f"{summary.rule}: {summary.kept} samples kept", title_justify="left")
    for name in ("left out", "count", "unit", "why"):
        table.add_column(name, justify="right" if name == "count" else "left")
    for reason, count in summary.dropped.items():
        unit = "steps" if reason.endswith("_step") else "episodes"
        table.add_row(reason, str(count), unit, WHY.get(reason, ""))
    table.caption = (
        f"{summary.kept} steps from {summary.episodes} episodes; rewards from "
        f"{summary.reward_source}; written to {out}"
    )
    return table
