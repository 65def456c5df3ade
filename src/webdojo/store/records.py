"""The trajectory records: what a rollout stores and every later stage reads.

One ``StepRecord`` per step (``steps.jsonl``) and one ``EpisodeRecord`` per finished attempt
of an episode (``episodes.jsonl``). They are the single contract between the rollout and
judges, rewards, selection, exports, the trainer and the viewer: each field is documented
here, once. Nothing outside ``webdojo.store`` reads the JSONL files by key.

Versions. Every line carries ``schema_version``. Lines of an older version are upgraded when
read (``upgrade``); a line of a newer version than this webdojo knows raises
``RecordSchemaError``, naming the version, instead of being misread.

    version 1  the untyped records of webdojo 0.1 (no ``schema_version`` field);
               no final state, so their rewards cannot be re-verified
    version 2  typed records; the episode stores the verifier's final state
    version 3  each step names the stored observation it acted on (``observation``), so the
               exact context the policy saw can be rebuilt (exports, the trainer)
    version 4  the episode stores its repeat index (``repeat``); older lines get it from
               their key. Steps are unchanged

Arrow-friendly on disk. A run directory loads with ``datasets.load_dataset("json", ...)``
as it is, so every field has one type in every line: free-form JSON (the agent's memory,
localStorage, error details) is stored as JSON text (``JsonText``), every field is written
even when it is null, and numbers that may be whole are floats.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializationInfo,
    ValidationInfo,
)

from webdojo.actions import Action
from webdojo.errors import ErrorInfo, RecordSchemaError
from webdojo.observation import Box, FinalState
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.verify import VerifyResult

SCHEMA_VERSION = 4
STORED = {"stored": True}  # validation context of lines read back from disk


def _from_json_text(value: Any, info: ValidationInfo) -> Any:
    # On disk the value is JSON text; in Python (a record being built) it is the value itself.
    if isinstance(value, str) and (info.context or {}).get("stored"):
        return json.loads(value)
    return value


def _to_json_text(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


# Free-form JSON (dicts whose keys vary from line to line): JSON text on disk, so that Arrow
# sees one string column instead of a struct it cannot unify across lines.
JsonText = Annotated[
    Any, BeforeValidator(_from_json_text), PlainSerializer(_to_json_text, when_used="json")
]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _error_from_stored(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, dict) and "details" in value:
        return {**value, "details": _from_json_text(value["details"], info)}
    return value


def _error_to_stored(error: ErrorInfo) -> dict[str, Any]:
    return {**error.model_dump(), "details": _to_json_text(error.details)}


# An error as stored: the ``ErrorInfo`` that observations and the wire carry (``webdojo.errors``
# has the codes), with its details as JSON text on disk like every free-form field.
StoredError = Annotated[
    ErrorInfo,
    BeforeValidator(_error_from_stored),
    PlainSerializer(_error_to_stored, when_used="json"),
]


class Target(_Record):
    """The element an element action aimed at, as the observation showed it."""

    id: int  # element id in the observation's axtree / element list
    role: str
    name: str
    box: Box  # viewport CSS pixels, the screenshot's pixels


class StepRecord(_Record):
    """One step: the observation acted on, the policy's decision, and what happened."""

    schema_version: int = SCHEMA_VERSION
    episode: str  # id of this attempt (a resumed run re-runs an episode under a new id)
    key: str  # the episode's key, stable across resumes: ``<task_id>#<repeat>``
    task_id: str
    step: int  # 0-based index within the attempt
    url: str  # of the page acted on
    title: str
    viewport: tuple[int, int]  # width, height in CSS pixels (= screenshot pixels)
    text: str  # the policy's raw output (scripted policies: the action as text)
    action: Action | None  # the parsed action; None when ``text`` did not parse
    target: Target | None  # for element actions: the element aimed at
    memory: JsonText = None  # WebGym memory JSON or BrowserAgent <conclusion>, if any
    error: StoredError | None  # the parse error or the action's error, if it failed
    dialogs: list[str]  # messages of dialogs auto-dismissed during the step
    screenshot: str | None  # the observation acted on: path relative to the run directory
    next_screenshot: str | None  # the observation after the step (same path: page unchanged)
    observation: str | None = None  # the observation acted on without its screenshot (tabs,
    # accessibility tree, elements, last error) as a content-addressed JSON file; None: v1-v2
    policy_s: float  # seconds the policy took to decide
    env_s: float  # seconds the environment took to act and observe
    usage: dict[str, int] = Field(default_factory=dict)  # model tokens: prompt, completion...

    @property
    def repeated(self) -> bool:
        """WebGym's repetition: the action left the screenshot byte-identical. A stop never
        changes the page, so it never counts."""
        if self.screenshot is None or (self.action is not None and self.action.type == "stop"):
            return False
        return self.screenshot == self.next_screenshot


