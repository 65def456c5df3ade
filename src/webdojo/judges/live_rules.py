"""Mind2Web-Live's rule-based evaluation (WebCanvas, Pan et al. 2024) on a stored trajectory.

A Mind2Web-Live task lists key nodes (``Task.eval_rules``): pages the agent must reach and
values it must enter. A node is matched when some step of the trajectory matches its rule; the
task is complete when every node matched, and matched / total is the key-node completion rate.

Each rule kind is read as WebCanvas's evaluation code reads it (``evaluate/step_score.py``,
``evaluate/evaluate_utils.py``), as far as a stored run allows:

* ``url_exactly_match``: over every page the agent was on (each step's URL, then the final
  URL, evidence ``len(steps)``), the percent-decoded URL equals the reference; with ``key``,
  the first value of that query parameter does. Case-sensitive, like WebCanvas.
* ``url_included_match``: the reference is part of the percent-decoded host + path (+ ``#`` +
  fragment; the query is left out, as in WebCanvas); with ``key``, part of the parameter's
  value.
* ``element_value_exactly_match`` / ``_included_match``: WebCanvas compares the value the
  agent typed into (or chose in) a form field on the rule's site. Here: the text of each
  ``type`` step and the option of each ``select`` step, on a page of the rule's site
  (``netloc``, read as WebCanvas does: ``www.imdb.com`` -> ``imdb``). Which field received it
  (the rule's ``path`` selector) cannot be told without the page's DOM, which runs do not
  store: such a match is an approximation, and the reason says so. A value set by clicking
  (WebCanvas also reads the clicked element's value) is not seen: runs keep only the clicked
  element's accessible name.
* ``cache_data_exactly_match`` / ``_included_match``: WebCanvas compares the text the agent
  recorded (its cache-data and final-answer actions), lower-cased; here the final answer.
* ``element_path_*``: unchecked (``passed`` None): the element behind a selector or xpath
  needs the page's DOM at that step.
* ``*_semantic_match``: unchecked: deciding whether text means what the rule says needs a
  model (a model judge does that).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlparse

from webdojo.actions import Select, Type
from webdojo.judges.answer_match import answer_step, unwrap_answer
from webdojo.judges.trajectory import Trajectory
from webdojo.store.verdicts import Criterion
from webdojo.tasks.schema import EvalRule

NEEDS_DOM = "needs the page's DOM at the step (an element path), which runs do not store"
NEEDS_MODEL = "a semantic match needs a model to judge the meaning: use a model judge"
Outcome = tuple[bool | None, str, list[int]]  # passed (None: unchecked), reason, evidence


@dataclass(frozen=True)
class RuleCheck:
    """One rule of the task, checked (or not) against the trajectory."""

    number: int  # 1-based position in the task's rules
    rule: EvalRule
    passed: bool | None  # None: this judge cannot check it (the reason says why)
    reason: str
    evidence: list[int]  # the step where the rule matched (len(steps): the final page)
    approximate: bool = False  # matched on less than WebCanvas reads (the reason says what)

    def criterion(self) -> Criterion:
        return Criterion(
            name=f"rule {self.number}",
            kind="rule",
            passed=self.passed,
            reason=f"{self.rule.match} {self.rule.reference!r}: {self.reason}",
            evidence=self.evidence,
        )


def check_rules(trajectory: Trajectory) -> list[RuleCheck]:
    """Every evaluation rule of the trajectory's task, in order (none without a task)."""
    rules = trajectory.task.eval_rules if trajectory.task is not None else []
    checks = []
    for number, rule in enumerate(rules, 1):
        passed, reason, evidence = check_rule(rule, trajectory)
        approximate = bool(passed) and rule.match.startswith("element_value") and bool(rule.path)
        checks.append(RuleCheck(number, rule, passed, reason, evidence, approximate))
    return checks


def check_rule(rule: EvalRule, trajectory: Trajectory) -> Outcome:
    kind = rule.match
    if kind.endswith("_semantic_match"):
        return None, NEEDS_MODEL, []
    if kind.startswith("element_path"):
        return None, NEEDS_DOM, []
    compare = _exactly if kind.endswith("_exactly_match") else _included
    if kind.startswith("url_"):
        return _url_rule(rule, trajectory, compare)
    if kind.startswith("element_value"):
        return _value_rule(rule, trajectory, compare)
    if kind.startswith("cache_data"):
        return _cache_rule(rule, trajectory, compare)
    return None, f"this judge does not know the rule kind {kind!r}", []


