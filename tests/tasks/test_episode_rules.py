"""The one set of episode rules that the engines and the server share."""

from __future__ import annotations

import pytest

from webdojo.actions import Click, Stop
from webdojo.observation import ErrorInfo
from webdojo.tasks.episode_rules import EndReason, episode_end

CRASH = ErrorInfo(code="page_crashed", fault="env", message="the page crashed")
REFUSED = ErrorInfo(code="action_failed", fault="env", message="a dialog refused it")
PARSE = ErrorInfo(code="parse_error", fault="agent", message="no action")


@pytest.mark.parametrize(
    ("max_steps", "taken", "action", "error", "reason"),
    [
        (10, 1, Click(x=1, y=1), None, None),
        (10, 3, Stop(answer="42"), None, EndReason.STOPPED),
        (10, 3, Stop(), None, EndReason.STOPPED),
        (10, 3, Stop(answer="42"), REFUSED, None),  # a stop that did not go through
        (3, 3, Click(x=1, y=1), None, EndReason.STEP_CAP),
        (3, 3, None, PARSE, EndReason.STEP_CAP),  # unparseable text still spends a step
        (3, 3, Stop(answer="x"), None, EndReason.STOPPED),  # stopping at the cap counts
        (10, 2, Click(x=1, y=1), CRASH, EndReason.FAULT),  # never scored
        (3, 3, Click(x=1, y=1), CRASH, EndReason.FAULT),  # a fault beats the cap
        (0, 0, None, None, EndReason.STEP_CAP),
        (None, 500, Click(x=1, y=1), None, None),  # no task, no cap
    ],
)
def test_episode_end(
    max_steps: int | None,
    taken: int,
    action: Click | Stop | None,
    error: ErrorInfo | None,
    reason: EndReason | None,
) -> None:
    assert episode_end(max_steps=max_steps, steps_taken=taken, action=action, error=error) is reason
