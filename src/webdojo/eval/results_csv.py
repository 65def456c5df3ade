"""``results.csv``: one row per eval, for a leaderboard.

By default the file sits next to the eval directories (``runs/results.csv`` for
``--out runs/eval-1``), so evals of several models line up in one table that a spreadsheet or
``pandas.read_csv`` reads as it is. A resumed or re-scored eval replaces its own row (rows are
keyed by the eval directory), so the file never holds two rows for one eval.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from webdojo.store.run_store import write_atomic

COLUMNS = (
    "out",
    "created_at",
    "suite",
    "suite_version",
    "suite_hash",
    "policy",
    "model",
    "template",
    "seed",
    "repeats",
    "episodes",
    "scored",
    "success",
    "ci95_lo",
    "ci95_hi",
    "pass_at_1",
    "pass_at_k",
    "faults",
    "invalid",
    "parse_rate",
    "mean_steps",
    "tokens",
    "cost",
    "wall_s",
    "webdojo_version",
    "git_hash",
)


def row_of(result: dict[str, Any], manifest: dict[str, Any]) -> dict[str, Any]:
    """A row from an eval's JSON (``runner.eval_json``) and its manifest."""
    lo, hi = result.get("ci95") or (None, None)
    passes = result.get("pass_at_k") or {}
    ks = sorted((k for k in passes if k != "1"), key=int)
    return {
        "out": result["out"],
        "created_at": manifest.get("created_at"),
        "suite": result["suite"],
        "suite_version": result["suite_version"],
        "suite_hash": result["suite_hash"],
        "policy": result["policy"],
        "model": result["model"],
        "template": manifest.get("template"),
        "seed": result["seed"],
        "repeats": result["repeats"],
        "episodes": result["episodes"],
        "scored": result["scored"],
        "success": result["success"],
        "ci95_lo": lo,
        "ci95_hi": hi,
        "pass_at_1": passes.get("1"),
        "pass_at_k": f"{ks[-1]}:{passes[ks[-1]]}" if ks else None,
        "faults": result["faults"],
        "invalid": result["invalid"],
        "parse_rate": result["parse_rate"],
        "mean_steps": result["mean_steps"],
        "tokens": (result.get("tokens") or {}).get("total"),
        "cost": result["cost"],
        "wall_s": result["wall_s"],
        "webdojo_version": manifest.get("webdojo_version"),
        "git_hash": manifest.get("git_hash"),
    }


def record_result(path: Path, row: dict[str, Any]) -> Path:
    """Add ``row`` to the CSV at ``path`` (created with a header), replacing the row of the
    same eval directory; written to a temporary file and renamed, so never half-written."""
    rows = [r for r in read_results(path) if r.get("out") != row["out"]]
    rows.append({k: "" if row.get(k) is None else row[k] for k in COLUMNS})
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, buffer.getvalue())
    return path


def read_results(path: Path) -> list[dict[str, str]]:
    """The rows of a results file (empty when there is none)."""
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
