"""How well a judge agrees with ground truth: pure functions over (truth, judge) label pairs.

    pairs = [Pair("run/a#0", truth="success", judged="success", source="scripted"), ...]
    calibrate(pairs).to_json()
    # {"n": 20, "accuracy": 0.85, "precision": 0.75, "recall": 1.0,
    #  "true_positives": 6, "false_positives": 2, "false_negatives": 0, "true_negatives": 9,
    #  "confusion": {"success": {"success": 6, "failure": 0, ...}, ...},
    #  "per_label": {"success": {"precision": 0.75, "recall": 1.0, "truth": 6, "judged": 8}, ...}}

* ``accuracy``: the share of pairs where the judge's label is the true label, over all five
  labels. A judge verdict that is not a judgment (``infra_error``: an unparseable reply, a missing
  screenshot) counts as a disagreement and is also counted in ``judge_errors``: a judge that
  cannot answer is a judge that is wrong.
* ``precision`` / ``recall``: ``success`` is the positive class. A judge that calls everything a
  success has recall 1.0 and precision equal to the base rate, and every failure it passed is
  counted in ``false_positives``. Either is ``None`` when undefined (nothing predicted positive,
  no true success).
* ``confusion``: truth -> judge label -> count, the full 5 x 5 matrix (zeros included).

Ground truth of a webdojo run (``run_truth``) is the programmatic verifier's stored result:
reward 1.0 is ``success``, 0.0 is ``failure``. Faulted episodes (never scored) and episodes
without a verifier are left out and counted, never guessed. ``compare`` sets two judge variants
side by side on the trajectories both judged (WebGym's Figure 5: rubric prompting against
task-only prompting).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import LABELS, Label, Verdict

POSITIVE: Label = "success"


@dataclass(frozen=True)
class Pair:
    """One trajectory with its true label and the judge's label."""

    id: str  # the trajectory: ``<run dir>/<episode key>``
    truth: Label
    judged: Label
    source: str = ""  # where the truth came from: a policy, a label file, a run


@dataclass(frozen=True)
class Calibration:
    """The metrics of ``calibrate`` (see the module docstring)."""

    n: int
    confusion: dict[str, dict[str, int]]

    def count(self, truth: str, judged: str) -> int:
        return self.confusion[truth][judged]

    @property
    def agree(self) -> int:
        return sum(self.count(label, label) for label in LABELS)

    @property
    def true_positives(self) -> int:
        return self.count(POSITIVE, POSITIVE)

    @property
    def false_positives(self) -> int:
        return sum(self.count(t, POSITIVE) for t in LABELS if t != POSITIVE)

    @property
    def false_negatives(self) -> int:
        return sum(self.count(POSITIVE, j) for j in LABELS if j != POSITIVE)

    @property
    def true_negatives(self) -> int:
        return self.n - self.true_positives - self.false_positives - self.false_negatives

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.agree, self.n)

    @property
    def precision(self) -> float | None:
        return _ratio(self.true_positives, self.true_positives + self.false_positives)

    @property
    def recall(self) -> float | None:
        return _ratio(self.true_positives, self.true_positives + self.false_negatives)

    @property
    def judge_errors(self) -> int:
        return sum(self.count(t, "infra_error") for t in LABELS)

    def per_label(self) -> dict[str, dict[str, Any]]:
        """Precision and recall of each label taken as the positive class."""
        out: dict[str, dict[str, Any]] = {}
        for label in LABELS:
            truth = sum(self.confusion[label].values())
            judged = sum(self.count(t, label) for t in LABELS)
            hits = self.count(label, label)
            out[label] = {
                "precision": _ratio(hits, judged),
                "recall": _ratio(hits, truth),
                "truth": truth,
                "judged": judged,
            }
        return out

    def to_json(self, *, full: bool = True) -> dict[str, Any]:
        """The figures as JSON; ``full=False`` (for breakdowns) leaves out the per-label
        figures and the zero cells of the confusion matrix."""
        out: dict[str, Any] = {
            "n": self.n,
            "accuracy": _round(self.accuracy),
            "precision": _round(self.precision),
            "recall": _round(self.recall),
            "true_positives": self.true_positives,
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "true_negatives": self.true_negatives,
            "judge_errors": self.judge_errors,
            "confusion": {t: dict(row) for t, row in self.confusion.items()},
        }
        if not full:
            nonzero = {t: {j: c for j, c in row.items() if c} for t, row in self.confusion.items()}
            out["confusion"] = {t: row for t, row in nonzero.items() if row}
            return out
        out["per_label"] = {
            label: {k: _round(v) if k in ("precision", "recall") else v for k, v in m.items()}
            for label, m in self.per_label().items()
        }
        return out


