"""AgentRewardBench's expert annotations, read as webdojo labels for calibrating judges.

AgentRewardBench (McGill-NLP, 2025) has experts label 1,302 web-agent trajectories (WebArena,
VisualWebArena, WorkArena, AssistantBench; four agent models). Its Python package
(``pip install agent-reward-bench``) ships the labels as ``agent_reward_bench/data/
annotations.csv``, one row per (annotator, trajectory)::

    annotator_name,benchmark,task_id,model_name,exp_name,trajectory_success,
    trajectory_side_effect,trajectory_optimality,trajectory_looping

``trajectory_success`` is ``Successful`` (our ``success``), ``Unsuccessful`` (``failure``) or
``Unsure`` (no label: left out and counted). A trajectory is (benchmark, model_name, task_id);
106 of them have a second annotator. As in the package's own scoring, the *primary* annotation
is the first row of a trajectory in file order, and it is the ground truth; the secondary ones
measure how often experts agree (``ExpertLabels.agreement``).

The trajectories themselves are a separate download (the Hugging Face dataset
``McGill-NLP/agent-reward-bench``), laid out as
``cleaned/<benchmark>/<model_name>/<exp_name>/<task_id>.json``. Our key for a trajectory is
``<benchmark>/<model_name>/<task_id>``: ``key_of_file`` reads it off such a path and
``ArbAnnotation.trajectory_file`` goes the other way, so a user who judged the downloaded
trajectories with a webdojo judge gets calibration pairs with ``pairs_for``. (Turning those
files into a webdojo run directory is not done here.)

Installing the package with its dependencies pulls in browsergym, torch and an older
Playwright; ``pip install --no-deps agent-reward-bench`` is enough for the annotations file, and
``packaged_annotations`` finds it without importing the package.
"""

from __future__ import annotations

import csv
import importlib.util
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from webdojo.errors import LabelFileError
from webdojo.judges.calibration import Pair
from webdojo.store.verdicts import Label

PACKAGE = "agent_reward_bench"
ANNOTATIONS = Path("data") / "annotations.csv"
SUCCESS_VALUES: dict[str, Label | None] = {
    "Successful": "success",
    "Unsuccessful": "failure",
    "Unsure": None,
}
COLUMNS = ("annotator_name", "benchmark", "task_id", "model_name", "exp_name")
FIELDS = (
    "trajectory_success",
    "trajectory_side_effect",
    "trajectory_optimality",
    "trajectory_looping",
)


@dataclass(frozen=True)
class ArbAnnotation:
    """One expert's annotation of one trajectory."""

    annotator: str
    benchmark: str
    task_id: str
    model_name: str
    exp_name: str
    label: Label | None  # None: the expert was unsure
    side_effect: str  # Yes / No / Unsure: did the agent change something it should not have
    optimality: str  # "1. Complete Failure" .. "4. Completely Optimal"
    looping: str  # Yes / No
    primary: bool  # the first annotation of this trajectory in the file: the ground truth
    where: str  # ``file:line``

    @property
    def key(self) -> str:
        return trajectory_key(self.benchmark, self.model_name, self.task_id)

    def trajectory_file(self, root: Path) -> Path:
        """Where the trajectory is in a download of the dataset at ``root``."""
        return (
            Path(root)
            / "cleaned"
            / self.benchmark
            / self.model_name
            / self.exp_name
            / (f"{self.task_id}.json")
        )


def trajectory_key(benchmark: str, model_name: str, task_id: str) -> str:
    return f"{benchmark}/{model_name}/{task_id}"


def packaged_annotations() -> Path | None:
    """The annotations file of the installed ``agent-reward-bench`` package, else None."""
    spec = importlib.util.find_spec(PACKAGE)  # finds, does not import (its deps may be absent)
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(folder) / ANNOTATIONS
        if path.is_file():
            return path
    return None


