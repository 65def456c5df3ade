"""Reading the verdict out of a judge model's reply, in every way models write it.

Judges ask the model to end with a labelled line (``Verdict: SUCCESS``, ``Relevant: YES``).
Models comply loosely: a number in front (``2. Verdict: NOT SUCCESS``), markdown
(``**Verdict:** success``, ``### Verdict - FAILURE``), the template's brackets
(``Verdict: [SUCCESS]``), lower case, underscores (``WEBSITE_FAILURE``), a reason after the
word (``SUCCESS - the cart shows the lamp``), or only the bare word on the last line. All of
these read. What does not read raises ``ReplyRejected`` with a message the model is shown
before it answers again: no verdict line, a word that is not one of the answers, the template
echoed (``SUCCESS or NOT SUCCESS``), or two lines that disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from webdojo.models.ask import ReplyRejected

JudgeLabel = Literal["success", "failure", "website_failure"]
ALL_LABELS: tuple[JudgeLabel, ...] = ("success", "failure", "website_failure")
BINARY: tuple[JudgeLabel, ...] = ("success", "failure")

# Words (normalized: lower case, spaces) that open a verdict value, most specific first so that
# "not success" is never read as "success" and "website failure" never as "failure".
_VERDICT_WORDS: tuple[tuple[str, JudgeLabel], ...] = (
    ("website failure", "website_failure"),
    ("website failed", "website_failure"),
    ("not successful", "failure"),
    ("not success", "failure"),
    ("unsuccessful", "failure"),
    ("incorrect", "failure"),
    ("failure", "failure"),
    ("failed", "failure"),
    ("fail", "failure"),
    ("successful", "success"),
    ("success", "success"),
    ("correct", "success"),
    ("passed", "success"),
    ("pass", "success"),
)
_YES_NO_WORDS: tuple[tuple[str, bool], ...] = (
    ("yes", True),
    ("no", False),
    ("true", True),
    ("false", False),
    ("y", True),
    ("n", False),
)
SHOWN = {"success": "SUCCESS", "failure": "NOT SUCCESS", "website_failure": "WEBSITE FAILURE"}

# "2. **Verdict**: x", "### Final verdict - x", "- Verdict = x": a line's label and its value.
_LINE = re.compile(
    r"^[\s>#*_`\-]*(?:\(?\d+[.)]\s*)?[\s*_`]*(?P<label>[A-Za-z][A-Za-z _-]{0,40}?)[\s*_`]*"
    r"(?::|=|-|–|—)[\s*_`]*(?P<value>.*)$"
)
_EDGE = "*_`#[](){}<>\"'“”.,;!: \t"


@dataclass(frozen=True)
class Reading:
    """What a reply says: the value of its verdict line and the reason given with it."""

    value: str  # a JudgeLabel, or "yes"/"no" for yes/no questions
    reason: str  # the reply's explanation, in one paragraph (the verdict line left out)


def _norm(text: str) -> str:
    text = re.sub(r"(?<=[A-Za-z])-(?=[A-Za-z])", " ", text.replace("_", " "))  # Website-Failure
    return " ".join(text.strip(_EDGE).lower().split())


def _labelled(text: str, labels: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """``(line number, line of the value, value)`` of every line labelled one of ``labels``."""
    wanted = {_norm(label) for label in labels}
    lines = text.splitlines()
    found = []
    for number, line in enumerate(lines, 1):
        match = _LINE.match(line)
        if match is None:
            continue
        label = _norm(match["label"])
        if label.startswith("final "):
            label = label[len("final ") :]
        if label in wanted:
            at, value = number, match["value"]
            if not _norm(value):  # "**Verdict:**" with the word on the next line
                at, value = next(
                    ((n, ln) for n, ln in enumerate(lines[number:], number + 1) if _norm(ln)),
                    (number, ""),
                )
            found.append((number, at, value))
    return found


def _word(value: str, words: tuple[tuple[str, object], ...]) -> object | None:
    """The meaning of the word ``value`` starts with; None when it starts with none. A value
    that offers another answer as an alternative ("SUCCESS or NOT SUCCESS", "SUCCESS' or
    'Verdict: NOT SUCCESS", "SUCCESS if ..., NOT SUCCESS otherwise": the template echoed) is
    rejected rather than read as its first word."""
    norm = _norm(value)
    for word, meaning in words:
        if norm == word or re.match(rf"{re.escape(word)}\b", norm):
            rest = re.sub(r"[\"'`*\[\]]", " ", norm[len(word) :])
            others = "|".join(re.escape(w) for w, m in words if m != meaning)
            offered = rf"(?:\bor\b|/|\|)\s*(?:verdict\s*:?\s*)?(?:{others})\b"
            if re.search(offered, rest) or re.search(rf"\b(?:{others})\s+otherwise\b", rest):
                raise ReplyRejected(
                    f"the verdict line {value.strip()!r} names more than one answer; "
                    "give exactly one"
                )
            return meaning
    return None


_REASON_LABEL = re.compile(
    r"^(?:\d+[.)]\s*)?[*_]*(?:reason(?:ing)?|analysis|explanation)[*_]*\s*:[*_]*\s*", re.I
)


def _reason(text: str, skip: set[int]) -> str:
    lines = [
        _REASON_LABEL.sub("", line.strip().strip("*#> "))
        for number, line in enumerate(text.splitlines(), 1)
        if number not in skip and line.strip()
    ]
    reason = " ".join(line for line in lines if line) or "(no reason given)"
    return reason if len(reason) <= 600 else reason[:597] + "..."


def _read(
    text: str, labels: tuple[str, ...], words: tuple[tuple[str, object], ...], expect: str
) -> tuple[object, str]:
    values: list[tuple[int, str, object]] = []
    used: set[int] = set()
    for number, at, value in _labelled(text, labels):
        try:
            meaning = _word(value, words)
        except ReplyRejected as exc:
            raise ReplyRejected(f"{exc}, and {expect}") from None
        if meaning is None:
            raise ReplyRejected(
                f"line {number} {value.strip()!r} is not one of the answers; {expect}"
            )
        values.append((number, value.strip(), meaning))
        used |= {number, at}
    if not values:
        lines = text.splitlines()
        number = max((n for n, ln in enumerate(lines, 1) if _norm(ln)), default=0)
        last = lines[number - 1] if number else ""
        bare = _word(last, words) if len(_norm(last).split()) <= 3 else None
        if bare is None:
            raise ReplyRejected(f"no {labels[0]} line found; {expect}")
        return bare, _reason(text, {number})
    distinct = {meaning for _, _, meaning in values}
    if len(distinct) > 1:
        shown = " and ".join(f"{v!r} (line {n})" for n, v, _ in values)
        raise ReplyRejected(f"contradictory verdicts: {shown}; give one verdict only, {expect}")
    return values[0][2], _reason(text, used)


def read_verdict(
    text: str, allowed: tuple[JudgeLabel, ...] = BINARY, label: str = "Verdict"
) -> Reading:
    """The verdict of a reply (``allowed``: the labels this question accepts)."""
    expect = "end your reply with the line " + " or ".join(
        f"'{label}: {SHOWN[a]}'" for a in allowed
    )
    meaning, reason = _read(text, (label,), _VERDICT_WORDS, expect)
    assert isinstance(meaning, str)
    if meaning not in allowed:
        raise ReplyRejected(f"{SHOWN[meaning]!r} is not an answer to this question; {expect}")
    return Reading(meaning, reason)


def read_yes_no(text: str, label: str) -> Reading:
    """The yes/no answer on the line ``label: YES`` (``Relevant``, ``Blocked``, ``Agrees``)."""
    expect = f"end your reply with the line '{label}: YES' or '{label}: NO'"
    meaning, reason = _read(text, (label,), _YES_NO_WORDS, expect)
    return Reading("yes" if meaning else "no", reason)


_STEP_REF = re.compile(r"\bsteps?\s+(\d+(?:\s*(?:,|and|&|-|to)\s*\d+)*)", re.I)


def cited_steps(text: str, shown: list[int]) -> list[int]:
    """The shown steps a reply names ("step 3", "steps 2 and 5"); every shown step when it
    names none (the verdict rests on all the images it saw)."""
    cited: set[int] = set()
    for match in _STEP_REF.finditer(text):
        for part in re.split(r"\s*(?:,|and|&)\s*", match.group(1)):
            ends = [int(n) for n in re.findall(r"\d+", part)]  # "3" or a range "1-3"
            if len(ends) == 2 and 0 <= ends[1] - ends[0] <= 1000:
                cited.update(range(ends[0], ends[1] + 1))
            else:
                cited.update(ends)
    picked = sorted(cited & set(shown))
    return picked or sorted(set(shown))


def as_label(value: str) -> JudgeLabel:
    """A ``read_verdict`` reading's value as the label it is."""
    for label in ALL_LABELS:
        if value == label:
            return label
    raise ValueError(f"{value!r} is not a verdict label")