def calibrate(pairs: Iterable[Pair]) -> Calibration:
    """The metrics of a judge over ``pairs`` (see the module docstring)."""
    confusion: dict[str, dict[str, int]] = {t: dict.fromkeys(LABELS, 0) for t in LABELS}
    n = 0
    for pair in pairs:
        confusion[pair.truth][pair.judged] += 1
        n += 1
    return Calibration(n=n, confusion=confusion)


def by_source(pairs: Iterable[Pair]) -> dict[str, Calibration]:
    """One calibration per source (policy, label file, run), sources in first-seen order."""
    groups: dict[str, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(pair.source, []).append(pair)
    return {source: calibrate(group) for source, group in groups.items()}


def compare(
    first: Iterable[Pair], second: Iterable[Pair], names: tuple[str, str] = ("rubric", "task")
) -> dict[str, Any]:
    """Two judge variants on the trajectories both judged: each one's metrics, the differences
    (first minus second) and how often the two gave the same label. A trajectory is matched by
    its id and source (one trajectory may have a verifier's truth and a human's)."""
    a = {(p.source, p.id): p for p in first}
    b = {(p.source, p.id): p for p in second}
    common = [i for i in a if i in b]
    cal_a = calibrate(a[i] for i in common)
    cal_b = calibrate(b[i] for i in common)
    same = sum(a[i].judged == b[i].judged for i in common)
    delta = {
        metric: _difference(getattr(cal_a, metric), getattr(cal_b, metric))
        for metric in ("accuracy", "precision", "recall")
    }
    return {
        "n": len(common),
        names[0]: cal_a.to_json(full=False),
        names[1]: cal_b.to_json(full=False),
        "delta": delta,
        "same_label": same,
        "only_one_judged": len(a) + len(b) - 2 * len(common),
    }


# --- ground truth of a webdojo run ----------------------------------------------------------


@dataclass
class RunTruth:
    """The verifier's labels of a run's episodes, and what had none."""

    labels: dict[str, Label] = field(default_factory=dict)  # episode key -> success | failure
    episodes: dict[str, str | None] = field(default_factory=dict)  # key -> its attempt id
    faulted: int = 0  # env/infra faults: never scored, left out
    unverified: int = 0  # tasks without a verifier: nothing to compare with, left out


def run_truth(run_dir: Path) -> RunTruth:
    """Ground truth from the stored verifier results of ``run_dir`` (see the module doc)."""
    truth = RunTruth()
    for key, record in read_run(Path(run_dir)).episodes.items():
        if record.fault is not None:
            truth.faulted += 1
        elif record.reward is None:
            truth.unverified += 1
        else:
            truth.labels[key] = "success" if record.reward >= 1.0 else "failure"
            truth.episodes[key] = record.episode
    return truth


def pair_up(
    truth: Mapping[str, Label],
    verdicts: Mapping[str, Verdict],
    *,
    prefix: str,
    source: str,
    attempts: Mapping[str, str | None] | None = None,
) -> tuple[list[Pair], int]:
    """Pairs for the keys that have both a true label and a verdict; also the number of true
    labels with no verdict (or a verdict on another attempt of the episode than ``attempts``
    names), which are left out."""
    pairs: list[Pair] = []
    unjudged = 0
    for key, label in truth.items():
        verdict = verdicts.get(key)
        stale = attempts is not None and verdict is not None and verdict.episode != attempts[key]
        if verdict is None or stale:
            unjudged += 1
            continue
        pairs.append(Pair(f"{prefix}/{key}", label, verdict.label, source))
    return pairs, unjudged


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 4)
