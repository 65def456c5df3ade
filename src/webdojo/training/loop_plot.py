"""``DIR/loop.png``: what a person looks at after ``webdojo train loop``.

Left: the training loss of every update, iteration after iteration (read back from each
iteration's ``metrics.jsonl``). Right: greedy success and the share of replies that parsed,
before and after, on the training and the held-out tasks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BEFORE, AFTER, LINE = "#93c5fd", "#2563eb", "#2563eb"


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

    fig = Figure(figsize=(10, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2)
    start = 0
    for number, path in enumerate(metrics, 1):
        ys = losses(path) if path.is_file() else []
        left.plot(range(start + 1, start + len(ys) + 1), ys, color=LINE, linewidth=1.2)
        if start:
            left.axvline(start + 0.5, color="#d1d5db", linewidth=0.8)
        left.annotate(f"iter {number}", (start + 1, max(ys, default=0)), fontsize=8)
        start += len(ys)
    left.set(xlabel="update", ylabel="training loss", title="loss")
    _bars(right, report)
    fig.savefig(out, dpi=110)
    return out


def _bars(ax: Any, report: dict[str, Any]) -> None:
    groups = [("success", "before", "after"), ("parsed", "valid_before", "valid_after")]
    labels, positions = [], []
    for g, (name, before, after) in enumerate(groups):
        for s, split in enumerate(("train", "held_out")):
            x = g * 2.6 + s * 1.1
            for offset, key, color in ((-0.2, before, BEFORE), (0.2, after, AFTER)):
                value = report.get(key, {}).get(split)
                ax.bar(x + offset, value or 0.0, width=0.4, color=color)
            labels.append(f"{name}\n{split}")
            positions.append(x)
    ax.set_xticks(positions, labels, fontsize=8)
    ax.set(ylim=(0, 1), ylabel="share (greedy)", title="before (light) and after (dark)")