def read_annotations(path: Path) -> list[ArbAnnotation]:
    """Every row of an annotations file, in order; ``LabelFileError`` names the file, line and
    column of anything unexpected."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
            header = rows[0].keys() if rows else []
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise LabelFileError(f"{path}: cannot read the annotations ({exc})") from exc
    missing = [c for c in (*COLUMNS, *FIELDS) if c not in header]
    if missing:
        raise LabelFileError(f"{path}:1: missing columns: {', '.join(missing)}")
    seen: set[str] = set()
    out = []
    for number, row in enumerate(rows, 2):  # line 1 is the header
        annotation = _annotation(row, f"{path}:{number}", seen)
        seen.add(annotation.key)
        out.append(annotation)
    return out


def _annotation(row: dict[str, str], where: str, seen: set[str]) -> ArbAnnotation:
    values = {k: (row.get(k) or "").strip() for k in (*COLUMNS, *FIELDS)}
    for column in COLUMNS:
        if not values[column]:
            raise LabelFileError(f"{where}: {column}: empty", field=column)
    success = values["trajectory_success"]
    if success not in SUCCESS_VALUES:
        raise LabelFileError(
            f"{where}: trajectory_success: {success!r} is not one of {', '.join(SUCCESS_VALUES)}",
            field="trajectory_success",
        )
    return ArbAnnotation(
        annotator=values["annotator_name"],
        benchmark=values["benchmark"],
        task_id=values["task_id"],
        model_name=values["model_name"],
        exp_name=values["exp_name"],
        label=SUCCESS_VALUES[success],
        side_effect=values["trajectory_side_effect"],
        optimality=values["trajectory_optimality"],
        looping=values["trajectory_looping"],
        primary=trajectory_key(values["benchmark"], values["model_name"], values["task_id"])
        not in seen,
        where=where,
    )


@dataclass
class ExpertLabels:
    """The ground truth of each trajectory (its primary annotation), by key."""

    labels: dict[str, Label] = field(default_factory=dict)  # key -> success | failure
    annotations: dict[str, ArbAnnotation] = field(default_factory=dict)  # key -> primary
    unsure: int = 0  # primary annotations that gave no label: left out
    pairs_agreeing: int = 0  # trajectories whose second annotator gave the same label
    pairs_compared: int = 0  # trajectories with a second annotator, neither unsure

    @property
    def agreement(self) -> float | None:
        """How often two experts agree on success (the ceiling a judge can hope for)."""
        return self.pairs_agreeing / self.pairs_compared if self.pairs_compared else None

    def by_benchmark(self) -> Counter[str]:
        return Counter(a.benchmark for k, a in self.annotations.items() if k in self.labels)


def expert_labels(annotations: Iterable[ArbAnnotation]) -> ExpertLabels:
    """Primary labels by key, and the agreement of secondary annotators with them."""
    out = ExpertLabels()
    secondary: list[ArbAnnotation] = []
    for annotation in annotations:
        if not annotation.primary:
            secondary.append(annotation)
            continue
        out.annotations[annotation.key] = annotation
        if annotation.label is None:
            out.unsure += 1
        else:
            out.labels[annotation.key] = annotation.label
    for annotation in secondary:
        first = out.labels.get(annotation.key)
        if first is not None and annotation.label is not None:
            out.pairs_compared += 1
            out.pairs_agreeing += first == annotation.label
    return out


def key_of_file(path: Path) -> str:
    """The key of a downloaded trajectory file ``.../cleaned/<benchmark>/<model>/<exp>/<task>.json``."""
    parts = Path(path).parts
    if len(parts) < 5 or not parts[-1].endswith(".json"):
        raise LabelFileError(
            f"{path}: not a trajectory file of the dataset "
            "(cleaned/<benchmark>/<model_name>/<exp_name>/<task_id>.json)"
        )
    benchmark, model, _exp, name = parts[-4:]
    return trajectory_key(benchmark, model, name.removesuffix(".json"))


def pairs_for(labels: ExpertLabels, judged: Mapping[str, Label]) -> tuple[list[Pair], int]:
    """Calibration pairs for the trajectories a judge labelled (key -> its label), and the
    number of judged keys with no expert label (unknown or unsure), which are left out."""
    pairs: list[Pair] = []
    unlabelled = 0
    for key, judge_label in judged.items():
        truth = labels.labels.get(key)
        if truth is None:
            unlabelled += 1
            continue
        source = f"agent-reward-bench:{labels.annotations[key].benchmark}"
        pairs.append(Pair(key, truth, judge_label, source))
    return pairs, unlabelled
