"""Programmatic verifiers: pure functions of a task and the episode's FinalState.

They never touch a browser, so a stored episode can be re-verified at any time.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from webdojo.errors import PageCrashed
from webdojo.observation import FinalState
from webdojo.tasks.schema import AnswerCheck, Check, StorageCheck, Task, TextCheck, UrlCheck
from webdojo.tasks.squad import best_scores

_MISSING = object()
_NUMBER_RE = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


class VerifyResult(BaseModel):
    """The task's programmatic verifier on a final state: one form from the verifier to the
    wire (``verifier`` of a step's info and of ``/final_state``) and the episode record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    reasons: list[str] = Field(default_factory=list)  # one per check: "ok: ..." or "fail: ..."


def verify(task: Task, state: FinalState) -> VerifyResult | None:
    """Run every check of the task's verifier; the task passes when all pass. None when the
    task has no programmatic verifier (imported tasks: a judge scores them). A crashed
    page's state cannot be verified: ``PageCrashed`` (a fault, never a 0)."""
    if state.crashed:
        raise PageCrashed("the page had crashed at the end of the episode: nothing to verify")
    if task.verifier is None:
        return None
    reasons = []
    passed = True
    for check in task.verifier.checks:
        ok, why = run_check(check, state)
        passed &= ok
        reasons.append(f"{'ok' if ok else 'fail'}: {why}")
    return VerifyResult(passed=passed, reasons=reasons)


def run_check(check: Check, state: FinalState) -> tuple[bool, str]:
    if isinstance(check, AnswerCheck):
        return _answer(check, state.answer)
    if isinstance(check, StorageCheck):
        return _storage(check, state.storage)
    if isinstance(check, UrlCheck):
        return _url(check, state.url)
    return _text(check, state.text)


# --- answers ------------------------------------------------------------------------------


def normalize_text(text: str) -> str:
    """Case-fold, NFKC, collapse whitespace, strip quotes and punctuation at the ends."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = " ".join(text.split())
    return text.strip(" \t\"'`.,;:!?()[]{}")


def first_number(text: str) -> float | None:
    match = _NUMBER_RE.search(text)
    return None if match is None else float(match.group().replace(",", ""))


def _answer(check: AnswerCheck, answer: str | None) -> tuple[bool, str]:
    if answer is None:
        return False, "the agent never gave an answer"
    got = normalize_text(answer)
    want = check.value
    if check.match == "number":
        number = first_number(answer)
        ok = (
            number is not None and want is not None and abs(number - float(want)) <= check.tolerance
        )
        return ok, f"answer number {number} vs {want} (±{check.tolerance:g})"
    if check.match == "regex":
        ok = re.search(str(want), answer, re.IGNORECASE) is not None
        return ok, f"answer {answer!r} against /{want}/"
    if check.match == "em":
        exact, f1 = best_scores(answer, check.values or [])
        shown = ", ".join(repr(v) for v in check.values or [])
        return exact, f"answer {answer!r} vs golden [{shown}]: exact match {exact}, F1 {f1:.3f}"
    if check.match == "any_of":
        options = [normalize_text(v) for v in check.values or []]
        return got in options, f"answer {got!r} in {options}"
    target = normalize_text(str(want))
    if check.match == "contains":
        return target in got, f"answer {got!r} contains {target!r}"
    return got == target, f"answer {got!r} equals {target!r}"


# --- storage ------------------------------------------------------------------------------


def follow_path(value: Any, path: str) -> Any:
    """Walk ``a.0.b``/``-1``/``*`` through JSON; returns _MISSING where the path breaks."""
    if not path:
        return value
    head, _, rest = path.partition(".")
    if head == "*":
        if not isinstance(value, list):
            return _MISSING
        return [follow_path(item, rest) for item in value]
    if isinstance(value, list):
        try:
            return follow_path(value[int(head)], rest)
        except (ValueError, IndexError):
            return _MISSING
    if isinstance(value, dict) and head in value:
        return follow_path(value[head], rest)
    return _MISSING


def _compare(op: str, got: Any, want: Any) -> bool:
    if op == "exists":
        return got is not _MISSING
    if op == "missing":
        return got is _MISSING
    if got is _MISSING:
        return False
    if op in {"len_eq", "len_gte"}:
        if not hasattr(got, "__len__"):
            return False
        return len(got) == want if op == "len_eq" else len(got) >= want
    if op in {"contains", "not_contains"}:
        found = _contains(got, want)
        return found if op == "contains" else not found
    return _ORDERED_OPS[op](got, want)


def _contains(got: Any, want: Any) -> bool:
    if isinstance(got, str):
        return normalize_text(str(want)) in normalize_text(got)
    if isinstance(got, list | dict):
        return want in got
    return False


def _safe_order(fn: Any) -> Any:
    def run(got: Any, want: Any) -> bool:
        try:
            return bool(fn(got, want))
        except TypeError:
            return False

    return run


_ORDERED_OPS = {
    "eq": lambda got, want: got == want,
    "ne": lambda got, want: got != want,
    "in": _safe_order(lambda got, want: got in want),
    "gte": _safe_order(lambda got, want: got >= want),
    "lte": _safe_order(lambda got, want: got <= want),
}


def _storage(check: StorageCheck, storage: dict[str, Any]) -> tuple[bool, str]:
    root = storage.get(check.key, _MISSING)
    got = _MISSING if root is _MISSING else follow_path(root, check.path)
    ok = _compare(check.op, got, check.value)
    shown = "<missing>" if got is _MISSING else _short(got)
    where = check.key + (f".{check.path}" if check.path else "")
    return ok, f"{where} = {shown} {check.op} {_short(check.value)}"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- url and text -------------------------------------------------------------------------


def _url(check: UrlCheck, url: str) -> tuple[bool, str]:
    ok = {
        "contains": lambda: check.value in url,
        "endswith": lambda: url.endswith(check.value),
        "equals": lambda: url == check.value,
        "regex": lambda: re.search(check.value, url) is not None,
    }[check.op]()
    return ok, f"url {url!r} {check.op} {check.value!r}"


def _text(check: TextCheck, text: str) -> tuple[bool, str]:
    found = normalize_text(check.value) in normalize_text(text)
    ok = found if check.op == "contains" else not found
    return ok, f"page text {check.op} {check.value!r}"
