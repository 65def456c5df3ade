"""Human labels of stored trajectories: webdojo's own JSONL format, its reader, and majority merging.

One line per labelled trajectory::

    {"run": "runs/demo", "key": "shop.add-runner#0", "label": "success", "annotator": "ana"}
    {"run": "runs/demo", "key": "shop.add-runner#0", "label": "failure", "annotator": "bo",
     "note": "the runner is in the cart but the quantity is 2"}

* ``run``: the run directory holding the trajectory (``webdojo run --out``). A relative path is
  read from the label file's own directory, so a label file travels with its runs;
* ``key``: the episode key in that run (``<task id>#<repeat>``, as in ``episodes.jsonl``);
* ``label``: one of the verdict labels, ``success``, ``failure``, ``website_failure``,
  ``blocked`` or ``infra_error``;
* ``annotator``: who labelled it (any non-empty name); ``note``: optional free text.

No other fields are allowed. A line that is not JSON or breaks a rule raises
``LabelFileError`` (code ``bad_label_file``) naming ``file:line: field``; blank lines are
skipped. Several annotators may label the same trajectory, in one file or in several:
``merge_labels`` keeps the label most of them gave. A tie is no label at all: the trajectory is
left out and counted, never settled by a coin. The same annotator labelling the same trajectory
twice is an error (which one would count?).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webdojo.errors import LabelFileError
from webdojo.store.verdicts import Label


class HumanLabel(BaseModel):
    """One line of a label file (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: str = Field(min_length=1)
    key: str = Field(min_length=1)
    label: Label
    annotator: str = Field(min_length=1)
    note: str = ""


@dataclass(frozen=True)
class LabelLine:
    """A label as read: the line, its run directory resolved, and where it came from."""

    label: HumanLabel
    run_dir: Path
    where: str  # ``file:line``

    @property
    def trajectory(self) -> tuple[Path, str]:
        return self.run_dir, self.label.key


def read_labels(path: Path) -> list[LabelLine]:
    """Every label of one file, in order (see the module docstring for the errors)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelFileError(f"{path}: cannot read the label file ({exc})") from exc
    out: list[LabelLine] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        label = parse_line(line, where)
        run = Path(label.run).expanduser()
        out.append(LabelLine(label, run if run.is_absolute() else path.parent / run, where))
    if not out:
        raise LabelFileError(f"{path}: no labels (one JSON object per line)")
    return out


def parse_line(line: str, where: str) -> HumanLabel:
    """One line, or ``LabelFileError`` naming ``where`` and the field at fault."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise LabelFileError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise LabelFileError(f"{where}: a label line is a JSON object, not {type(data).__name__}")
    try:
        return HumanLabel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(part) for part in first["loc"]) or "line"
        problem = first["msg"]
        if first["type"] == "extra_forbidden":
            problem = f"unknown field (allowed: {', '.join(HumanLabel.model_fields)})"
        raise LabelFileError(f"{where}: {name}: {problem}", field=name) from exc


@dataclass
class MergedLabels:
    """The majority label of each trajectory, and what had none."""

    labels: dict[tuple[Path, str], Label] = field(default_factory=dict)  # (run, key) -> label
    votes: dict[tuple[Path, str], Counter[str]] = field(default_factory=dict)
    ties: list[tuple[Path, str]] = field(default_factory=list)  # left out: no majority

    @property
    def multiply_labelled(self) -> int:
        return sum(1 for v in self.votes.values() if sum(v.values()) > 1)

    @property
    def unanimous(self) -> int:
        """Trajectories with several annotators who all gave the same label."""
        return sum(1 for v in self.votes.values() if sum(v.values()) > 1 and len(v) == 1)

    def runs(self) -> list[Path]:
        """The run directories labelled, in first-seen order."""
        return list(dict.fromkeys(run for run, _ in self.votes))


def merge_labels(lines: Iterable[LabelLine]) -> MergedLabels:
    """One label per trajectory by majority of its annotators (see the module docstring)."""
    merged = MergedLabels()
    seen: dict[tuple[Path, str, str], str] = {}
    for line in lines:
        run_dir, key = line.trajectory
        trajectory = (run_dir.resolve(), key)
        mine = (*trajectory, line.label.annotator)
        if mine in seen:
            raise LabelFileError(
                f"{line.where}: annotator {line.label.annotator!r} already labelled "
                f"{key} of {run_dir} at {seen[mine]}",
                field="annotator",
            )
        seen[mine] = line.where
        merged.votes.setdefault(trajectory, Counter())[line.label.label] += 1
    for trajectory, votes in merged.votes.items():
        (top, count), *rest = votes.most_common()
        if rest and rest[0][1] == count:
            merged.ties.append(trajectory)
        else:
            merged.labels[trajectory] = top  # type: ignore[assignment]  # a Label by construction
    return merged