def _final_from_stored(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, dict) and "storage" in value:
        storage = _from_json_text(value["storage"], info)
        return {**value, "storage": {} if storage is None else storage}  # null: none kept
    return value


def _final_to_stored(state: FinalState, info: SerializationInfo) -> dict[str, Any]:
    # only verified states are stored, and a crashed page is never verified: no ``crashed``
    data = state.model_dump(exclude={"crashed"})
    if info.mode_is_json():
        data["storage"] = _to_json_text(data["storage"])
    return data


# What the verifier read at the end, enough to verify again without a browser: the
# ``FinalState`` itself, stored as url, title, storage (JSON text), text and answer.
StoredFinal = Annotated[
    FinalState, BeforeValidator(_final_from_stored), PlainSerializer(_final_to_stored)
]


class EpisodeRecord(_Record):
    """One finished attempt of an episode. ``reward`` is None whenever it was not verified
    (a fault): trainers drop those instead of scoring them 0."""

    schema_version: int = SCHEMA_VERSION
    key: str  # ``<task_id>#<repeat>``, stable across resumes
    repeat: int  # which attempt at the task (0-based; pass@k, GRPO groups); v1-v3: from the key
    episode: str | None  # id of the attempt; its steps carry the same id
    task_id: str
    site: str
    difficulty: int  # WebGym's difficulty: the number of facts in the task's rubric; 0: none
    level: str  # easy | medium | hard | unknown (a task with no difficulty)
    policy: str  # the policy's name
    outcome: EndReason  # stopped | done | step_cap | fault (see webdojo.tasks.episode_rules)
    steps: int  # steps taken
    answer: str | None  # the agent's final answer, if it stopped with one
    final_url: str
    verifier: VerifyResult | None  # None for faults and tasks without a verifier (judged later)
    success: bool | None  # the verifier's verdict; None when there is none
    reward: float | None  # 1.0 / 0.0 from the verifier; None when there is no verdict
    fault: str | None  # env | infra when a fault ended the episode
    error: StoredError | None  # that fault
    final_state: StoredFinal | None = None  # what the verifier read (None: faults, v1)
    started_at: float  # Unix time the episode started
    wall_s: float  # seconds from start to record


def repeat_of(key: str) -> int:
    """The repeat index in an episode key ``<task_id>#<repeat>``; 0 when it has none."""
    _, _, index = key.rpartition("#")
    return int(index) if index.isdigit() else 0


# --- reading lines back ------------------------------------------------------------------

_V1_JSON_FIELDS = {"step": ("memory",), "episode": ()}


def upgrade(data: dict[str, Any], kind: Literal["step", "episode"]) -> dict[str, Any]:
    """A stored line as a dict in the current on-disk shape; raises for newer versions."""
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version < 1:  # one bad line, not an unreadable run
        raise ValueError(f"{kind} record has an invalid schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise RecordSchemaError(
            f"{kind} record has schema_version {version}, newer than this webdojo reads "
            f"({SCHEMA_VERSION}): upgrade webdojo to read this run"
        )
    if version == 1:
        data = _upgrade_v1(data, kind)
    if version <= 3:  # v3 -> v4 added the episode's ``repeat``; v2 -> v3 an optional step field
        data = {**data, "schema_version": SCHEMA_VERSION}
        if kind == "episode" and "repeat" not in data:
            data["repeat"] = repeat_of(str(data.get("key", "")))
    return data


def _upgrade_v1(data: dict[str, Any], kind: Literal["step", "episode"]) -> dict[str, Any]:
    data = {**data, "schema_version": SCHEMA_VERSION}
    for name in _V1_JSON_FIELDS[kind]:
        data[name] = _to_json_text(data.get(name))
    error = data.get("error")
    if isinstance(error, dict):  # v1 stored error details as a JSON object
        data["error"] = {**error, "details": _to_json_text(error.get("details"))}
    if kind == "step":
        data.setdefault("text", "")
        data["usage"] = data.get("usage") or {}
        data["dialogs"] = data.get("dialogs") or []
    return data


def parse_step(line: str | dict[str, Any]) -> StepRecord:
    """A ``steps.jsonl`` line (text or decoded) as a ``StepRecord``."""
    data = json.loads(line) if isinstance(line, str) else line
    return StepRecord.model_validate(upgrade(data, "step"), context=STORED)


def parse_episode(line: str | dict[str, Any]) -> EpisodeRecord:
    """An ``episodes.jsonl`` line (text or decoded) as an ``EpisodeRecord``."""
    data = json.loads(line) if isinstance(line, str) else line
    return EpisodeRecord.model_validate(upgrade(data, "episode"), context=STORED)


def to_line(record: StepRecord | EpisodeRecord) -> str:
    """One JSONL line (no newline): every field, nulls included, so columns stay regular."""
    return record.model_dump_json()
