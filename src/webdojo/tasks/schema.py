"""The task schema (pydantic, ``extra="forbid"``, versioned): one task type for the built-in
sites and every imported task set.

A task of a built-in site::

    {
      "schema_version": 2,
      "id": "shop.cart-lamp",
      "instruction": "Add the brass desk lamp to your cart.",
      "website": "shop",                          # a local site's name, or a real website
      "start_url": "index.html",                  # a page of that local site, or an absolute URL
      "source": "builtin",
      "rubric": {"fact_groups": [{"id": 1, "description": "the lamp",
                                  "facts": ["the brass desk lamp is in the cart"]}]},
      "verifier": {"checks": [{"kind": "storage", "key": "shop.cart", "path": "0.sku",
                                "op": "eq", "value": "lamp-brass"}]},
      "solution": [{"type": "click", "target": {"html_id": "add-lamp-brass"}}, {"type": "stop"}]
    }

An imported task names a real website (``"website": "https://www.allrecipes.com/"``), may carry
reference answers (golden or possible), the source's rule-based evaluation (``eval_rules``,
e.g. Mind2Web-Live's ``url_included_match``), its domain and subdomain (the Mind2Web-2
taxonomy, ``webdojo.tasks.taxonomy``), and ``meta``: the source's other fields, verbatim.

Difficulty is WebGym's: the number of facts in the rubric. A task without a rubric may give
``difficulty`` or only a ``level`` (easy / medium / hard, e.g. Online-Mind2Web's); when both a
rubric and a difficulty are given they must agree. ``step_cap`` overrides the per-level cap.

Versions: 1 is the built-in format of webdojo 0.1 (``site``/``start``, no ``schema_version``),
upgraded when read; a newer version than this webdojo knows is an error that names it.

Arrow-friendly on disk: ``model_dump(mode="json")`` writes every field, and the free-form parts
(verifier, solutions, meta) as JSON text, so a task file loads with
``datasets.load_dataset("json", ...)`` and each row validates back into a ``Task``. Hand-written
files may give those parts as JSON objects.

Solutions are lists of actions written as action dicts, except that element actions name their
element with a ``target`` (a DOM id, or a role and accessible name) instead of a numeric id:
ids are only known once the page is observed, so the scripted policy resolves targets against
each observation's element list.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    field_validator,
    model_validator,
)
from pydantic_core import to_jsonable_python

from webdojo.tasks.taxonomy import canonical_domain, canonical_subdomain

TASK_SCHEMA_VERSION = 2
MAX_DIFFICULTY = 50  # decomposition and generated rubrics may exceed WebGym's 1-10
Level = Literal["easy", "medium", "hard"]
LEVELS: tuple[Level, ...] = get_args(Level)  # easiest first


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FactGroup(_Strict):
    id: int
    description: str = ""
    facts: list[str] = Field(min_length=1)


class Rubric(_Strict):
    """WebGym's rubric: groups of facts that a successful trajectory must establish."""

    fact_groups: list[FactGroup] = Field(min_length=1)

    def n_facts(self) -> int:
        return sum(len(g.facts) for g in self.fact_groups)


# --- verifier checks (all must pass) -----------------------------------------------------

AnswerMatch = Literal["exact", "contains", "regex", "number", "any_of", "em"]


class AnswerCheck(_Strict):
    """Compare the final answer. Text is normalized (case, whitespace, punctuation at the ends)
    before ``exact``/``contains``/``any_of``; ``number`` parses the first number in the answer and
    compares within ``tolerance``. ``em`` is SQuAD's exact match against any of ``values`` (the
    golden answers of a QA task; ``webdojo.tasks.squad``), and its reason gives the best F1."""

    kind: Literal["answer"] = "answer"
    match: AnswerMatch = "exact"
    value: str | float | None = None
    values: list[str] | None = None  # for any_of: any of these is right
    tolerance: float = 0.0


StorageOp = Literal[
    "eq",
    "ne",
    "contains",
    "not_contains",
    "in",
    "gte",
    "lte",
    "exists",
    "missing",
    "len_eq",
    "len_gte",
]


