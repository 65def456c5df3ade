"""What the soak sees of the server, as a client: every step the server acknowledged, every
error, every answer later than its deadline + 1 s, and the answers nearest their deadline.

``TrackedEnv`` wraps an ``HttpEnv`` and is what the engine drives (an ``EnvClient``), so the
figures come from the episodes as they ran, not from a side channel. The soak's own fault
sessions go through it too (``probe=True``: counted for lateness and errors, not as episode
steps). ``count_stored`` reads the run store back to set ``lost`` and ``duplicated`` against
the acknowledged steps.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from webdojo.actions import Action
from webdojo.browser.hung import observe_deadline, step_deadline
from webdojo.browser.options import SessionOptions
from webdojo.errors import ServerUnavailable, WebdojoError
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.rollout.http_env import HttpEnv, HttpSession
from webdojo.store.run_store import STEPS
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult

T = TypeVar("T")
# Codes that say a process fault reached a session (used to tell which worker a fault hit).
FAULT_CODES = frozenset({"page_crashed", "session_lost", "browser_closed", "infra_error"})
GRACE_S = 1.0  # an answer later than its deadline by more than this is late
TIGHTEST = 5  # answers kept of those nearest their deadline


@dataclass(frozen=True)
class Event:
    at: float  # time.monotonic()
    worker: str  # the worker's slot name (kept across its restarts)
    created: float  # when the session was created (time.monotonic())
    code: str | None = None  # an error's code; None for an acknowledged step
    session: str = ""  # the session's id


@dataclass
class Tracker:
    """Everything the tracked clients saw."""

    action_s: float  # the server's action deadline
    navigation_s: float  # the server's navigation deadline
    acked: int = 0  # episode steps acknowledged by the server (200 answers)
    probe_steps: int = 0  # steps of the soak's own fault sessions
    acks: list[Event] = field(default_factory=list)
    opens: list[Event] = field(default_factory=list)  # sessions created (a first observation)
    errors: list[Event] = field(default_factory=list)
    late: list[dict[str, object]] = field(default_factory=list)  # see ``_check``'s record
    tightest: list[dict[str, object]] = field(default_factory=list)  # least room left, first
    calls: Counter[str] = field(default_factory=Counter)
    live: dict[str, str] = field(default_factory=dict)  # open sessions: id -> worker slot
    # Answers to calls that a server restart cut through, not judged on time (see ``timed``)
    across_restart: list[dict[str, object]] = field(default_factory=list)
    server_kills: int = 0  # server kills so far
    server_down: bool = False  # killed, not serving again yet

    def killing_server(self) -> None:
        """The server is about to be killed; ``server_back`` once it serves again."""
        self.server_kills += 1
        self.server_down = True

    def server_back(self) -> None:
        """The restarted server passed its health check."""
        self.server_down = False

    def deadline(self, op: str, action: Action | None = None, *, ends: bool = False) -> float:
        """An operation's deadline, as the browser session sets it (``browser/hung.py``): a
        create is a page load then an observation; a step the action's deadline (a page
        load's for a navigation, plus the load an input may start) then an observation's,
        and for a step that ended the episode (``ends``) the final state the server then
        captures to verify it."""
        options = SessionOptions(
            action_timeout_s=self.action_s, navigation_timeout_s=self.navigation_s
        )
        if op == "create":
            return self.navigation_s + observe_deadline(options)
        if op == "step" and action is not None:
            return step_deadline(action, options) + (self.action_s if ends else 0.0)
        return self.action_s

    async def timed(
        self,
        op: str,
        call: Awaitable[T],
        deadline: float | Callable[[T | None], float],
        about: Callable[[T | None], dict[str, object]] | None = None,
    ) -> T:
        """Await ``call``; note it as late if it answered (a result or a webdojo error other
        than an unreachable server) after its deadline + ``GRACE_S``. ``deadline`` and
        ``about`` (what the late answer's record says besides) may depend on the answer,
        None for an error.

        A call that a server kill cut through is not judged on time: one in flight at the
        kill, or sent before the restarted server passed its health check (``server_back``).
        The client retried it until the new server answered (often that it does not know the
        session), so its time is the restart's, not an operation's. It is recorded in
        ``across_restart``; those sent in the restart's last moments, which the new server
        answered at once, are among them too (the soak cannot tell them apart)."""
        started = time.monotonic()
        kills = None if self.server_down else self.server_kills
        self.calls[op] += 1

        def check(answer: T | None, code: str) -> None:
            limit = deadline(answer) if callable(deadline) else deadline
            self._check(
                op, started, kills, limit, {"answer": code, **(about(answer) if about else {})}
            )

        try:
            answer = await call
        except ServerUnavailable:
            raise  # no answer at all: the server was down (a server fault is counted apart)
        except WebdojoError as exc:
            check(None, exc.code)
            raise
        check(answer, "ok")
        return answer

    def _check(
        self, op: str, started: float, kills: int | None, limit: float, about: dict[str, object]
    ) -> None:
        took = time.monotonic() - started
        record = {"op": op, "seconds": round(took, 2), "deadline_s": limit, **about}
        record["at"] = round(time.time() - took, 2)  # when it was sent, as in the fault log
        if kills != self.server_kills:  # None: sent while the server was down
            self.across_restart.append(record)
            return
        if took > limit + GRACE_S:
            self.late.append(record)
        # The answers that came nearest their deadline: how much room a loaded machine left.
        self.tightest = sorted([*self.tightest, record], key=_room)[:TIGHTEST]


def _room(record: dict[str, Any]) -> float:
    """Seconds an answer had left before its deadline (negative: past it)."""
    return float(record["deadline_s"]) - float(record["seconds"])


class TrackedEnv:
    """An ``EnvClient`` over ``HttpEnv`` that reports to a ``Tracker``."""

    def __init__(self, http: HttpEnv, tracker: Tracker, *, probe: bool = False) -> None:
        self.http = http
        self.tracker = tracker
        self.probe = probe

    async def open(
        self,
        task: Task,
        options: ObservationOptions,
        session: SessionOptions | None = None,
        *,
        seed: int | None = None,
    ) -> tuple[TrackedSession, Observation]:
        call = self.http.open(task, options, session, seed=seed)
        inner, obs = await self.tracker.timed("create", call, self.tracker.deadline("create"))
        return self._opened(inner), obs

    async def open_url(
        self, url: str, options: ObservationOptions
    ) -> tuple[TrackedSession, Observation]:
        call = self.http.open_url(url, options)
        inner, obs = await self.tracker.timed("create", call, self.tracker.deadline("create"))
        return self._opened(inner), obs

    def _opened(self, inner: HttpSession) -> TrackedSession:
        session = TrackedSession(inner, self)
        self.tracker.opens.append(session._event(None))
        return session

    async def aclose(self) -> None:
        return None  # the soak closes the HttpEnv itself


class TrackedSession:
    """An ``EnvSession`` whose steps, errors and delays are recorded."""

    def __init__(self, inner: HttpSession, env: TrackedEnv) -> None:
        self.inner = inner
        self.env = env
        self.created = time.monotonic()
        env.tracker.live[inner.id] = inner.worker

    @property
    def worker(self) -> str:
        return self.inner.worker

    def _event(self, code: str | None) -> Event:
        return Event(time.monotonic(), self.inner.worker, self.created, code, self.inner.id)

    async def step(self, action: Action, options: ObservationOptions) -> Observation:
        tracker = self.env.tracker

        def deadline(obs: Observation | None) -> float:
            # A step that ended the episode carries its final state. An error may have come
            # from that final state: the client cannot tell, so it gets the time too.
            return tracker.deadline("step", action, ends=obs is None or self.inner.done)

        def about(obs: Observation | None) -> dict[str, object]:
            last = self.inner.last
            server_ms = None if obs is None or last is None else last.info.timings_ms.get("server")
            return {
                "action": action.describe(),
                "done": obs is not None and self.inner.done,
                "server_ms": server_ms,  # the server's own time for it (None for an error)
                "worker": self.inner.worker,
            }

        try:
            obs = await tracker.timed("step", self.inner.step(action, options), deadline, about)
        except WebdojoError as exc:
            tracker.errors.append(self._event(exc.code))
            raise
        self._acked(obs)
        return obs

    async def observe(self, options: ObservationOptions) -> Observation:
        tracker = self.env.tracker
        try:
            obs = await tracker.timed("observe", self.inner.observe(options), tracker.action_s)
        except WebdojoError as exc:
            tracker.errors.append(self._event(exc.code))
            raise
        self._acked(obs)  # an episode records an observe as a step (a decision it could not use)
        return obs

    def _acked(self, obs: Observation) -> None:
        tracker = self.env.tracker
        if self.env.probe:
            tracker.probe_steps += 1
        else:
            tracker.acked += 1
        tracker.acks.append(self._event(None))
        if obs.last_error is not None and obs.last_error.code in FAULT_CODES:
            tracker.errors.append(self._event(obs.last_error.code))

    async def final_state(self, answer: str | None) -> FinalState:
        call = self.inner.final_state(answer)
        return await self.env.tracker.timed("final_state", call, self.env.tracker.action_s)

    async def verify(
        self, task: Task, answer: str | None
    ) -> tuple[FinalState, VerifyResult | None]:
        call = self.inner.verify(task, answer)
        return await self.env.tracker.timed("final_state", call, self.env.tracker.action_s)

    async def aclose(self) -> None:
        try:
            await self.env.tracker.timed("close", self.inner.aclose(), self.env.tracker.action_s)
        finally:
            self.env.tracker.live.pop(self.inner.id, None)


def count_stored(run_dir: Path) -> tuple[int, int]:
    """(step lines in the store, distinct (episode, step) pairs among them)."""
    path = run_dir / STEPS
    if not path.exists():
        return 0, 0
    total, seen = 0, set()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                total += 1
                seen.add((record["episode"], record["step"]))
    return total, len(seen)


def lost_and_duplicated(acked: int, run_dir: Path) -> tuple[int, int, int]:
    """(lost, duplicated, stored): acknowledged steps missing from the store, and store lines
    beyond one per acknowledged step (a repeated pair, or a step never acknowledged)."""
    total, distinct = count_stored(run_dir)
    lost = max(0, acked - distinct)
    duplicated = (total - distinct) + max(0, distinct - acked)
    return lost, duplicated, total
