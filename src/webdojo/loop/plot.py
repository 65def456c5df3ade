"""``DIR/loop.png``: the learning curve of ``webdojo train loop``.

Left: greedy success per round on each evaluated set, with its 95% interval, and the random
policy's held-out level as a band. Right: the training loss of every update, round after
round (read back from each round's ``metrics.jsonl``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COLOURS = {"train": "#94a3b8", "heldout": "#2563eb", "heldout_ood": "#ea580c"}
LABELS = {"train": "training", "heldout": "held-out", "heldout_ood": "held-out (other kinds)"}


def losses(metrics: Path) -> list[float]:
    """The ``loss`` of each line of a trainer's ``metrics.jsonl`` (unreadable lines skipped)."""
    out = []
    for line in metrics.read_text(encoding="utf-8").splitlines():
        try:
            out.append(float(json.loads(line)["loss"]))
        except (ValueError, KeyError, TypeError):
            continue
    return out


def write_loop_plot(out: Path, report: dict[str, Any], metrics: list[Path]) -> Path:
    """Draw the plot into ``out`` (PNG) and return its path."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    _curve(left, report)
    _losses(right, metrics)
    fig.savefig(out, dpi=110)
    return out


def _curve(ax: Any, report: dict[str, Any]) -> None:
    rounds = report["rounds"]
    xs = [r["round"] for r in rounds]
    for name, colour in COLOURS.items():
        points = [
            (r["round"], r[name], r.get(f"{name}_ci95") or [None, None])
            for r in rounds
            if r.get(name) is not None
        ]
        if not points:
            continue
        x, y, ci = zip(*points, strict=True)
        low = [v - (c[0] if c[0] is not None else v) for v, c in zip(y, ci, strict=True)]
        high = [(c[1] if c[1] is not None else v) - v for v, c in zip(y, ci, strict=True)]
        ax.errorbar(x, y, yerr=[low, high], color=colour, marker="o", capsize=3, label=LABELS[name])
    lo, hi = report.get("random_heldout_ci95") or [None, None]
    if report.get("random_heldout") is not None and lo is not None and hi is not None:
        ax.axhspan(lo, hi, color="#fca5a5", alpha=0.35, label="random policy (held-out)")
    ax.set(
        xlabel="round (0: behaviour cloning)",
        ylabel="greedy success",
        ylim=(-0.02, 1.02),
        title="success per round, 95% intervals",
    )
    ax.set_xticks(xs)
    ax.legend(fontsize=7, loc="upper left")


def _losses(ax: Any, metrics: list[Path]) -> None:
    start = 0
    for number, path in enumerate(metrics):
        ys = losses(path) if path.is_file() else []
        ax.plot(range(start + 1, start + len(ys) + 1), ys, color="#2563eb", linewidth=1.2)
        if start:
            ax.axvline(start + 0.5, color="#d1d5db", linewidth=0.8)
        if ys:
            ax.annotate(f"round {number}", (start + 1, max(ys)), fontsize=8)
        start += len(ys)
    ax.set(xlabel="update", ylabel="training loss", title="loss per update")