def completion(checks: list[RuleCheck]) -> str:
    """The key-node completion line: matched / total, with the unchecked ones counted."""
    matched = sum(c.passed is True for c in checks)
    unchecked = sum(c.passed is None for c in checks)
    line = f"key nodes: {matched}/{len(checks)} matched"
    return line + (f" ({unchecked} unchecked)" if unchecked else "")


def _exactly(value: str, reference: str) -> bool:
    return value == reference


def _included(value: str, reference: str) -> bool:
    return reference in value


# --- URL rules -------------------------------------------------------------------------------


def pages(trajectory: Trajectory) -> list[tuple[int, str]]:
    """(step, URL) of every page the agent was on: each step's page, then the final page."""
    visited = [(step.step, step.url) for step in trajectory.steps]
    return [*visited, (len(trajectory.steps), trajectory.record.final_url)]


def url_value(url: str, rule: EvalRule) -> str | None:
    """The part of ``url`` a URL rule compares (see the module docstring); None when the rule's
    query parameter is absent (or empty, which ``parse_qs`` drops, as in WebCanvas)."""
    parts = urlparse(url)
    if rule.key:
        values = parse_qs(parts.query).get(rule.key)
        return unquote(values[0]) if values else None
    if rule.match == "url_included_match":
        url = parts.netloc + parts.path + (f"#{parts.fragment}" if parts.fragment else "")
    return unquote(url)


def _url_rule(
    rule: EvalRule, trajectory: Trajectory, compare: Callable[[str, str], bool]
) -> Outcome:
    what = f"query parameter {rule.key!r}" if rule.key else "URL"
    visited = pages(trajectory)
    for step, url in visited:
        value = url_value(url, rule)
        if value is not None and compare(value, rule.reference):
            where = "the final page" if step == len(trajectory.steps) else f"step {step}"
            return True, f"the {what} of {where} matches: {value!r} ({url})", [step]
    final = url_value(visited[-1][1], rule)
    return (
        False,
        f"no page of the {len(visited)} visited matches in its {what}; the final page's: "
        + ("none" if final is None else repr(final)),
        [],
    )


# --- values typed, and the final answer ------------------------------------------------------


def site_name(url: str) -> str:
    """WebCanvas's netloc of a URL: ``www.imdb.com`` -> ``imdb``, ``zhihu.com`` -> ``zhihu``."""
    labels = urlparse(url).netloc.split(".")
    if labels[0].startswith("www"):
        return labels[1] if len(labels) > 2 else ""
    return labels[0] if len(labels) > 1 else ""


def entered_values(trajectory: Trajectory) -> list[tuple[int, str, str]]:
    """(step, page URL, value) of every value the agent typed or selected, in order."""
    found = []
    for step in trajectory.steps:
        if isinstance(step.action, Type):
            found.append((step.step, step.url, step.action.text))
        elif isinstance(step.action, Select):
            found.append((step.step, step.url, step.action.option))
    return found


def _value_rule(
    rule: EvalRule, trajectory: Trajectory, compare: Callable[[str, str], bool]
) -> Outcome:
    values = entered_values(trajectory)
    on_site = [v for v in values if not rule.netloc or site_name(v[1]) == rule.netloc]
    for step, _, value in on_site:
        if compare(value, rule.reference):
            caveat = (
                f"; which field received it (the rule names {rule.path.strip()!r}) is not "
                "checked: runs store no DOM"
                if rule.path
                else ""
            )
            return True, f"step {step} entered {value!r}{caveat}", [step]
    site = f" on {rule.netloc!r}" if rule.netloc else ""
    return (
        False,
        f"none of the {len(on_site)} value(s) the agent typed or selected{site} matches"
        + (f" ({len(values) - len(on_site)} more elsewhere)" if len(values) > len(on_site) else ""),
        [],
    )


def _cache_rule(
    rule: EvalRule, trajectory: Trajectory, compare: Callable[[str, str], bool]
) -> Outcome:
    answer = unwrap_answer(trajectory.answer or "")
    if not answer:
        return False, "the agent gave no final answer to compare", []
    if compare(answer.lower(), rule.reference.lower()):
        step = answer_step(trajectory)
        return True, f"the final answer {answer!r} matches (compared in lower case)", step
    return False, f"the final answer {answer!r} does not match (compared in lower case)", []
