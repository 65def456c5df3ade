"""A selection on disk: the step samples chosen for training, and what was left out and why.

    DIR/samples.jsonl    one ``Sample`` per step to train on (it points into its run)
    DIR/selection.json   the ``SelectionSummary``: rule, reward source, runs, settings, counts

A sample names its run, episode attempt and step; the step's context (prompt, memory,
screenshots) is rebuilt from the run when it is exported, so a selection stays small. Lines
carry a ``schema_version`` like every other record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from webdojo.errors import ConfigError
from webdojo.store.run_store import write_atomic

SAMPLE_SCHEMA_VERSION = 1
SAMPLES = "samples.jsonl"
SUMMARY = "selection.json"

Rule = Literal["bc", "rft", "grpo", "sft"]  # "sft": rows mixed in from an SFT selection


class Sample(BaseModel):
    """One step to train on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = SAMPLE_SCHEMA_VERSION
    rule: Rule  # the rule that chose it
    run: str  # the run directory
    iteration: int  # the run's place among the selection's runs (0: the oldest)
    key: str  # episode key ``<task_id>#<repeat>``
    episode: str  # the attempt (its steps carry this id)
    task_id: str
    step: int  # the step index within the attempt
    reward: float  # the episode's reward
    advantage: float | None = None  # grpo: reward - group mean (Dr. GRPO, no std scaling)
    weight: float = 1.0  # bc: the recency weight it was sampled with


class SelectionSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str
    reward_source: str  # "verifier" or "judge <spec>"
    runs: list[str]
    settings: dict[str, Any]
    kept: int  # samples (steps)
    episodes: int  # episodes they come from
    dropped: dict[str, int]  # reason -> count (episodes; reasons ending in _step: steps)

    def to_json(self, out: Path) -> dict[str, Any]:
        """The ``--json`` line: kept, dropped, out, then the rest."""
        return {
            "kept": self.kept,
            "dropped": self.dropped,
            "out": str(out),
            **self.model_dump(exclude={"kept", "dropped"}),
        }


def write_selection(out: Path, samples: list[Sample], summary: SelectionSummary) -> None:
    """Write both files, each atomically (a temporary file renamed into place)."""
    out.mkdir(parents=True, exist_ok=True)
    lines = "".join(sample.model_dump_json() + "\n" for sample in samples)
    write_atomic(out / SAMPLES, lines)
    write_atomic(out / SUMMARY, json.dumps(summary.model_dump(), indent=2) + "\n")


def read_samples(out: Path) -> Iterator[Sample]:
    """The samples of a selection directory; ConfigError naming the line for a bad one."""
    path = Path(out) / SAMPLES
    if not path.is_file():
        raise ConfigError(f"{out} holds no selection ({SAMPLES} is missing): run webdojo select")
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if data.get("schema_version", 0) > SAMPLE_SCHEMA_VERSION:
                    raise ValueError(f"schema_version {data['schema_version']} is newer")
                yield Sample.model_validate(data)
            except (ValueError, ValidationError, AttributeError) as exc:
                raise ConfigError(f"{path}:{number}: not a sample ({exc})") from exc
