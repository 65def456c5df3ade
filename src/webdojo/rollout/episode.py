"""One episode: a task, a fresh browser session, a policy, until stop or the step cap.

``EpisodeRun`` holds one episode's state and exposes its phases (``start``, ``decide``,
``apply``, ``finish``/``fail``) so that both engines drive the same code: the async engine runs
them back to back (``run_episode``), the sync baseline runs each phase for a whole batch before
the next (``webdojo.rollout.sync_engine``).

Records are written as they happen (each step as it ends, the episode at the end), so an
interrupted run keeps every step it took. Faults are classified, never silently scored:

* agent faults (unparseable text, invalid action) are shown to the model and the episode goes on;
* an env fault at the start page (``start_page_failed``: it answered 4xx/5xx), a start URL
  the network policy refuses (``bad_start_url``, the task's fault), an infra fault anywhere,
  or a step whose page crashed (the rules of ``webdojo.tasks.episode_rules``) ends the
  episode with ``fault`` set and ``reward`` None, so that trainers can drop it instead of
  scoring it 0.

The rules (counting steps, when the episode is over and why, the stop's answer) are the
``EpisodeCore``'s (``webdojo.tasks.episode_core``), the one the server and ``webdojo.make``
use too; this module adds the I/O: the session, the policy and the records. Verification
happens once, where the final state is: the session's ``verify`` (in this process for local
browsers, on the server for ``HttpEnv``). The record keeps that final state
so that ``webdojo verify`` can check the reward again without a browser.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
import uuid
from dataclasses import dataclass
from enum import StrEnum

from webdojo.actions import Action
from webdojo.errors import AgentError, BadStartUrl, InternalError, StateError, WebdojoError
from webdojo.history import Decision, Step
from webdojo.observation import ErrorInfo, FinalState, Observation, ObservationOptions
from webdojo.policies.base import Policy
from webdojo.rollout.env_client import EnvClient, EnvSession
from webdojo.store.records import (
    EpisodeRecord,
    StepRecord,
    Target,
)
from webdojo.store.run_store import RunStore
from webdojo.tasks.episode_core import EpisodeCore
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult


@dataclass(frozen=True)
class EpisodeSpec:
    task: Task
    key: str  # stable across resumes: task id + repeat index
    max_steps: int
    seed: int = 0  # the episode's seed for the policy and the page (see ``episode_seed``)
    repeat: int = 0  # which attempt at the task this is (pass@k, GRPO groups): ``key``'s index


def episode_seed(run_seed: int, key: str) -> int:
    """A stable 31-bit seed per episode: the same for a key in every run with this seed,
    different for each repeat of a task."""
    digest = hashlib.sha256(f"{run_seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


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
        self.core = EpisodeCore(spec.task, max_steps=spec.max_steps)  # the episode's rules
        self.state = EpisodeState.NEW
        self.options: ObservationOptions = policy.observation_options()
        self.session: EnvSession | None = None
        self.obs: Observation | None = None
        self.url = spec.task.start_url or ""
        self.started = time.perf_counter()
        self.started_at = time.time()

    @property
    def running(self) -> bool:
        return self.state is EpisodeState.RUNNING

    # --- phases -------------------------------------------------------------------------

    async def start(self, env: EnvClient) -> None:
        self._require(EpisodeState.NEW)
        try:
            self.session, self.obs = await env.open(
                self.spec.task, self.options, seed=self.spec.seed
            )
        except AgentError as exc:
            # No agent has acted yet: a start URL the network policy (or the URL check)
            # refuses is the task's fault, never the agent's (reward None, fault config)
            raise BadStartUrl(
                f"the task's start URL was refused: {exc.message}", **exc.details
            ) from exc
        self.url = self.obs.url
        self.state = EpisodeState.RUNNING
        self._settle(self.core.opened(self.obs))

    async def decide(self) -> Decision:
        self._require(EpisodeState.RUNNING)
        assert self.obs is not None
        return await self.policy.act(self.spec.task, self.obs, self.history, seed=self.spec.seed)

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
        error = decision.error or after.last_error
        self._settle(self.core.stepped(decision.action, error, after))

    async def finish(self) -> EpisodeRecord:
        """Verify the final state (where it is: see ``EnvSession.verify``), record the
        episode, close the session. An episode ended by a fatal step error is a fault."""
        self._require(EpisodeState.OVER)
        assert self.session is not None and self.core.outcome is not None
        if not self.core.scored:
            record = self._record_end(EndReason.FAULT, None, None, self.core.fatal, self.url)
        else:
            final, verdict = await self.session.verify(self.spec.task, self.core.answer)
            record = self._record_end(self.core.outcome, verdict, final, None, final.url)
        await self._close()
        return record

    async def fail(self, exc: BaseException) -> EpisodeRecord:
        """Record the exception that ended the episode as a fault, close the session."""
        if self.state is EpisodeState.RECORDED:
            raise StateError(f"episode {self.spec.key} is already recorded") from exc
        fault = fault_info(exc)
        self.core.fail(fault)
        record = self._record_end(EndReason.FAULT, None, None, fault, self.url)
        await self._close()
        return record

    # --- internals ----------------------------------------------------------------------

    def _require(self, state: EpisodeState) -> None:
        if self.state is not state:
            raise StateError(f"episode {self.spec.key} is {self.state.value}, not {state.value}")

    def _settle(self, reason: EndReason | None) -> None:
        if reason is not None:
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
        record = StepRecord(
            episode=self.uid,
            key=self.spec.key,
            task_id=self.spec.task.id,
            step=index,
            url=obs.url,
            title=obs.title,
            viewport=(obs.viewport_width, obs.viewport_height),
            text=decision.text,
            action=decision.action,
            target=_target_of(obs, decision.action),
            memory=decision.memory,
            error=decision.error or after.last_error,
            dialogs=after.dialogs,
            screenshot=self._shot(obs),
            next_screenshot=self._shot(after),
            observation=self.store.add_observation(obs),
            policy_s=round(decision.latency_s, 4),
            env_s=round(env_s, 4),
            usage=decision.usage,
        )
        self.store.append_step(record)
        self.history.append(Step(index=index, observation=obs, decision=decision))

    def _record_end(
        self,
        outcome: EndReason,
        verdict: VerifyResult | None,
        final: FinalState | None,
        fault: ErrorInfo | None,
        url: str,
    ) -> EpisodeRecord:
        record = episode_record(
            self.spec,
            self.policy.name,
            outcome=outcome,
            uid=self.uid,
            steps=len(self.history),
            answer=self.core.answer,
            final_url=url,
            verdict=verdict,
            final=final,
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
    outcome: EndReason,
    uid: str | None,
    steps: int,
    answer: str | None,
    final_url: str,
    verdict: VerifyResult | None,
    final: FinalState | None = None,
    fault: ErrorInfo | None,
    started_at: float,
    wall_s: float,
) -> EpisodeRecord:
    """The per-episode record. ``reward`` is None whenever the episode was not verified."""
    task = spec.task
    passed = None if verdict is None else verdict.passed
    return EpisodeRecord(
        key=spec.key,
        repeat=spec.repeat,
        episode=uid,
        task_id=task.id,
        site=task.website or "",
        difficulty=task.difficulty or 0,  # 0: the task has no difficulty (no rubric, no level)
        level=task.level or "unknown",
        policy=policy_name,
        outcome=outcome,
        steps=steps,
        answer=answer,
        final_url=final_url,
        verifier=verdict,
        success=passed,
        reward=None if passed is None else float(passed),
        fault=None if fault is None else fault.fault,
        error=fault,
        final_state=final,
        started_at=started_at,
        wall_s=round(wall_s, 3),
    )


async def run_episode(
    env: EnvClient, policy: Policy, spec: EpisodeSpec, store: RunStore
) -> EpisodeRecord:
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
    if not isinstance(exc, WebdojoError):
        exc = InternalError(f"{type(exc).__name__}: {exc}")
    return exc.info()


def _target_of(obs: Observation, action: Action | None) -> Target | None:
    """The element an element action aimed at, with its box, so viewers can draw it."""
    element_id = getattr(action, "element", None)
    element = None if element_id is None else obs.find_element(element_id)
    if element is None:
        return None
    return Target(id=element.id, role=element.role, name=element.name, box=element.box)