class StorageCheck(_Strict):
    """Look up ``key`` in localStorage (its JSON value), follow ``path`` (dot-separated dict keys
    and list indices; negative indices count from the end; ``*`` maps over a list) and apply
    ``op`` with ``value``."""

    kind: Literal["storage"] = "storage"
    key: str
    path: str = ""
    op: StorageOp = "eq"
    value: Any = None


class UrlCheck(_Strict):
    """Check the final URL (of the active tab)."""

    kind: Literal["url"] = "url"
    op: Literal["contains", "endswith", "regex", "equals"] = "contains"
    value: str


class TextCheck(_Strict):
    """Check the final page's visible text (case-insensitive)."""

    kind: Literal["text"] = "text"
    op: Literal["contains", "not_contains"] = "contains"
    value: str


Check = Annotated[AnswerCheck | StorageCheck | UrlCheck | TextCheck, Field(discriminator="kind")]


class Verifier(_Strict):
    """A programmatic verifier: passes when every check passes."""

    checks: list[Check] = Field(min_length=1)


# --- reference solutions ----------------------------------------------------------------


class Target(_Strict):
    """How a solution step names an element: by DOM id, or by role and accessible name."""

    html_id: str | None = None
    role: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _one_way(self) -> Target:
        if (self.html_id is None) == (self.role is None and self.name is None):
            raise ValueError("a target needs html_id, or role and/or name (not both)")
        return self


