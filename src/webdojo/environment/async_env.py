"""``AsyncEnv``: one task as a Gymnasium-style environment, on asyncio.

    env = await webdojo.make_async("admin.deactivate-priya")
    obs, info = await env.reset(seed=0)
    obs, reward, terminated, truncated, info = await env.step("click(element=12)")
    await env.aclose()

A thin shell around the episode's rules (``EpisodeCore``): it opens a fresh browser session
per episode (in this process, or on a ``webdojo serve`` server), performs each action, and
asks the core whether the episode is over. ``step`` takes an ``Action`` or a model's reply in
one of our formats, parsed (never executed); a reply that does not parse, or an action the
page refuses, is shown to the agent in the next observation (``info["error"]``) and the
episode goes on, as in ``webdojo run``.

Rewards come from the task's verifier, once, when the episode ends: 1.0 or 0.0. A task
without a verifier (one a judge scores later) ends with reward 0.0 and ``info["verifier"]``
None. An episode that ends in an environment or infrastructure fault (a crashed page, a dead
browser, a lost session) is never scored: ``step`` closes the session and raises the typed
error (``webdojo.errors``), so that a trainer drops the episode instead of learning a 0.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from webdojo.actions import Action
from webdojo.browser.options import SessionOptions
from webdojo.errors import AgentError, StateError, WebdojoError, from_info
from webdojo.observation import ErrorInfo, Observation, ObservationOptions
from webdojo.parsing import parse
from webdojo.rollout.env_client import EnvClient, EnvSession
from webdojo.rollout.episode import fault_info
from webdojo.tasks.episode_core import EpisodeCore
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult

StepResult = tuple[Observation, float, bool, bool, dict[str, Any]]


@dataclass
class EnvOptions:
    """How ``make`` built the environment (see ``webdojo.make`` for each)."""

    observation: ObservationOptions = field(default_factory=ObservationOptions)
    session: SessionOptions = field(default_factory=SessionOptions)
    format: str = "funcall"  # how ``step`` reads a model's text
    max_steps: int | None = None  # None: the task's step cap


class AsyncEnv:
    """One task; a fresh browser session per episode. Not safe to share between concurrent
    callers: make one environment per rollout worker (they share the browser)."""

    def __init__(
        self, task: Task, client: EnvClient, options: EnvOptions, on_close: Any = None
    ) -> None:
        self.task = task
        self.options = options
        self._client = client
        self._on_close = on_close  # async callable: releases what make acquired
        self._session: EnvSession | None = None
        self._core: EpisodeCore | None = None
        self._seed: int | None = None
        self.closed = False

    @property
    def max_steps(self) -> int:
        return self.options.max_steps or self.task.max_steps

    # --- the Gymnasium calls -------------------------------------------------------------

    async def reset(self, seed: int | None = None) -> tuple[Observation, dict[str, Any]]:
        """Start a new episode (closing the one before). ``seed`` is the episode's seed
        (MiniWoB++ pages draw their instance from it); None takes the next one."""
        self._require_open()
        await self._end_session()
        self._seed = seed if seed is not None else (0 if self._seed is None else self._seed + 1)
        self._core = EpisodeCore(self.task, max_steps=self.max_steps)
        session, obs = await self._client.open(
            self.task, self.options.observation, self.options.session, seed=self._seed
        )
        self._session = session
        self._core.opened(obs)
        return obs, self._info(obs, None)

    async def step(self, action: Action | str) -> StepResult:
        """Act (an ``Action``, or model text in ``options.format``) and observe. Returns
        (observation, reward, terminated, truncated, info); raises the episode's fault."""
        core, session = self._running()
        parsed, error = self._read(action)
        try:
            if parsed is None:  # nothing to do: show the parse error with a fresh observation
                obs = await session.observe(self.options.observation)
                obs = obs.model_copy(update={"last_error": error})
            else:
                obs = await session.step(parsed, self.options.observation)
        except WebdojoError as exc:
            await self._fault(core, fault_info(exc))
            raise
        reason = core.stepped(parsed, error or obs.last_error, obs)
        if reason is EndReason.FAULT:
            assert core.fatal is not None
            await self._fault(core, core.fatal)
            raise from_info(core.fatal)
        reward, result = 0.0, None
        if reason is not None:
            result = await self._verify(core, session)
            reward = float(result.passed) if result is not None else 0.0
            await self._end_session()
        info = self._info(obs, error or obs.last_error, reason=reason, result=result)
        terminated = reason in (EndReason.STOPPED, EndReason.DONE)
        return obs, reward, terminated, reason is EndReason.STEP_CAP, info

    async def aclose(self) -> None:
        """Close the episode's session and give back the shared browser (idempotent)."""
        if self.closed:
            return
        self.closed = True
        try:
            await self._end_session()
        finally:
            if self._on_close is not None:
                await self._on_close()

    async def __aenter__(self) -> AsyncEnv:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # --- internals -----------------------------------------------------------------------

    def _require_open(self) -> None:
        if self.closed:
            raise StateError("the environment is closed")

    def _running(self) -> tuple[EpisodeCore, EnvSession]:
        self._require_open()
        if self._core is None or self._session is None or self._core.over:
            raise StateError("no episode is running: call reset() first")
        return self._core, self._session

    def _read(self, action: Action | str) -> tuple[Action | None, ErrorInfo | None]:
        """The action, or why the model's text is not one (shown to the agent)."""
        if not isinstance(action, str):
            return action, None
        try:
            return parse(action, self.options.format).action, None
        except AgentError as exc:  # a parse error or an invalid action: the agent's to fix
            return None, exc.info()

    async def _verify(self, core: EpisodeCore, session: EnvSession) -> VerifyResult | None:
        """The verifier's result where the final state is (here, or on the server)."""
        try:
            _, result = await session.verify(self.task, core.answer)
        except WebdojoError as exc:
            await self._fault(core, fault_info(exc))
            raise
        return result

    async def _fault(self, core: EpisodeCore, error: ErrorInfo) -> None:
        if not core.over:
            core.fail(error)
        await self._end_session()

    async def _end_session(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(Exception):  # a dead browser's session is gone already
                await session.aclose()

    def _info(
        self,
        obs: Observation,
        error: ErrorInfo | None,
        *,
        reason: EndReason | None = None,
        result: VerifyResult | None = None,
    ) -> dict[str, Any]:
        core = self._core
        assert core is not None
        return {
            "task_id": self.task.id,
            "instruction": self.task.instruction,
            "seed": self._seed,
            "step": core.steps,
            "max_steps": self.max_steps,
            "url": obs.url,
            "error": None if error is None else error.model_dump(mode="json"),
            "done_reason": None if reason is None else reason.value,
            "answer": core.answer,
            "verifier": None if result is None else result.model_dump(),
        }
