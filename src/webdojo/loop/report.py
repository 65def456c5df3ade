"""What ``webdojo train loop`` reports (``loop.json``, the ``--json`` line), without the loop's
heavy imports: the command line reads it before torch is loaded.

    {"rounds": [{"round": 0, "rule": "bc", "train": 0.9, "train_ci95": [..], "heldout": 0.8,
                 "heldout_ci95": [lo, hi], "heldout_by_kind": {"miniwob.click-test":
                 {"success": 1.0, "ci95": [lo, hi], "n": 20}, ...}, "heldout_ood": ...,
                 "parsed": {...}, "kept": 120, "loss_first": 2.1, "loss_last": 0.3,
                 "rollout_success": null, "seconds": 61.2},
                ...],
     "random_heldout": 0.2, "random_heldout_ci95": [lo, hi], "random_heldout_by_kind": {...},
     "instances": {"train": 200, ...}, "best_round": 2, "seconds": 812.4}

A kind is what a task is an instance of (``splits.kind_of``): its family, its MiniWoB++ page.

Round 0 is behaviour cloning of the scripted teacher; rounds 1.. are on-policy (``rule``).
Every round is scored after its update, greedily, on each evaluated set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPORT_FILE = "loop.json"


@dataclass
class LoopReport:
    rounds: list[dict[str, Any]] = field(default_factory=list)
    random: dict[str, Any] = field(default_factory=dict)  # set -> {"success", "ci95"}
    instances: dict[str, int] = field(default_factory=dict)  # set -> instances in it
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rounds": self.rounds}
        for name, rate in self.random.items():
            out[f"random_{name}"] = rate["success"]
            out[f"random_{name}_ci95"] = rate["ci95"]
            out[f"random_{name}_by_kind"] = rate.get("by_kind", {})
        held = [r for r in self.rounds if r.get("heldout") is not None]
        best = max(held, key=lambda r: r["heldout"], default=None)
        return out | {
            "instances": self.instances,
            "best_round": None if best is None else best["round"],
            "seconds": round(self.seconds, 1),
        }

    def save(self, out: Path) -> None:
        """Written after every round: a loop cut short keeps what it measured."""
        (out / REPORT_FILE).write_text(json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, out: Path) -> LoopReport:
        """The report of an earlier (resumed) loop in ``out``; empty when there is none."""
        path = out / REPORT_FILE
        if not path.is_file():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        random = {
            key.removeprefix("random_"): {
                "success": value,
                "ci95": data.get(f"{key}_ci95"),
                "by_kind": data.get(f"{key}_by_kind", {}),
            }
            for key, value in data.items()
            if key.startswith("random_") and not key.endswith(("_ci95", "_by_kind"))
        }
        return cls(
            data.get("rounds", []),
            random,
            data.get("instances", {}),
            float(data.get("seconds", 0.0)),
        )


def pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.0%}"


def with_ci(rate: float | None, ci: list[float | None] | None) -> str:
    if rate is None:
        return "n/a"
    lo, hi = ci or (None, None)
    return pct(rate) if lo is None or hi is None else f"{pct(rate)} [{pct(lo)}, {pct(hi)}]"


def kind_rows(report: dict[str, Any], name: str = "heldout") -> list[tuple[str, int, str, str]]:
    """The last round's success on set ``name`` by kind, beside the random policy's:
    ``(kind, instances, model, random)``, formatted; empty when the set has no kinds."""
    last = report["rounds"][-1] if report["rounds"] else {}
    model, random = last.get(f"{name}_by_kind", {}), report.get(f"random_{name}_by_kind", {})
    rows = []
    for kind in sorted(model.keys() | random.keys()):
        got, chance = model.get(kind, {}), random.get(kind, {})
        rates = [with_ci(r.get("success"), r.get("ci95")) for r in (got, chance)]
        rows.append((kind, got.get("n", chance.get("n", 0)), *rates))
    return rows
