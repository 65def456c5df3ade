"""The perturbed policy: follows a task's reference solution but fails on purpose.

Judges are calibrated against trajectories whose ground truth is known. The scripted policy gives
successes and the random policy gives failures that look nothing like success; this policy gives
the hard cases in between, trajectories that look almost right:

* ``stop_early``: replays the first ``keep`` actions of the solution (``keep`` drawn uniformly
  from 0 .. n-1, so at least one action is skipped), then stops, with no answer or with a wrong
  one;
* ``wrong_answer``: replays the whole solution but stops with a wrong answer. Only tasks whose
  verifier checks the answer get this mode; for the others a wrong answer changes nothing.

A wrong answer is, in order of preference, the final answer of one of the task's
``wrong_solutions``, the right answer mangled (digits shifted, words reversed) or "N/A"; the
first of these that the task's own answer checks reject is used, so the answer really is wrong.

The plan of an episode is a pure function of (policy seed, episode seed, task id): an episode
replays identically and each repeat of a task may fail differently. Targets are resolved like
the scripted policy's (``resolve_step``); the text of each decision is the plain action, so a
judge reading the trajectory sees nothing that gives the perturbation away.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from webdojo.actions import Stop
from webdojo.errors import ConfigError
from webdojo.history import Decision, Step
from webdojo.observation import FinalState, Observation, ObservationOptions
from webdojo.policies.scripted import follow
from webdojo.tasks.schema import AnswerCheck, SolutionStep, Task
from webdojo.tasks.verify import run_check

Mode = Literal["stop_early", "wrong_answer"]
MODES: tuple[Mode, ...] = ("stop_early", "wrong_answer")
FALLBACK_ANSWER = "N/A"


@dataclass(frozen=True)
class Plan:
    """How one episode goes wrong: replay ``keep`` solution actions, then stop with ``answer``."""

    mode: Mode
    keep: int
    answer: str  # "" for no answer


class PerturbedPolicy:
    name = "perturbed"

    def __init__(self, seed: int = 0, *, modes: Sequence[str] = MODES) -> None:
        """``modes``: the perturbations to draw from (both by default); a task that cannot take
        ``wrong_answer`` (its verifier ignores the answer) always gets ``stop_early``."""
        unknown = [m for m in modes if m not in MODES]
        if unknown or not modes:
            raise ConfigError(f"perturbed policy modes {list(modes)!r}: choose from {MODES}")
        self.seed = seed
        self.modes: tuple[Mode, ...] = tuple(m for m in MODES if m in modes)

    def observation_options(self) -> ObservationOptions:
        return ObservationOptions(elements=True)

    def plan(self, task: Task, episode_seed: int = 0) -> Plan:
        """The episode's perturbation (see the module docstring)."""
        # str seeds are hashed with SHA-512 by random.seed: stable across runs and machines
        rng = random.Random(f"{self.seed}:{episode_seed}:{task.id}:perturbed")
        actions, _ = split_solution(task.solution)
        modes: list[Mode] = [m for m in self.modes if m != "wrong_answer" or checks_answer(task)]
        if not actions and "wrong_answer" in modes:
            modes = ["wrong_answer"]  # nothing to cut short
        mode: Mode = rng.choice(modes or ["stop_early"])
        if mode == "wrong_answer":
            return Plan(mode, len(actions), wrong_answer(task, rng))
        keep = rng.randrange(len(actions)) if actions else 0
        answer = wrong_answer(task, rng) if checks_answer(task) and rng.random() < 0.5 else ""
        return Plan(mode, keep, answer)

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        plan = self.plan(task, seed)
        actions, _ = split_solution(task.solution)
        return follow(actions[: plan.keep], observation, history, Stop(answer=plan.answer))

    async def aclose(self) -> None:
        return None


def split_solution(steps: Sequence[SolutionStep]) -> tuple[list[SolutionStep], str]:
    """The solution's actions before its first stop, and that stop's answer ("" if none)."""
    for index, step in enumerate(steps):
        if step.type == "stop":
            answer = step.action_fields().get("answer", "")
            return list(steps[:index]), str(answer)
    return list(steps), ""


def answer_checks(task: Task) -> list[AnswerCheck]:
    if task.verifier is None:
        return []
    return [c for c in task.verifier.checks if isinstance(c, AnswerCheck)]


def checks_answer(task: Task) -> bool:
    return bool(answer_checks(task))


def rejected(task: Task, answer: str) -> bool:
    """Whether the task's answer checks reject ``answer`` (some check fails)."""
    state = FinalState(url="", answer=answer)
    return any(not run_check(check, state)[0] for check in answer_checks(task))


def wrong_answer(task: Task, rng: random.Random) -> str:
    """A wrong answer the task's own checks reject (see the module docstring)."""
    from_wrong = [split_solution(w)[1] for w in task.wrong_solutions]
    candidates = [a for a in from_wrong if a.strip()]
    rng.shuffle(candidates)
    right = split_solution(task.solution)[1]
    if right.strip():
        candidates.append(mangle(right))
    for candidate in candidates:
        if rejected(task, candidate):
            return candidate
    return FALLBACK_ANSWER


def mangle(answer: str) -> str:
    """A near miss: every digit shifted by one; with no digits, every word spelled backwards."""
    if any(ch.isdigit() for ch in answer):
        return "".join(str((int(ch) + 1) % 10) if ch.isdigit() else ch for ch in answer)
    return " ".join(word[::-1] for word in answer.split())
