"""Rich tables for ``webdojo judge calibrate``, drawn from its JSON summary (one source of truth
for what is printed and what ``--json`` says)."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from webdojo.store.verdicts import LABELS

SHORT = {"website_failure": "website failure", "infra_error": "infra error"}


def calibration_tables(summary: dict[str, Any]) -> list[Table]:
    """Metrics per source and overall, the confusion matrix, and the prompt comparison."""
    tables = [metrics_table(summary), confusion_table(summary)]
    if "rubric_vs_task" in summary:
        tables.append(prompts_table(summary["rubric_vs_task"]))
    return tables


def metrics_table(summary: dict[str, Any]) -> Table:
    table = Table(
        title=f"judge {escape(summary['judge'])} against ground truth", title_justify="left"
    )
    table.add_column("source")
    for name in ("n", "accuracy", "precision", "recall", "FP", "FN", "errors"):
        table.add_column(name, justify="right")
    for source, figures in summary["by_source"].items():
        table.add_row(escape(source), *_figures(figures))
    table.add_row("[bold]overall[/bold]", *_figures(summary), end_section=True)
    left = {k: v for k, v in summary["left_out"].items() if v}
    table.caption = (
        "FP/FN: false positives/negatives (success is positive); errors: the judge could not judge"
    )
    if left:
        table.caption += "; left out: " + ", ".join(
            f"{v} {k.replace('_', ' ')}" for k, v in left.items()
        )
    return table


def confusion_table(summary: dict[str, Any]) -> Table:
    """Rows: the true label; columns: the judge's label (labels nobody gave are left out)."""
    confusion = summary["confusion"]
    used = [
        label
        for label in LABELS
        if sum(confusion[label].values()) or sum(row[label] for row in confusion.values())
    ]
    table = Table(title="confusion (rows: truth, columns: judge)", title_justify="left")
    table.add_column("truth \\ judge")
    for label in used:
        table.add_column(SHORT.get(label, label), justify="right")
    for truth in used:
        cells = []
        for judged in used:
            count = confusion[truth][judged]
            cells.append(f"[bold]{count}[/bold]" if truth == judged else str(count))
        table.add_row(SHORT.get(truth, truth), *cells)
    return table


def prompts_table(comparison: dict[str, Any]) -> Table:
    """WebGym's Figure 5: the rubric judge with the rubric vs with the task alone."""
    table = Table(title="rubric vs task-only prompting (same trajectories)", title_justify="left")
    table.add_column("prompt")
    for name in ("n", "accuracy", "precision", "recall", "FP", "FN", "errors"):
        table.add_column(name, justify="right")
    for which in ("rubric", "task"):
        table.add_row(which, *_figures(comparison[which]))
    delta = comparison["delta"]
    table.add_row(
        "difference", "", *(_signed(delta[m]) for m in ("accuracy", "precision", "recall"))
    )
    table.caption = f"same label on {comparison['same_label']} of {comparison['n']}"
    return table


def _figures(figures: dict[str, Any]) -> list[str]:
    return [
        str(figures["n"]),
        _share(figures["accuracy"]),
        _share(figures["precision"]),
        _share(figures["recall"]),
        str(figures["false_positives"]),
        str(figures["false_negatives"]),
        str(figures["judge_errors"]),
    ]


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"
