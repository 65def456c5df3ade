"""Verdict lines in every way judge models write them."""

from __future__ import annotations

import pytest

from webdojo.judges.verdict_text import (
    ALL_LABELS,
    BINARY,
    cited_steps,
    read_verdict,
    read_yes_no,
)
from webdojo.models.ask import ReplyRejected

READS = [
    ("1. Analysis: the cart shows it.\n2. Verdict: SUCCESS", "success"),
    ("2. Verdict: NOT SUCCESS", "failure"),
    ("Verdict: NOT SUCCESS", "failure"),
    ("**Verdict:** success", "success"),
    ("2. **Verdict**: NOT SUCCESS", "failure"),
    ("**Verdict**: **NOT SUCCESS**", "failure"),
    ("verdict: success", "success"),
    ("VERDICT: FAILURE", "failure"),
    ("Verdict: failed", "failure"),
    ("Verdict: Unsuccessful", "failure"),
    ("Verdict: not successful", "failure"),
    ("### Verdict - FAILURE", "failure"),
    ("- Verdict = Incorrect", "failure"),
    ("Verdict: correct", "success"),
    ("Verdict: [SUCCESS]", "success"),
    ("Verdict: `SUCCESS`.", "success"),
    ("> Verdict: SUCCESS", "success"),
    ("3) Verdict: SUCCESS", "success"),
    ("Final verdict: SUCCESS - the lamp is in the cart", "success"),
    ("Verdict: SUCCESS (step 3 shows the price)", "success"),
    ("Verdict: SUCCESS - the agent did not fail or give up", "success"),
    ("Verdict: NOT SUCCESS, although the search itself was a success", "failure"),
    ("Verdict:\n**NOT SUCCESS**", "failure"),
    ("The analysis - in short - holds.\nVerdict: SUCCESS", "success"),
    ("Verdict: SUCCESS\nsome more words\n2. Verdict: success", "success"),  # repeated, agreeing
    ("Analysis: the cart is empty.\n\n**NOT SUCCESS**\n\n", "failure"),  # bare last line
    ("SUCCESS", "success"),
]


@pytest.mark.parametrize(("text", "label"), READS)
def test_verdict_lines_read(text: str, label: str) -> None:
    assert read_verdict(text).value == label
    assert read_verdict(text, ALL_LABELS).value == label


@pytest.mark.parametrize(
    "text",
    ["Verdict: WEBSITE FAILURE", "Verdict: website failure", "**Verdict:** WEBSITE_FAILURE",
     "verdict: Website-Failure", "Verdict: website failed"],
)  # fmt: skip
def test_website_failure_is_a_third_label_where_allowed(text: str) -> None:
    assert read_verdict(text, ALL_LABELS).value == "website_failure"
    with pytest.raises(ReplyRejected, match="not an answer to this question"):
        read_verdict(text, BINARY)


REJECTED = [
    ("The agent did well overall.", "no Verdict line found"),
    ("", "no Verdict line found"),
    ("Therefore the verdict is that it worked", "no Verdict line found"),
    ("Verdict: maybe", "is not one of the answers"),
    ("Verdict: SUCCESS or NOT SUCCESS", "names more than one answer"),
    ("2. Verdict: [SUCCESS/NOT SUCCESS]", "names more than one answer"),
    ("Verdict: SUCCESS' or 'Verdict: NOT SUCCESS'", "names more than one answer"),
    ("2. Verdict: [SUCCESS if the fact is shown, NOT SUCCESS otherwise]", "more than one answer"),
    ("Verdict: SUCCESS\nOn reflection...\nVerdict: NOT SUCCESS", "contradictory verdicts"),
    ("**Verdict:** success\n2. Verdict: FAILURE", "contradictory verdicts"),
]


@pytest.mark.parametrize(("text", "problem"), REJECTED)
def test_unreadable_replies_say_what_to_write(text: str, problem: str) -> None:
    with pytest.raises(ReplyRejected, match=problem) as caught:
        read_verdict(text)
    if "contradictory" not in problem:
        assert "end your reply with the line 'Verdict: SUCCESS'" in str(caught.value)


def test_a_contradiction_names_both_lines() -> None:
    with pytest.raises(ReplyRejected) as caught:
        read_verdict("Verdict: SUCCESS\nhm\nVerdict: NOT SUCCESS")
    assert "(line 1)" in str(caught.value) and "(line 3)" in str(caught.value)


def test_the_reason_is_the_reply_without_its_verdict_line() -> None:
    reading = read_verdict("1. Analysis: the cart shows the lamp.\n2. Verdict: SUCCESS")
    assert reading.reason == "the cart shows the lamp."
    assert read_verdict("Verdict: SUCCESS").reason == "(no reason given)"


YES_NO = [
    ("Reason: shows the cart.\nRelevant: YES", "Relevant", "yes"),
    ("relevant: no", "Relevant", "no"),
    ("**Relevant:** Yes.", "Relevant", "yes"),
    ("2. **Blocked**: NO", "Blocked", "no"),
    ("Blocked: yes - a captcha on every page", "Blocked", "yes"),
    ("Agrees: [NO]", "Agrees", "no"),
    ("Reason: same\n\nYES", "Agrees", "yes"),
]


@pytest.mark.parametrize(("text", "label", "value"), YES_NO)
def test_yes_no_answers(text: str, label: str, value: str) -> None:
    assert read_yes_no(text, label).value == value


@pytest.mark.parametrize(
    ("text", "problem"),
    [("Reason: hard to say", "no Relevant line"), ("Relevant: perhaps", "not one of the answers"),
     ("Relevant: YES\nRelevant: NO", "contradictory"), ("Relevant: YES or NO", "more than one")],
)  # fmt: skip
def test_unreadable_yes_no(text: str, problem: str) -> None:
    with pytest.raises(ReplyRejected, match=problem):
        read_yes_no(text, "Relevant")


def test_cited_steps_are_the_shown_steps_a_reply_names() -> None:
    shown = [0, 2, 3, 5]
    assert cited_steps("step 3 and steps 0, 2 show it; step 9 is not shown", shown) == [0, 2, 3]
    assert cited_steps("Step 5 shows the cart.", shown) == [5]
    assert cited_steps("the screenshots show it", shown) == shown
    assert cited_steps("a CAPTCHA on steps 1-3", shown) == [2, 3]
    assert cited_steps("steps 2 to 5", shown) == [2, 3, 5]
