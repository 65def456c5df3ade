"""One episode: a task, a fresh browser session, a policy, until stop or the step cap.

``EpisodeRun`` holds one episode's state and exposes its phases (``start``, ``decide``,
``apply``, ``finish``/``fail``) so that both engines drive the same code: the async engine runs
them back to back (``run_episode``), the sync baseline runs each phase for a whole batch before
the next (``webdojo.rollout.sync_engine``).

Records are written as they happen (each step as it ends, the episode at the end), so an
interrupted run keeps every step it took. Faults are classified, never silently scored:

* agent faults (unparseable text, invalid action) are shown to the model and the episode goes on;
* an env fault at the start page, or an infra fault anywhere, ends the episode with
  ``fault`` set and ``reward`` None, so that trainers can drop it instead of scoring it 0.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from webdojo.actions import Action, Stop
from webdojo.errors import Fault, StateError, WebdojoError
from webdojo.history import Decision, Step
from webdojo.observation import ErrorInfo, Observation, ObservationOptions
from webdojo.policies.base import Policy
from webdojo.rollout.env_client import EnvClient, EnvSession
from webdojo.store.run_store import RunStore
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult, verify


@dataclass(frozen=True)
class EpisodeSpec:
    task: Task
    key: str  # stable across resumes: task id + repeat index
    max_steps: int


class EpisodeState(StrEnum):
    NEW = "new"  # nothing opened yet
    RUNNING = "running"  # session open; the policy acts
    OVER = "over"  # stopped or at the step cap; ``finish`` verifies and records it
    RECORDED = "recorded"  # the episode record is written; the session is closed


class EpisodeRun:
    """Mutable state of one running episode. Phases must be called in order:
    ``start``, then ``decide``/``apply`` while ``running``, then ``finish``; ``fail`` at any
    point records a fault instead."""

    def __init__(self, spec: EpisodeSpec, policy: Policy, store: RunStore) -> None:
        self.spec = spec
        self.policy = policy
        self.store = store
        self.uid = uuid.uuid4().hex[:12]
        self.history: list[Step] = []
        self.answer: str | None = None
        self.outcome: str | None = None  # stopped | step_cap once OVER
        self.state = EpisodeState.NEW
        self.options: ObservationOptions = policy.observation_options()
        self.session: EnvSession | None = None
        self.obs: Observation | None = None
        self.url = spec.task.start
        self.started = time.perf_counter()
        self.started_at = time.time()

    @property
    def running(self) -> bool:
        return self.state is EpisodeState.RUNNING

    # --- phases -------------------------------------------------------------------------

    async def start(self, env: EnvClient) -> None:
        self._require(EpisodeState.NEW)
        self.session, self.obs = await env.open(self.spec.task, self.options)
        self.url = self.obs.url
        self.state = EpisodeState.RUNNING if self.spec.max_steps > 0 else EpisodeState.OVER
        self.outcome = None if self.running else "step_cap"

    async def decide(self) -> Decision:
        self._require(EpisodeState.RUNNING)
        assert self.obs is not None
        return await self.policy.act(self.spec.task, self.obs, self.history)

    async def apply(self, decision: Decision) -> None:
        """Perform the decision (or show its parse error), record the step, and end the
        episode on a successful stop or at the step cap."""
        self._require(EpisodeState.RUNNING)
        assert self.session is not None and self.obs is not None
        started = time.perf_counter()
        if decision.action is None:
            after = (await self.session.observe(self.options)).model_copy(
                update={"last_error": decision.error}
            )
        else:
            after = await self.session.step(decision.action, self.options)
        self._record_step(self.obs, decision, after, time.perf_counter() - started)
        self.obs, self.url = after, after.url
        if isinstance(decision.action, Stop) and after.last_error is None:
            self.answer = decision.action.answer
            self._end("stopped")
        elif len(self.history) >= self.spec.max_steps:
            self._end("step_cap")

    async def finish(self) -> dict[str, Any]:
        """Read the final state, verify, record the episode, close the session."""
        self._require(EpisodeState.OVER)
        assert self.session is not None and self.outcome is not None
        final = await self.session.final_state(self.answer)
        record = self._record_end(self.outcome, verify(self.spec.task, final), None, final.url)
        await self._close()
        return record

    async def fail(self, exc: BaseException) -> dict[str, Any]:
        """Record the exception that ended the episode as a fault, close the session."""
        if self.state is EpisodeState.RECORDED:
            raise StateError(f"episode {self.spec.key} is already recorded") from exc
        record = self._record_end("fault", None, fault_info(exc), self.url)
        await self._close()
        return record

    # --- internals ----------------------------------------------------------------------

    def _require(self, state: EpisodeState) -> None:
        if self.state is not state:
            raise StateError(f"episode {self.spec.key} is {self.state.value}, not {state.value}")

    def _end(self, outcome: str) -> None:
        self.outcome = outcome
        self.state = EpisodeState.OVER

    async def _close(self) -> None:
        if self.session is not None:
            # Best effort: the episode record is written, and a session that cannot close is
            # gone already (its browser or server died); nothing here may end the engine.
            with contextlib.suppress(Exception):
                await self.session.aclose()
            self.session = None

    def _shot(self, obs: Observation) -> str | None:
        if obs.screenshot is None:
            return None
        return self.store.add_screenshot(
            obs.screenshot, obs.image_format.value.replace("jpeg", "jpg")
        )

    def _record_step(
        self, obs: Observation, decision: Decision, after: Observation, env_s: float
    ) -> None:
        index = len(self.history)
        error = decision.error or after.last_error
        self.store.append_step(
            {
                "episode": self.uid,
                "key": self.spec.key,
                "task_id": self.spec.task.id,
                "step": index,
                "url": obs.url,
                "title": obs.title,
                "viewport": [obs.viewport_width, obs.viewport_height],
                "text": decision.text,
                "action": None
                if decision.action is None
                else decision.action.model_dump(mode="json"),
                "target": _target_of(obs, decision.action),
                "memory": decision.memory,
                "error": None
                if error is None
                else error.model_dump(mode="json", exclude_none=True),
                "dialogs": after.dialogs,
                "screenshot": self._shot(obs),
                "next_screenshot": self._shot(after),
                "policy_s": round(decision.latency_s, 4),
                "env_s": round(env_s, 4),
                "usage": decision.usage,
            }
        )
        self.history.append(Step(index=index, observation=obs, decision=decision))

    def _record_end(
        self, outcome: str, verdict: VerifyResult | None, fault: ErrorInfo | None, url: str
    ) -> dict[str, Any]:
        record = episode_record(
            self.spec,
            self.policy.name,
            outcome=outcome,
            uid=self.uid,
            steps=len(self.history),
            answer=self.answer,
            final_url=url,
            verdict=verdict,
            fault=fault,
            started_at=self.started_at,
            wall_s=time.perf_counter() - self.started,
        )
        self.store.append_episode(record)
        self.state = EpisodeState.RECORDED
        return record


def episode_record(
    spec: EpisodeSpec,
    policy_name: str,
    *,
    outcome: str,
    uid: str | None,
    steps: int,
    answer: str | None,
    final_url: str,
    verdict: VerifyResult | None,
    fault: ErrorInfo | None,
    started_at: float,
    wall_s: float,
) -> dict[str, Any]:
    """The per-episode record. ``reward`` is None whenever the episode was not verified."""
    task = spec.task
    passed = None if verdict is None else verdict.passed
    return {
        "key": spec.key,
        "episode": uid,
        "task_id": task.id,
        "site": task.site,
        "difficulty": task.difficulty,
        "level": task.level,
        "policy": policy_name,
        "outcome": outcome,  # stopped | step_cap | fault
        "steps": steps,
        "answer": answer,
        "final_url": final_url,
        "verifier": None if verdict is None else verdict.to_dict(),
        "success": passed,
        "reward": None if passed is None else float(passed),
        "fault": None if fault is None else fault.fault,
        "error": None if fault is None else fault.model_dump(mode="json", exclude_none=True),
        "started_at": started_at,
        "wall_s": round(wall_s, 3),
    }


async def run_episode(
    env: EnvClient, policy: Policy, spec: EpisodeSpec, store: RunStore
) -> dict[str, Any]:
    """Run one episode to the end and return its episode record (also appended to the store).

    Never raises for env/infra faults (nor for a bug in a policy): they end the episode with
    ``fault`` set. Cancellation still propagates; the session is closed on the way out."""
    run = EpisodeRun(spec, policy, store)
    try:
        await run.start(env)
        while run.running:
            await run.apply(await run.decide())
        return await run.finish()
    except Exception as exc:
        return await run.fail(exc)
    finally:
        await run._close()


def fault_info(exc: BaseException) -> ErrorInfo:
    """An exception that ended an episode, as data. Agent faults never end one, so webdojo
    errors here are env/infra (or config: a bad task); anything else is an internal error,
    counted as infra so that it is never scored."""
    if isinstance(exc, WebdojoError):
        return ErrorInfo.model_validate(exc.to_dict())
    return ErrorInfo(
        code="internal_error", fault=Fault.INFRA.value, message=f"{type(exc).__name__}: {exc}"
    )


def _target_of(obs: Observation, action: Action | None) -> dict[str, Any] | None:
    """The element an element action aimed at, with its box, so viewers can draw it."""
    element_id = getattr(action, "element", None)
    element = None if element_id is None else obs.find_element(element_id)
    if element is None:
        return None
    return {
        "id": element.id,
        "role": element.role,
        "name": element.name,
        "box": element.box.model_dump(),
    }