class SolutionStep(BaseModel):
    """An action dict (see ``webdojo.actions``) whose element may be given as a ``target``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    type: str
    target: Target | None = None

    def action_fields(self) -> dict[str, Any]:
        """The step as an action dict, without the target."""
        return self.model_dump(exclude={"target"}, exclude_none=True)


# --- imported references and rules -----------------------------------------------------


class ReferenceAnswer(_Strict):
    """A reference answer from the source: ``golden`` (the one right answer) or ``possible``
    (one acceptable answer; live content may have changed since)."""

    type: Literal["golden", "possible"]
    answer: str


RuleMatch = Literal[
    "url_exactly_match",
    "url_included_match",
    "url_semantic_match",
    "element_path_exactly_match",
    "element_path_included_match",
    "element_value_exactly_match",
    "element_value_included_match",
    "element_value_semantic_match",
    "cache_data_exactly_match",
    "cache_data_included_match",
    "cache_data_semantic_match",
]


class EvalRule(_Strict):
    """One key node of a rule-based evaluation (Mind2Web-Live / WebCanvas): a trajectory
    passes the node when some step matches ``reference`` under ``match``. URL rules compare
    the URL, or its query parameter ``key`` when given; element rules compare the element at
    ``reference`` (a selector or xpath, ``method``) or its value on the page ``url``."""

    match: RuleMatch
    reference: str
    key: str = ""
    url: str | None = None
    netloc: str | None = None
    path: str | None = None
    method: str | None = None


def _json_text_in(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _json_text_out(value: Any) -> str | None:
    plain = to_jsonable_python(value, exclude_none=True)
    return None if plain is None else json.dumps(plain, ensure_ascii=False, sort_keys=True)


def _as_json_text(kind: Any) -> Any:
    """``kind`` as JSON text on disk (Arrow cannot unify its varying keys), an object in Python."""
    return Annotated[
        kind, BeforeValidator(_json_text_in), PlainSerializer(_json_text_out, when_used="json")
    ]


class Task(_Strict):
    schema_version: int = TASK_SCHEMA_VERSION
    id: str = Field(pattern=r"^[A-Za-z0-9_.:@/+-]+$", max_length=200)
    instruction: str = Field(min_length=1)
    website: str | None = None  # a local site's name, or a real website (URL or host)
    start_url: str | None = None  # a page of the local site, an absolute URL, or the website
    source: str = "user"  # builtin, webvoyager, online_mind2web, ... (webdojo.tasks.sources)
    domain: str | None = None
    subdomain: str | None = None
    difficulty: int | None = Field(default=None, ge=1, le=MAX_DIFFICULTY)
    level: Level | None = None
    rubric: Rubric | None = None
    reference_answers: list[ReferenceAnswer] = Field(default_factory=list)
    eval_rules: list[EvalRule] = Field(default_factory=list)
    verifier: _as_json_text(Verifier | None) = None  # type: ignore[valid-type]
    solution: _as_json_text(list[SolutionStep]) = Field(default_factory=list)  # type: ignore[valid-type]
    wrong_solutions: _as_json_text(list[list[SolutionStep]]) = Field(default_factory=list)  # type: ignore[valid-type]
    parent_id: str | None = None  # the task this one was decomposed from
    step_cap: int | None = Field(default=None, ge=1)
    tags: list[str] = Field(default_factory=list)
    meta: _as_json_text(dict[str, Any]) = Field(default_factory=dict)  # type: ignore[valid-type]

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return upgrade_task(data)
        return data

    @field_validator("domain")
    @classmethod
    def _domain(cls, value: str | None) -> str | None:
        return None if value is None else canonical_domain(value)

    @model_validator(mode="after")
    def _consistent(self) -> Task:
        if self.subdomain is not None:
            sub, domain = canonical_subdomain(self.subdomain)
            if self.domain is not None and self.domain != domain:
                raise ValueError(f"subdomain {sub!r} belongs to {domain!r}, not {self.domain!r}")
            object.__setattr__(self, "subdomain", sub)
            object.__setattr__(self, "domain", domain)
        if self.rubric is not None:
            n = self.rubric.n_facts()
            if n > MAX_DIFFICULTY:
                raise ValueError(f"rubric has {n} facts; at most {MAX_DIFFICULTY}")
            if self.difficulty is not None and self.difficulty != n:
                raise ValueError(f"difficulty {self.difficulty} != {n} facts in the rubric")
            object.__setattr__(self, "difficulty", n)
        if self.difficulty is not None:
            level = difficulty_level(self.difficulty)
            if self.level is not None and self.level != level:
                raise ValueError(
                    f"level {self.level!r} != {level!r} (difficulty {self.difficulty})"
                )
            object.__setattr__(self, "level", level)
        return self

    @property
    def max_steps(self) -> int:
        """The step cap: ``step_cap``, else WebGym's 10 / 20 / 30 for easy / medium / hard
        (medium when the level is unknown)."""
        return self.step_cap or STEP_CAPS[self.level or "medium"]

    @property
    def local_site(self) -> str | None:
        """The local site this task runs on (its start is a page path), else None."""
        if self.website is None or self.start_url is None or is_absolute_url(self.start_url):
            return None
        return self.website

    def facts(self) -> list[str]:
        return [] if self.rubric is None else [f for g in self.rubric.fact_groups for f in g.facts]


def is_absolute_url(text: str) -> bool:
    return text.startswith(("http://", "https://", "about:"))


def upgrade_task(data: dict[str, Any]) -> dict[str, Any]:
    """A task dict of an older schema version as the current version (see the module doc)."""
    version = data.get("schema_version", 1 if "site" in data or "start" in data else None)
    if version is None or version == TASK_SCHEMA_VERSION:
        return data
    if not isinstance(version, int) or version > TASK_SCHEMA_VERSION:
        raise ValueError(
            f"schema_version {version!r}: written by a newer webdojo (this one reads up to "
            f"{TASK_SCHEMA_VERSION}); upgrade webdojo to read it"
        )
    data = dict(data)
    data["website"] = data.pop("site", None)
    data["start_url"] = data.pop("start", None)
    data.setdefault("source", "builtin")
    data["schema_version"] = TASK_SCHEMA_VERSION
    return data


STEP_CAPS = {"easy": 10, "medium": 20, "hard": 30}


def difficulty_level(difficulty: int) -> Level:
    if difficulty <= 3:
        return "easy"
    if difficulty <= 6:
        return "medium"
    return "hard"


class SiteInfo(_Strict):
    """``site.json`` at the top of a site directory."""

    name: str = Field(pattern=r"^[a-z0-9_-]+$")
    title: str
    description: str
    style: str  # a few words on the visual style, e.g. "dark, dense, monospace"
    capabilities: list[str] = Field(min_length=1)  # e.g. ["search", "filters", "cart"]
    pages: list[str] = Field(min_length=1)  # every page `sites check` should load
