"""Run plots drawn with matplotlib, returned as SVG text to inline in HTML.

Figures are built with ``matplotlib.figure.Figure`` (no pyplot, no global state, safe in a
server's threads). Text stays text in the SVG (``svg.fonttype: none``) so the page's font is
used and the file stays small; each plot gets its own id salt so that two plots inlined in
one page never share element ids.
"""

from __future__ import annotations

import io
import re
from typing import Any

STATUS_COLORS = {
    "success": "#16a34a",
    "failure": "#dc2626",
    "fault": "#d97706",
    "unfinished": "#6b7280",
}
_STYLE: Any = {  # rc parameters (typed Any: matplotlib types the keys as literals)
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#9ca3af",
    "axes.labelcolor": "#374151",
    "xtick.color": "#4b5563",
    "ytick.color": "#4b5563",
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#e5e7eb",
}


def _svg(fig: Any, salt: str) -> str:
    import matplotlib

    buf = io.StringIO()
    params: Any = {"svg.hashsalt": salt, **_STYLE}
    with matplotlib.rc_context(params):
        fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    text = text[text.index("<svg") :]  # drop the XML prolog and doctype: inlined in HTML
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)


def _figure(width: float = 5.6, height: float = 3.0) -> Any:
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        from matplotlib.figure import Figure

        return Figure(figsize=(width, height), layout="constrained")


def success_by_difficulty(rows: list[dict[str, Any]]) -> str:
    """Bars: success rate per difficulty (verified episodes), with k/n above each bar."""
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        fig = _figure()
        ax = fig.add_subplot()
        names = [r["name"] for r in rows]
        rates = [100 * (r["success_rate"] or 0) for r in rows]
        bars = ax.bar(names, rates, color="#2563eb", width=0.6)
        for bar, row in zip(bars, rows, strict=True):
            label = f"{row['successes']}/{row['episodes']}" if row["episodes"] else "no verdict"
            ax.annotate(
                label,
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                xytext=(0, 3),
                textcoords="offset points",
                fontsize=9,
                color="#374151",
            )
        ax.set_ylim(0, 110)
        ax.set_ylabel("success rate (%)")
        ax.set_xlabel("difficulty (number of rubric facts)")
        ax.set_title("Success by difficulty", loc="left", fontsize=11)
        if not rows:
            ax.text(0.5, 0.5, "no episodes", ha="center", transform=ax.transAxes)
        return _svg(fig, "success-by-difficulty")


def episode_lengths(rows: list[dict[str, Any]]) -> str:
    """Stacked histogram of episode lengths (steps), one colour per status."""
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        fig = _figure()
        ax = fig.add_subplot()
        longest = max([int(r["steps"] or 0) for r in rows] + [1])
        bins = [b - 0.5 for b in range(0, longest + 2)]
        groups = [
            (status, [int(r["steps"] or 0) for r in rows if r["status"] == status])
            for status in STATUS_COLORS
        ]
        groups = [(s, v) for s, v in groups if v]
        if groups:
            ax.hist(
                [v for _, v in groups],
                bins=bins,
                stacked=True,
                rwidth=0.85,
                color=[STATUS_COLORS[s] for s, _ in groups],
                label=[s for s, _ in groups],
            )
            ax.legend(frameon=False, fontsize=9)
        else:
            ax.text(0.5, 0.5, "no episodes", ha="center", transform=ax.transAxes)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.set_xlabel("steps per episode")
        ax.set_ylabel("episodes")
        ax.set_title("Episode lengths", loc="left", fontsize=11)
        return _svg(fig, "episode-lengths")


PLOTS = {"success_by_difficulty": success_by_difficulty, "episode_lengths": episode_lengths}


def render_plot(name: str, overview: dict[str, Any]) -> str:
    """One of ``PLOTS`` for an overview (``views.overview``)."""
    if name == "success_by_difficulty":
        return success_by_difficulty(overview["by_difficulty"])
    return episode_lengths(overview["episodes"])
