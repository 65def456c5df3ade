"""A run's ``config.json`` as a typed record, and its one reader.

``webdojo run`` (``rollout.run.config_record``) and the agent adapter write the file once, when
the run starts; the judges, ``webdojo verify``, the exports and the viewer read it back through
``read_config``. Every field is optional: the file has grown fields release by release and
webdojo 0.1's runs hold only the first few, so a file written by any version loads unchanged.
Keys this record does not know are kept (``extra="allow"``), so nothing of an old or newer file
is lost; ``as_written`` gives the JSON object exactly as it was read.

``record`` and ``network`` are the cache recording and the browser's network policy, whose
types live above the store: they stay JSON objects here (nothing reads them back).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

CONFIG = "config.json"


class PolicySettings(BaseModel):
    """``extra``: the policy's settings (``RunConfig.extra``), as the writers fill it."""

    model_config = ConfigDict(extra="allow", frozen=True)

    template: str | None = None  # the prompt template (training rebuilds prompts with it)
    template_options: dict[str, Any] | None = None  # that template's options
    model: str | None = None  # the policy model's name
    max_steps: int | None = None  # the agent adapter's step cap
    temperature: float | None = None  # the agent adapter's sampling temperature
    model_options: dict[str, Any] | None = None  # the agent adapter's client options
    adapter: str | None = None  # which adapter wrote the run ("openai_agent"); None: webdojo run


class RunConfigRecord(BaseModel):
    """How a run was started (see the module docstring)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    format_version: int | None = None  # of the directory layout (run_store.FORMAT_VERSION)
    tasks: str | None = None  # the task spec
    policy: str | None = None
    limit: int | None = None
    concurrency: int | None = None
    repeats: int | None = None
    seed: int | None = None
    out: str | None = None
    viewport: tuple[int, int] | None = None
    extra: PolicySettings = Field(default_factory=PolicySettings)
    server: str | None = None
    site_port: int | None = None
    archive: str | None = None
    record: dict[str, Any] | None = None
    browser_args: list[str] | None = None
    wiki: str | None = None
    wiki_backend: str | None = None
    network: dict[str, Any] | None = None
    _written: dict[str, Any] | None = PrivateAttr(default=None)

    @field_validator("extra", mode="before")
    @classmethod
    def _no_extra(cls, value: Any) -> Any:
        return {} if value is None else value  # ``"extra": null``: no settings, as before

    def as_written(self) -> dict[str, Any]:
        """The JSON object of the file, key for key and value for value (for people: the
        viewer shows it as it is)."""
        if self._written is not None:
            return dict(self._written)
        return self.model_dump(mode="json", exclude_unset=True)


def read_config(root: Path, problems: list[str] | None = None) -> RunConfigRecord | None:
    """The ``config.json`` of the run directory ``root``; None when it is missing, unreadable,
    not a JSON object or not a run configuration. Why it is None is appended to ``problems``
    (for people), when given."""
    path = Path(root) / CONFIG
    if not path.exists():
        _tell(problems, f"no {CONFIG}: the run's settings (task set, policy) are unknown")
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        _tell(problems, f"{CONFIG} cannot be read ({exc}): the run's settings are unknown")
        return None
    if not isinstance(data, dict):
        _tell(problems, f"{CONFIG} is not a JSON object: the run's settings are unknown")
        return None
    try:
        config = RunConfigRecord.model_validate(data)
    except ValidationError as exc:
        why = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        _tell(
            problems, f"{CONFIG} is not a run configuration ({why}): the run's settings are unknown"
        )
        return None
    config._written = data
    return config


def _tell(problems: list[str] | None, problem: str) -> None:
    if problems is not None:
        problems.append(problem)
