"""The observation a step acted on, rebuilt from the run directory (schema v3 steps).

A step record names its screenshot and, since schema version 3, the rest of its observation
(``StepRecord.observation``: tabs, accessibility tree, elements, dialogs, last error), both
content-addressed files. Together they give back the ``Observation`` the policy saw, so
exports and trainers can rebuild the exact prompt with the policy's own template.
"""

from __future__ import annotations

from pathlib import Path

from webdojo.errors import RecordSchemaError
from webdojo.observation import Observation
from webdojo.store.records import StepRecord


def load_observation(run: Path, step: StepRecord) -> Observation | None:
    """The step's observation with its screenshot; None for steps of schema version 1-2,
    which did not store it. Raises ``RecordSchemaError`` when a named file is missing or
    unreadable (the run is damaged: a silent gap would train on the wrong context)."""
    if step.observation is None:
        return None
    try:
        observation = Observation.model_validate_json((Path(run) / step.observation).read_bytes())
        if step.screenshot is not None:
            observation = observation.model_copy(
                update={"screenshot": (Path(run) / step.screenshot).read_bytes()}
            )
    except (OSError, ValueError) as exc:
        raise RecordSchemaError(
            f"step {step.step} of {step.key} names files that cannot be read: {exc}"
        ) from exc
    return observation
