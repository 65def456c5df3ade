"""Judges' verdicts: typed records stored next to the run they judge, one file per judge.

Layout inside a run directory::

    RUN/verdicts/<judge>.jsonl        one ``Verdict`` per judged episode attempt, appended
    RUN/verdicts/<judge>.calls.jsonl  the judge's model replies, cached by content hash

``<judge>`` is the judge spec made safe for a file name (``judge_slug``): ``rubric``,
``consensus-exact-f1-rubric``. Like the trajectory records, verdict lines carry a
``schema_version``, are written whole (every field, nulls included) and are only appended; a
newer line for the same episode key replaces an older one when read back, and a line cut short
by a kill is skipped. Later stages (selection, the viewer, reports) read verdicts only through
``read_verdicts``.

Rewards follow the episode records' rule: only ``success`` (1.0) and ``failure`` (0.0) are
scores. ``website_failure``, ``blocked`` and ``infra_error`` carry ``reward: null``, so trainers
discard those samples instead of scoring them 0 (Weblica's rule for broken websites).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from webdojo.errors import RecordSchemaError
from webdojo.store.records import STORED, StoredError
from webdojo.store.run_reader import read_lines
from webdojo.store.run_store import open_for_append

VERDICT_SCHEMA_VERSION = 1
VERDICTS = "verdicts"  # the directory inside a run

Label = Literal["success", "failure", "website_failure", "blocked", "infra_error"]
LABELS: tuple[Label, ...] = get_args(Label)
SCORED: dict[str, float] = {"success": 1.0, "failure": 0.0}  # every other label: reward None

CriterionKind = Literal[
    "fact",  # one rubric fact, checked against keypoint screenshots
    "keypoints",  # the screenshot selection itself
    "answer",  # the final answer (anti-hallucination, exact match, F1)
    "blocking",  # was the agent blocked (captcha, login wall, access denied)
    "reference",  # a reference answer that overrides the other criteria
    "task",  # the whole task in one question (task-only prompting, website-failure judge)
    "verifier",  # a built-in task's programmatic verifier
    "rule",  # one Mind2Web-Live evaluation rule
    "vote",  # one member of a consensus
    "input",  # the stored trajectory itself (what is missing)
]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Criterion(_Record):
    """One thing a judge checked, with why and where."""

    name: str  # e.g. "G1.2", "anti-hallucination", "rule 3", "vote rubric"
    kind: CriterionKind
    passed: bool | None  # None: not checked (an earlier criterion failed) or not applicable
    reason: str  # the judge's reason, in its words
    evidence: list[int] = Field(default_factory=list)  # step indices the reason rests on


class JudgeUsage(_Record):
    """Model calls a verdict cost. Cached replies cost nothing and are counted apart."""

    calls: int = 0  # requests sent to the endpoint (validation retries included)
    cached: int = 0  # replies taken from the run's call cache instead
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # in the currency of --price-in/--price-out; None: no prices

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Verdict(_Record):
    """A judge's verdict on one episode attempt."""

    schema_version: int = VERDICT_SCHEMA_VERSION
    judge: str  # the judge spec that produced it, e.g. "rubric", "consensus:exact,f1,rubric"
    key: str  # the episode key ``<task_id>#<repeat>``
    episode: str | None  # the attempt judged (its steps carry this id)
    task_id: str
    label: Label
    reward: float | None  # 1.0 success, 0.0 failure, None for every other label
    criteria: list[Criterion]  # in the order they were checked
    usage: JudgeUsage = Field(default_factory=JudgeUsage)
    model: str | None = None  # the model that judged; None for judges without one
    error: StoredError | None = None  # why an ``infra_error`` (missing file, unparseable...)
    notes: list[str] = Field(default_factory=list)  # e.g. images downscaled to fit the context
    judged_at: float = Field(default_factory=time.time)  # Unix time
    wall_s: float = 0.0  # seconds the judge took, model calls included

    @property
    def unparseable(self) -> bool:
        """The judge model never gave a reply that could be read."""
        return self.error is not None and self.error.code == "model_output_invalid"


def reward_of(label: Label) -> float | None:
    return SCORED.get(label)


def judge_slug(judge: str) -> str:
    """A judge spec as a file name: ``consensus:exact,f1`` -> ``consensus-exact-f1``."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", judge).strip("-.")
    return slug or "judge"


def verdict_path(run: Path, judge: str) -> Path:
    return Path(run) / VERDICTS / f"{judge_slug(judge)}.jsonl"


def calls_path(run: Path, judge: str) -> Path:
    return Path(run) / VERDICTS / f"{judge_slug(judge)}.calls.jsonl"


def parse_verdict(line: str) -> Verdict:
    data = json.loads(line)
    version = data.get("schema_version") if isinstance(data, dict) else None
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"verdict has an invalid schema_version {version!r}")
    if version > VERDICT_SCHEMA_VERSION:
        raise RecordSchemaError(
            f"verdict has schema_version {version}, newer than this webdojo reads "
            f"({VERDICT_SCHEMA_VERSION}): upgrade webdojo to read these verdicts"
        )
    return Verdict.model_validate(data, context=STORED)


def iter_verdicts(path: Path) -> Iterator[Verdict]:
    """The verdict lines of one file, in order. A line cut short by a kill is skipped (that
    episode is judged again on resume), and so is a line that is not a verdict."""
    return read_lines(path, parse_verdict)


def read_verdicts(run: Path, judge: str) -> dict[str, Verdict]:
    """Episode key -> the latest verdict of ``judge`` on it (empty when never judged)."""
    return {v.key: v for v in iter_verdicts(verdict_path(run, judge))}


def judges_of(run: Path) -> dict[str, dict[str, Verdict]]:
    """Every judge that has verdicts on ``run``: judge spec -> episode key -> verdict."""
    found: dict[str, dict[str, Verdict]] = {}
    folder = Path(run) / VERDICTS
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.jsonl")):
        if path.name.endswith(".calls.jsonl"):
            continue
        for verdict in iter_verdicts(path):
            found.setdefault(verdict.judge, {})[verdict.key] = verdict
    return found


class VerdictWriter:
    """Appends verdicts to one judge's file; each line is synced before the next is judged, so a
    kill loses at most the verdict being written. Use as a context manager."""

    def __init__(self, run: Path, judge: str) -> None:
        self.path = verdict_path(run, judge)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] = open_for_append(self.path)

    def write(self, verdict: Verdict) -> None:
        self._handle.write(verdict.model_dump_json() + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()

    def __enter__(self) -> VerdictWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
