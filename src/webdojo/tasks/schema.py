"""The task file format (pydantic, ``extra="forbid"``): tasks, rubrics, verifiers, solutions.

A task::

    {
      "id": "shop.cart-lamp",
      "site": "shop",
      "instruction": "Add the brass desk lamp to your cart.",
      "start": "index.html",                      # path inside the site, or an absolute URL
      "rubric": {"fact_groups": [{"id": 1, "facts": ["the brass desk lamp is in the cart"]}]},
      "verifier": {"checks": [{"kind": "storage", "key": "shop.cart", "path": "0.sku",
                                "op": "eq", "value": "lamp-brass"}]},
      "solution": [{"type": "click", "target": {"html_id": "add-lamp-brass"}}, {"type": "stop"}],
      "wrong_solutions": [[{"type": "click", "target": {"html_id": "add-lamp-steel"}},
                           {"type": "stop"}]]
    }

Difficulty is WebGym's: the number of facts in the rubric (1-10). A ``difficulty`` field may be
given and must then agree.

Solutions are lists of actions written as action dicts, except that element actions name their
element with a ``target`` (a DOM id, or a role and accessible name) instead of a numeric id:
ids are only known once the page is observed, so the scripted policy resolves targets against
each observation's element list.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_DIFFICULTY = 10


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FactGroup(_Strict):
    id: int
    facts: list[str] = Field(min_length=1)


class Rubric(_Strict):
    """WebGym's rubric: groups of facts that a successful trajectory must establish."""

    fact_groups: list[FactGroup] = Field(min_length=1)

    def n_facts(self) -> int:
        return sum(len(g.facts) for g in self.fact_groups)


# --- verifier checks (all must pass) -----------------------------------------------------

AnswerMatch = Literal["exact", "contains", "regex", "number", "any_of"]


class AnswerCheck(_Strict):
    """Compare the final answer. Text is normalized (case, whitespace, punctuation at the ends)
    before ``exact``/``contains``/``any_of``; ``number`` parses the first number in the answer and
    compares within ``tolerance``."""

    kind: Literal["answer"] = "answer"
    match: AnswerMatch = "exact"
    value: str | float | None = None
    values: list[str] | None = None  # for any_of: any of these is right
    tolerance: float = 0.0


StorageOp = Literal["eq", "ne", "contains", "not_contains", "in", "gte", "lte", "exists",
                    "missing", "len_eq", "len_gte"]  # fmt: skip


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


class Task(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]+$", max_length=200)
    site: str
    instruction: str = Field(min_length=1)
    start: str  # path inside the site directory (e.g. "index.html") or an absolute URL
    rubric: Rubric
    verifier: Verifier
    solution: list[SolutionStep] = Field(min_length=1)
    wrong_solutions: list[list[SolutionStep]] = Field(default_factory=list)
    difficulty: int | None = Field(default=None, ge=1, le=MAX_DIFFICULTY)
    tags: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _difficulty_is_fact_count(self) -> Task:
        n = self.rubric.n_facts()
        if not 1 <= n <= MAX_DIFFICULTY:
            raise ValueError(f"rubric has {n} facts; difficulty must be 1-{MAX_DIFFICULTY}")
        if self.difficulty is not None and self.difficulty != n:
            raise ValueError(f"difficulty {self.difficulty} != {n} facts in the rubric")
        object.__setattr__(self, "difficulty", n)
        return self

    @property
    def level(self) -> str:
        """WebGym's buckets: easy (1-3), medium (4-6), hard (7+)."""
        return difficulty_level(self.difficulty or 1)

    @property
    def max_steps(self) -> int:
        """WebGym's final step caps: 10 / 20 / 30 for easy / medium / hard."""
        return STEP_CAPS[self.level]


STEP_CAPS = {"easy": 10, "medium": 20, "hard": 30}


def difficulty_level(difficulty: int) -> str:
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
