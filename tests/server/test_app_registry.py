"""The registry's bookkeeping, without a browser: step indices, admission, leases, tombstones."""

from __future__ import annotations

import pytest

from webdojo.actions import Scroll
from webdojo.errors import (
    Overloaded,
    SessionClosed,
    SessionExpired,
    SessionLost,
    StateError,
    StepConflict,
    UnknownSession,
)
from webdojo.observation import Observation, ObservationOptions
from webdojo.server.api.registry import Registry, SessionRecord, SessionState
from webdojo.tasks.episode_core import EpisodeCore
from webdojo.tasks.episode_rules import EndReason
from webdojo.wire.protocol import StepInfo, StepRequest, StepResponse


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _response(index: int, done: bool = False) -> StepResponse:
    obs = Observation(
        url="about:blank", title="", tabs=[], viewport_width=1280, viewport_height=720
    )
    return StepResponse(step_index=index, observation=obs, done=done, info=StepInfo())


def _record(session_id: str = "s1", max_steps: int | None = None) -> SessionRecord:
    return SessionRecord(
        id=session_id,
        worker="w",
        observation=ObservationOptions(),
        core=EpisodeCore(None, max_steps=max_steps),
    )


def _step(index: int, direction: str = "down") -> StepRequest:
    return StepRequest(step_index=index, action=Scroll(direction=direction))


def test_step_indices_replay_the_last_and_refuse_the_rest() -> None:
    record = _record()
    assert record.replay(_step(0)) is None  # the next one: do it
    with pytest.raises(StateError) as caught:
        record.replay(_step(1))
    assert caught.value.details == {"expected": 0, "got": 1}
    first = _response(0)
    record.record(_step(0), first)
    assert record.replay(_step(0)) is first  # a retry: the same response
    assert record.replay(_step(1)) is None
    with pytest.raises(StateError):
        record.replay(_step(5))


def test_a_used_index_with_another_request_is_a_conflict_not_a_replay() -> None:
    record = _record()
    first = _response(0)
    record.record(_step(0), first)
    for other in (
        _step(0, "up"),  # another action
        StepRequest(step_index=0, text="scroll(down)", format="qwen"),  # the same, as text
        StepRequest(step_index=0, action=Scroll(direction="down"), observation={"axtree": "full"}),
    ):
        with pytest.raises(StepConflict) as caught:
            record.replay(other)
        assert caught.value.code == "step_conflict" and isinstance(caught.value, StateError)
        assert caught.value.details == {"step_index": 0, "expected": 1}
    assert record.replay(_step(0)) is first and record.next_index == 1  # nothing changed


def test_done_sessions_replay_but_never_step_again() -> None:
    record = _record()
    last = _response(0, done=True)
    record.record(_step(0), last)
    assert record.state is SessionState.DONE
    assert record.replay(_step(0)) is last
    with pytest.raises(StateError, match="over"):
        record.replay(_step(1))


def test_step_cap_is_the_episode_cores() -> None:
    # the record holds the episode's core; whether a step reached the cap is the core's to say
    obs = _response(0).observation
    capped = _record(max_steps=3).core
    assert [capped.stepped(None, None, obs) for _ in range(3)] == [None, None, EndReason.STEP_CAP]
    uncapped = _record().core  # a session opened at a URL: no cap
    assert all(uncapped.stepped(None, None, obs) is None for _ in range(1_000))


def test_admission_counts_live_and_pending_sessions() -> None:
    registry = Registry(max_sessions=2, idle_ttl_s=60)
    registry.add(_record("a"))
    with registry.admit(retry_after_s=3):
        with pytest.raises(Overloaded) as caught, registry.admit(retry_after_s=3):
            pass
        assert caught.value.details["retry_after_s"] == 3
    with registry.admit(retry_after_s=1):  # the pending slot was released
        registry.add(_record("b"))
    with pytest.raises(Overloaded), registry.admit(retry_after_s=1):
        pass
    registry.get("b").state = SessionState.LOST  # lost sessions hold no browser
    with registry.admit(retry_after_s=1):
        pass


def test_ended_sessions_are_remembered_for_precise_errors() -> None:
    registry = Registry(max_sessions=10, idle_ttl_s=60)
    for name in ("a", "b", "c"):
        registry.add(_record(name))
    registry.end("a", SessionState.CLOSED)
    registry.end("b", SessionState.EXPIRED)
    with pytest.raises(SessionClosed):
        registry.get("a")
    with pytest.raises(SessionExpired):
        registry.get("b")
    with pytest.raises(UnknownSession):
        registry.get("never")
    forgetful = Registry(max_sessions=10, idle_ttl_s=60, tombstones=0)  # (test_tombstones.py)
    forgetful.add(_record("c"))
    forgetful.end("c", SessionState.CLOSED)
    with pytest.raises(UnknownSession):
        forgetful.get("c")


async def test_leases_expire_only_when_idle() -> None:
    clock = Clock()
    registry = Registry(max_sessions=10, idle_ttl_s=5, clock=clock)
    registry.add(_record("idle"))
    registry.add(_record("busy"))
    clock.now = 4
    assert registry.idle() == []
    async with registry.use("busy"):
        clock.now = 100
        assert registry.idle() == ["idle"]  # in flight: never reaped
    assert registry.idle() == ["idle"]  # the request's end refreshed the lease
    clock.now = 106
    assert sorted(registry.idle()) == ["busy", "idle"]


def test_lost_sessions_say_so() -> None:
    record = _record()
    record.state = SessionState.LOST
    with pytest.raises(SessionLost):
        record.require_usable()
    registry = Registry(max_sessions=1, idle_ttl_s=1)
    registry.add(record)
    assert registry.counts() == {"open": 0, "done": 0, "lost": 1}
