"""Episode and step records for the eval tests: runs described as task -> outcomes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from store import record_builders as rb  # tests/ is on sys.path (tests/conftest.py)
from webdojo.errors import ErrorInfo
from webdojo.store.records import EpisodeRecord, StepRecord

# an outcome: True / False for a scored success / failure, None for an infra fault
Outcomes = Mapping[str, Sequence[bool | None]]


def episodes(outcomes: Outcomes, **extra: Any) -> list[EpisodeRecord]:
    """One episode per outcome, keyed ``<task>#<repeat>``; a None outcome is a fault."""
    return [
        rb.episode(f"{task}#{repeat}", ok, fault="infra" if ok is None else None, **extra)
        for task, results in outcomes.items()
        for repeat, ok in enumerate(results)
    ]


def uniform(tasks: int, outcome: bool, repeats: int = 1, prefix: str = "t") -> Outcomes:
    """``tasks`` tasks whose every repeat has the same outcome."""
    return {f"{prefix}{i:03d}": [outcome] * repeats for i in range(tasks)}


def unparsed_steps(count: int, key: str = "t000#0") -> list[StepRecord]:
    """Steps whose reply did not parse (no action, a ``parse_error``)."""
    error = ErrorInfo(code="parse_error", fault="agent", message="no action found")
    return [rb.step("u", i, key=key, action=None, error=error) for i in range(count)]
