"""Two runs side by side (e.g. two policies on the same tasks): per-task outcome differences.

Episodes are matched by key (``task#repeat``). ``change`` says what happened from run A to
run B: ``gained`` (B succeeded where A did not), ``lost`` (the reverse), ``same``, ``only_a``
or ``only_b`` (the key is in one run only).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from webdojo.viewer.runs import RunData
from webdojo.viewer.views import episode_rows, run_meta, run_summary

CHANGES = ("gained", "lost", "same", "only_a", "only_b")


def change_of(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    if a is None:
        return "only_b"
    if b is None:
        return "only_a"
    won_a, won_b = a["status"] == "success", b["status"] == "success"
    if won_b and not won_a:
        return "gained"
    if won_a and not won_b:
        return "lost"
    return "same"


def compare_runs(a: RunData, b: RunData) -> dict[str, Any]:
    rows_a = {r["key"]: r for r in episode_rows(a)}
    rows_b = {r["key"]: r for r in episode_rows(b)}
    keys = list(rows_a) + [k for k in rows_b if k not in rows_a]
    rows = []
    for key in keys:
        ra, rb = rows_a.get(key), rows_b.get(key)
        first = ra or rb or {}
        rows.append(
            {
                "key": key,
                "task_id": first.get("task_id"),
                "site": first.get("site"),
                "difficulty": first.get("difficulty"),
                "a": None if ra is None else _side(ra),
                "b": None if rb is None else _side(rb),
                "change": change_of(ra, rb),
            }
        )
    counts = Counter(r["change"] for r in rows)
    sum_a, sum_b = run_summary(a), run_summary(b)
    sites = sorted(set(sum_a.by_site) | set(sum_b.by_site))
    return {
        "a": run_meta(a),
        "b": run_meta(b),
        "counts": {c: counts.get(c, 0) for c in CHANGES},
        "success_rate": {
            "a": sum_a.overall.to_json()["success_rate"],
            "b": sum_b.overall.to_json()["success_rate"],
        },
        "by_site": [
            {
                "name": site,
                "a": sum_a.by_site[site].to_json() if site in sum_a.by_site else None,
                "b": sum_b.by_site[site].to_json() if site in sum_b.by_site else None,
            }
            for site in sites
        ],
        "rows": rows,
    }


def _side(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in ("status", "steps", "wall_s", "error_codes", "answer")}
