"""Rich tables for run summaries (the console view of ``store.summary``)."""

from __future__ import annotations

from rich.table import Table

from webdojo.store.summary import Bucket, RunSummary
from webdojo.tasks.schema import difficulty_level


def _rate(bucket: Bucket) -> str:
    rate = bucket.success_rate
    return "-" if rate is None else f"{rate:.0%}"


def _mean_steps(bucket: Bucket) -> str:
    return "-" if not bucket.steps else f"{sum(bucket.steps) / len(bucket.steps):.1f}"


def _bucket_table(title: str, first_col: str, rows: dict[str, Bucket], total: Bucket) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(first_col)
    for name in ("episodes", "success", "mean steps", "faults"):
        table.add_column(name, justify="right")
    for key, bucket in rows.items():
        table.add_row(
            key, str(bucket.episodes), _rate(bucket), _mean_steps(bucket), str(bucket.faults)
        )
    table.add_section()
    table.add_row(
        "all",
        str(total.episodes),
        _rate(total),
        _mean_steps(total),
        str(total.faults),
        style="bold",
    )
    return table


def summary_tables(summary: RunSummary, elapsed_s: float | None = None) -> list[Table]:
    by_site = _bucket_table(
        "Success by site", "site", dict(sorted(summary.by_site.items())), summary.overall
    )
    by_diff = _bucket_table(
        "Success by difficulty (number of rubric facts)",
        "difficulty",
        {
            f"{k} ({difficulty_level(k) if k else 'unknown'})": v
            for k, v in sorted(summary.by_difficulty.items())
        },
        summary.overall,
    )
    totals = Table(title="Run", title_justify="left", show_header=False)
    totals.add_column("what")
    totals.add_column("value", justify="right")
    share = summary.repetition_share
    totals.add_row(
        "steps with an identical next screenshot", "-" if share is None else f"{share:.1%}"
    )
    totals.add_row("episode wall time (sum)", f"{summary.wall_s:.1f} s")
    if elapsed_s is not None:
        totals.add_row("elapsed", f"{elapsed_s:.1f} s")
    parse = summary.parse
    if parse.rate is not None:
        style = "bold red" if parse.warning() else ""
        totals.add_row(
            "replies parsed into an action",
            f"{parse.parsed}/{parse.replies} ({parse.rate:.0%})",
            style=style,
        )
    for code, count in sorted(parse.errors.items()):
        totals.add_row(f"step errors: {code}", str(count))
    for code, count in sorted(summary.fault_codes.items()):
        totals.add_row(f"faults: {code}", str(count))
    totals.add_row("run directory", summary.out)
    warning = summary.parse.warning()
    if warning is not None:
        totals.caption = f"[bold red]warning:[/bold red] {warning}"
    return [by_site, by_diff, totals]
