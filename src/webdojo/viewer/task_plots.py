"""Task-set plots (matplotlib -> inline SVG, in the style of ``viewer.plots``): the website
frequency curve (WebGym Figure 3, left), difficulty with decomposed tasks stacked on the
originals (Figure 3, right), and horizontal bars for counts by name."""

from __future__ import annotations

from typing import Any

from webdojo.tasks.stats import FrequencyRun
from webdojo.viewer.plots import _STYLE, _figure, _svg

BLUE, LIGHT, GREY = "#2563eb", "#93c5fd", "#6b7280"


def _curve_points(runs: list[FrequencyRun]) -> tuple[list[int], list[int]]:
    """The step curve through each run's first and last rank: exact, and a few hundred points
    even for 100k websites."""
    xs: list[int] = []
    ys: list[int] = []
    for run in runs:
        xs += [run.first, run.last]
        ys += [run.tasks, run.tasks]
    return xs, ys


def website_frequency(runs: list[FrequencyRun], title: str = "Tasks per website") -> str:
    """Tasks per website against the website's rank (most tasks first), log scale."""
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        fig = _figure()
        ax = fig.add_subplot()
        if runs:
            xs, ys = _curve_points(runs)
            ax.fill_between(xs, ys, color=LIGHT, alpha=0.5, step=None, linewidth=0)
            ax.plot(xs, ys, color=BLUE, linewidth=1.5)
            ax.set_yscale("log")
            from matplotlib.ticker import FuncFormatter, NullFormatter

            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
            ax.yaxis.set_minor_formatter(NullFormatter())  # 1, 10, 100 only: not 4x10^0
            ax.set_xlim(1, max(xs[-1], 2))
            if xs[-1] > 100:  # else the head is a sliver at the left edge
                ax.set_xscale("log")
                ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        else:
            ax.text(0.5, 0.5, "no tasks", ha="center", transform=ax.transAxes)
        ax.set_xlabel(
            "website index (sorted, most tasks first)"
            + (", log scale" if runs and runs[-1].last > 100 else "")
        )
        ax.set_ylabel("tasks (log scale)")
        ax.set_title(title, loc="left", fontsize=11)
        return _svg(fig, "website-frequency")


def difficulty_stacked(difficulty: dict[int, tuple[int, int]]) -> str:
    """Tasks per difficulty: originals, with decomposed tasks stacked on top (0 = unknown)."""
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        fig = _figure()
        ax = fig.add_subplot()
        keys = sorted(difficulty)
        labels = ["?" if k == 0 else str(k) for k in keys]
        original = [difficulty[k][0] for k in keys]
        decomposed = [difficulty[k][1] for k in keys]
        ax.bar(labels, original, color=BLUE, width=0.7, label="original")
        ax.bar(labels, decomposed, bottom=original, color=LIGHT, width=0.7, label="decomposed")
        if keys:
            ax.legend(frameon=False, fontsize=9)
        else:
            ax.text(0.5, 0.5, "no tasks", ha="center", transform=ax.transAxes)
        ax.set_xlabel("difficulty (rubric facts; ? = unknown)")
        ax.set_ylabel("tasks")
        ax.set_title("Difficulty", loc="left", fontsize=11)
        return _svg(fig, "difficulty")


def count_bars(counts: list[tuple[str, int]], title: str, salt: str) -> str:
    """Horizontal bars, the first item on top."""
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        height = 1.2 + 0.24 * max(len(counts), 1)
        fig: Any = _figure(height=height)
        ax = fig.add_subplot()
        names = [n if len(n) <= 40 else n[:39] + "…" for n, _ in counts][::-1]
        values = [v for _, v in counts][::-1]
        ax.barh(names, values, color=BLUE, height=0.7)
        if not counts:
            ax.text(0.5, 0.5, "nothing to show", ha="center", transform=ax.transAxes)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("tasks")
        ax.set_title(title, loc="left", fontsize=11)
        return _svg(fig, salt)
