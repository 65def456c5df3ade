"""The episode core: the rules every shell (the rollout's EpisodeRun, the server, webdojo.make)
asks after each step, without I/O."""

from __future__ import annotations

import pytest

from webdojo.actions import Click, Stop
from webdojo.errors import StateError
from webdojo.observation import ErrorInfo, FinalState, Observation
from webdojo.tasks.episode_core import EpisodeCore
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.schema import Task

CRASH = ErrorInfo(code="page_crashed", fault="env", message="the page crashed")
PARSE = ErrorInfo(code="parse_error", fault="agent", message="no action")


def _task(max_steps: int = 3) -> Task:
    return Task.model_validate(
        {
            "id": "t.answer",
            "instruction": "Say 42.",
            "step_cap": max_steps,
            "verifier": {"checks": [{"kind": "answer", "match": "exact", "value": "42"}]},
        }
    )


def _obs(done: bool = False) -> Observation:
    return Observation(
        url="http://127.0.0.1:1/", title="", tabs=[], viewport_width=8, viewport_height=8,
        page_done=done,
    )  # fmt: skip


def test_steps_count_until_the_cap_and_a_step_after_the_end_is_refused() -> None:
    core = EpisodeCore(_task(max_steps=3))
    assert core.opened(_obs()) is None and not core.over
    reasons = [core.stepped(Click(x=1, y=1), None, _obs()) for _ in range(2)]
    reasons.append(core.stepped(None, PARSE, _obs()))  # an unparseable reply spends a step
    assert reasons == [None, None, EndReason.STEP_CAP] and core.steps == 3
    assert core.over and core.scored and core.answer is None
    with pytest.raises(StateError, match="over"):
        core.stepped(Click(x=1, y=1), None, _obs())


def test_a_stop_keeps_its_answer_and_the_verdict_is_computed_once() -> None:
    core = EpisodeCore(_task())
    assert core.stepped(Stop(answer="42"), None, _obs()) is EndReason.STOPPED
    assert core.answer == "42"
    final = FinalState(url="http://127.0.0.1:1/", answer=core.answer)
    result = core.verify(final)
    assert result is not None and result.passed
    assert core.verify(final) is result  # the same state: not verified again
    again = core.kept_final("41")  # the page cannot change after the end; the answer can
    assert again is not None and again.url == final.url
    other = core.verify(again)
    assert other is not None and not other.passed


def test_a_fault_ends_the_episode_and_is_never_verified() -> None:
    core = EpisodeCore(_task())
    assert core.stepped(Click(x=1, y=1), CRASH, _obs()) is EndReason.FAULT
    assert core.over and not core.scored and core.fatal == CRASH
    with pytest.raises(StateError, match="never verified"):
        core.verify(FinalState(url="about:blank"))
    failed = EpisodeCore(_task())
    failed.fail(CRASH)  # an exception, not a step, ended it
    assert failed.outcome is EndReason.FAULT and not failed.scored


def test_a_page_can_be_done_at_once_and_a_url_session_has_no_cap() -> None:
    assert EpisodeCore(_task()).opened(_obs(done=True)) is EndReason.DONE
    free = EpisodeCore(None)
    assert all(free.stepped(Click(x=1, y=1), None, _obs()) is None for _ in range(500))
    assert free.verify(FinalState(url="about:blank")) is None  # nothing to verify


def test_a_final_state_asked_before_the_end_is_not_kept() -> None:
    """Mid-episode the page can still change: its state is verified but not kept."""
    core = EpisodeCore(_task())
    assert core.verify(FinalState(url="http://a/", answer="42")) is not None
    assert core.kept_final("42") is None
