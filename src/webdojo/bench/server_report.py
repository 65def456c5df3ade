"""What the server's latency benchmarks share (``latency_bench``, ``transport_bench``): the same
percentiles of the same samples, the same tables, and the same command line (``--steps N``,
``--json``)."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from webdojo.bench.percentiles import percentile


def percentiles_ms(values_s: list[float], qs: Iterable[int], digits: int) -> dict[str, float]:
    """``{"p50_ms": ..., "n": ...}`` for samples in seconds, rounded to ``digits``."""
    row: dict[str, float] = {
        f"p{q}_ms": round((percentile(values_s, q) or 0.0) * 1000, digits) for q in qs
    }
    row["n"] = len(values_s)
    return row


def table(
    name_width: int, columns: dict[str, int], rows: Iterable[tuple[str, list[Any]]]
) -> list[str]:
    """The lines of a fixed-width table: ``columns`` maps each title to its width; a row is
    a name (left-aligned) and one value per column (right-aligned)."""
    widths = list(columns.values())
    titles = [f"{title:>{width}}" for title, width in columns.items()]
    lines = ["  " + " ".join([f"{'':{name_width}}", *titles])]
    for name, values in rows:
        cells = [f"{v:>{w}}" for v, w in zip(values, widths, strict=True)]
        lines.append("  " + " ".join([f"{name:{name_width}}", *cells]))
    return lines


def bench_main(
    description: str,
    run: Callable[[int], Coroutine[Any, Any, dict[str, Any]]],
    render: Callable[[dict[str, Any]], str],
    steps: int,
) -> None:
    """``python -m ...``: run for ``--steps`` (default ``steps``), print the table, then the
    JSON with ``--json``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(run(args.steps))
    print(render(result))
    if args.json:
        print(json.dumps(result))
