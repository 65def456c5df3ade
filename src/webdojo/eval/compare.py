"""The paired comparison of two evals on the same suite: did B do better than A, or by chance?

Both runs attempted the same tasks, so the comparison is paired by task: each task's difficulty
cancels out and only the change on it counts, which is far more sensitive than comparing two
independent success rates. On the tasks both runs scored (at least one scored attempt in each):

* ``d_i = share_B(task i) - share_A(task i)``; the difference is the mean of the ``d_i``;
* its 95% interval is a paired bootstrap: the same tasks drawn for both runs, then each task's
  repeats resampled within each run (``bootstrap.paired_bootstrap``, seeded);
* its p-value is a two-sided paired sign-flip permutation test on the ``d_i``
  (``permutation.sign_flip_test``: exact up to 20 nonzero differences, else 200,000 seeded
  random sign flips);
* the tasks whose share rose (``flipped_up``) and fell (``flipped_down``).

Tasks scored in one run only (absent from the other, or every attempt there a fault) are left
out and named in ``warnings``. Faulted episodes are never attempts, as everywhere in eval.
``comparison_table`` and ``comparison_plot`` show the result in a terminal and as a PNG.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from rich.table import Table

from webdojo.eval.bootstrap import RESAMPLES, Interval, nested_bootstrap, paired_bootstrap, round4
from webdojo.eval.permutation import sign_flip_test
from webdojo.eval.stats import outcomes
from webdojo.store.records import EpisodeRecord

LISTED = 10  # task ids named in a warning before "and N more"


@dataclass(frozen=True)
class TaskPair:
    """One task both runs scored: its success share in each."""

    task_id: str
    share_a: float
    share_b: float
    attempts_a: int  # scored attempts in A
    attempts_b: int

    @property
    def difference(self) -> float:
        return self.share_b - self.share_a


@dataclass(frozen=True)
class Comparison:
    """B against A on their common tasks (see the module docstring)."""

    a: Interval  # A's success on the compared tasks (nested bootstrap)
    b: Interval  # B's success on the compared tasks
    difference: Interval  # mean of B - A over tasks (paired bootstrap)
    p_value: float | None  # None when no task is common
    test: str  # the test that gave ``p_value``
    pairs: list[TaskPair]  # sorted by task id
    only_a: list[str]  # tasks scored in A only
    only_b: list[str]  # tasks scored in B only
    warnings: list[str] = field(default_factory=list)  # the caller may add its own

    @property
    def tasks(self) -> int:
        return len(self.pairs)

    @property
    def flipped_up(self) -> list[str]:
        return [p.task_id for p in self.pairs if p.share_b > p.share_a]

    @property
    def flipped_down(self) -> list[str]:
        return [p.task_id for p in self.pairs if p.share_b < p.share_a]

    def to_json(self) -> dict[str, Any]:
        """JSON-safe, rounded to 4 decimals."""
        return {
            "difference": round4(self.difference.mean),
            "ci95": self.difference.ci95(),
            "ci_method": self.difference.method,
            "p_value": None if self.p_value is None else round(self.p_value, 6),
            "test": self.test,
            "tasks": self.tasks,
            "a": {"success": round4(self.a.mean), "ci95": self.a.ci95()},
            "b": {"success": round4(self.b.mean), "ci95": self.b.ci95()},
            "flipped_up": self.flipped_up,
            "flipped_down": self.flipped_down,
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "by_task": {
                p.task_id: {"a": round4(p.share_a), "b": round4(p.share_b)} for p in self.pairs
            },
            "warnings": list(self.warnings),
        }


def name_some(names: Sequence[str], limit: int = LISTED) -> str:
    """``a, b, c`` or ``a, b, ... and 12 more``."""
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


def _warnings(pairs: Sequence[TaskPair], only_a: list[str], only_b: list[str]) -> list[str]:
    out = []
    if not pairs:
        out.append("no task was scored in both runs: there is nothing to compare")
    for run, only, other in (("A", only_a, "B"), ("B", only_b, "A")):
        if only:
            out.append(
                f"{len(only)} task(s) scored in {run} only (absent from {other}, or only faults "
                f"there) are left out of the comparison: {name_some(only)}"
            )
    return out


def compare(
    a: Sequence[EpisodeRecord],
    b: Sequence[EpisodeRecord],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """B against A, paired by task (see the module docstring). ``a``, ``b``: the latest
    episode record of each key of each run."""
    ga, gb = outcomes(a), outcomes(b)
    common = sorted(ga.keys() & gb.keys())
    only_a, only_b = sorted(ga.keys() - gb.keys()), sorted(gb.keys() - ga.keys())
    pairs = [TaskPair(t, fmean(ga[t]), fmean(gb[t]), len(ga[t]), len(gb[t])) for t in common]
    groups_a, groups_b = [ga[t] for t in common], [gb[t] for t in common]
    if pairs:
        result = sign_flip_test([p.difference for p in pairs], seed=seed)
        p_value, test = result.p_value, result.test
    else:
        p_value, test = None, "paired sign-flip permutation test over tasks (no common task)"
    return Comparison(
        a=nested_bootstrap(groups_a, resamples=resamples, seed=seed),
        b=nested_bootstrap(groups_b, resamples=resamples, seed=seed),
        difference=paired_bootstrap(groups_a, groups_b, resamples=resamples, seed=seed),
        p_value=p_value,
        test=test,
        pairs=pairs,
        only_a=only_a,
        only_b=only_b,
        warnings=_warnings(pairs, only_a, only_b),
    )


# --- terminal table and plot -------------------------------------------------------------


def _with_ci(interval: Interval, signed: bool = False) -> str:
    if interval.mean is None or interval.lo is None or interval.hi is None:
        return "-"
    sign = "+" if signed else ""
    return f"{interval.mean:{sign}.1%} [{interval.lo:{sign}.1%}, {interval.hi:{sign}.1%}]"


def _p_text(p_value: float | None) -> str:
    return "-" if p_value is None else f"{p_value:.3g}"


def comparison_table(cmp: Comparison, labels: tuple[str, str] = ("A", "B")) -> Table:
    """The comparison for the terminal; its caption holds the warnings."""
    table = Table(
        title=f"{labels[1]} vs {labels[0]}",
        caption="\n".join(cmp.warnings) or None,
    )
    table.add_column("measure")
    table.add_column("value")
    table.add_row(f"A: {labels[0]}", _with_ci(cmp.a))
    table.add_row(f"B: {labels[1]}", _with_ci(cmp.b))
    table.add_row("difference B - A (95% CI)", _with_ci(cmp.difference, signed=True))
    table.add_row("p-value", f"{_p_text(cmp.p_value)} ({cmp.test})")
    table.add_row("tasks compared", str(cmp.tasks))
    table.add_row("rose in B", f"{len(cmp.flipped_up)}: {name_some(cmp.flipped_up)}".rstrip(": "))
    table.add_row(
        "fell in B", f"{len(cmp.flipped_down)}: {name_some(cmp.flipped_down)}".rstrip(": ")
    )
    table.add_row("scored in A only", str(len(cmp.only_a)))
    table.add_row("scored in B only", str(len(cmp.only_b)))
    return table


def _error_bar(ax: Any, x: float, interval: Interval, color: str, sign: str = "") -> None:
    if interval.mean is None or interval.lo is None or interval.hi is None:
        return
    below, above = interval.mean - interval.lo, interval.hi - interval.mean
    ax.errorbar(
        [x],
        [interval.mean],
        yerr=[[max(below, 0.0)], [max(above, 0.0)]],
        fmt="o",
        color=color,
        capsize=8,
        markersize=8,
        linewidth=2,
    )
    ax.annotate(
        f"{interval.mean:{sign}.1%}",
        (x, interval.mean),
        xytext=(12, -4),
        textcoords="offset points",
        fontsize=9,
    )


def _rates_panel(ax: Any, cmp: Comparison, labels: tuple[str, str]) -> None:
    _error_bar(ax, 0, cmp.a, "#6b7280")
    _error_bar(ax, 1, cmp.b, "#2563eb")
    ax.set_xticks([0, 1], [f"A: {labels[0]}", f"B: {labels[1]}"])
    ax.set(xlim=(-0.6, 1.6), ylim=(-0.06, 1.08), ylabel="success (mean over tasks)")
    ax.set_title(f"success on the {cmp.tasks} common tasks, 95% CI", fontsize=10)


def _difference_panel(ax: Any, cmp: Comparison) -> None:
    ax.axhline(0, color="#9ca3af", linewidth=1, linestyle="--")
    _error_bar(ax, 0, cmp.difference, "#dc2626", sign="+")
    ax.set_xticks([0], ["B - A"])
    ax.set(xlim=(-1, 1), ylim=(-1.1, 1.1), ylabel="difference in success (paired)")
    ax.set_title("difference, 95% CI", fontsize=10)


def _tasks_panel(ax: Any, cmp: Comparison, labels: tuple[str, str]) -> None:
    counts = Counter((p.share_a, p.share_b) for p in cmp.pairs)
    ax.plot([0, 1], [0, 1], color="#d1d5db", linewidth=1)
    for (x, y), n in sorted(counts.items()):
        color = "#16a34a" if y > x else "#dc2626" if y < x else "#6b7280"
        ax.scatter([x], [y], s=30 + 270 * n / max(counts.values()), color=color, alpha=0.6)
        if n > 1:
            ax.annotate(str(n), (x, y), ha="center", va="center", fontsize=8)
    ax.set(xlim=(-0.08, 1.08), ylim=(-0.08, 1.08))
    ax.set(xlabel=f"task share, A: {labels[0]}", ylabel=f"task share, B: {labels[1]}")
    up, down = len(cmp.flipped_up), len(cmp.flipped_down)
    ax.set_title(f"per task: {up} rose (green), {down} fell (red)", fontsize=10)


def comparison_plot(cmp: Comparison, path: Path, labels: tuple[str, str]) -> Path:
    """A PNG at ``path``: both success rates with their intervals, the difference with its
    interval, and each task's share in A against B. Returns ``path``."""
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    fig = Figure(figsize=(13, 4.4), layout="constrained")
    rates, difference, tasks = fig.subplots(1, 3, width_ratios=[1.2, 0.8, 1.2])
    _rates_panel(rates, cmp, labels)
    _difference_panel(difference, cmp)
    _tasks_panel(tasks, cmp, labels)
    fig.suptitle(
        f"{labels[1]} vs {labels[0]}: difference {_with_ci(cmp.difference, signed=True)}, "
        f"p = {_p_text(cmp.p_value)}\np: {cmp.test}\n95% CI: {cmp.difference.method}",
        fontsize=9,
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, format="png")
    return path
