"""A simulated VLM agent and its workload, for measuring rollout systems without a GPU.

What costs what. In a real rollout the model runs on other machines (vLLM / SGLang on GPUs);
for the rollout machine a policy call is a request that comes back seconds later and costs no
CPU. The browsers are what cost CPU here. So ``SimulatedVLMPolicy`` sleeps (``asyncio.sleep``)
for a latency drawn like a VLM call's, and then acts on a real browser, on the built-in sites,
so that every env step is real work and every episode is verified like any other.

Why this workload is realistic:

* **Latency** (``LatencyModel``): lognormal, median 2 s, sigma 0.6 (mean 2.4 s, p90 4.3 s,
  p99 8 s). WebGym's agent is Qwen3-VL-8B with one 1280x720 screenshot per step (about 1-1.5k
  image tokens in a 2-4k token prompt with its memory) and it writes about 1,100 characters
  (~270 tokens) per step (its §5.2). An 8B model in bf16 on an H100, batching a few dozen
  sequences, decodes about 130-180 tokens/s per sequence: ~1.8 s, plus ~0.2 s of prefill.
  Output lengths vary several-fold between steps (a bare click vs a long memory update) and
  requests queue behind others in the server's batch, which gives the heavy right tail; a
  lognormal with sigma 0.5-0.7 is the usual fit for LLM serving latencies. Each call's latency
  is a pure function of (seed, episode, step), so the async engine and the sync baseline see
  exactly the same latencies. The model server is not a bottleneck here (the engine may cap
  concurrent calls); we measure the rollout machine, as WebGym's CPU-bound runs did.
* **Horizons** (``HorizonModel``): WebGym's trajectories average 7.8 / 9.9 / 11.9 steps on easy /
  medium / hard tasks, with modes at 3.7 / 4.9 / 5.5 (its §3.4, Figure 4): strongly right-skewed.
  For a lognormal, mean / mode = exp(1.5 sigma^2), which gives sigma = 0.69-0.72 for all three
  levels; we use 0.7. The horizon is capped by the task's step cap (WebGym's 10 / 20 / 30) and the
  median is solved so that the *capped* mean hits WebGym's mean (for easy tasks, the cap of 10
  then holds about 45% of episodes: a cap of 10 with a mean of 7.8 forces that).
* **Actions**: the episode follows the task's reference solution (so episodes are real and
  verifiable), padded with the in-page actions agents take between useful ones (scrolling to
  look around, hovering over the next target) until the sampled horizon. When the horizon is
  shorter than the solution, the agent gives up (stops with "N/A") or runs into the step cap:
  those episodes fail verification, as most agent episodes do (WebGym's agents succeed on
  26-43% of test tasks).
* **Difficulty mix** (``sample_workload``): WebGym's uniform sampling gives about 25 : 5 : 1
  easy : medium : hard (§5.3); tasks are drawn from the built-in set with those level weights.

Each workload task carries its episode key in a tag (``episode:<key>``) so that the policy's
plan for an episode is a pure function of (seed, key), whichever engine runs it and in
whatever order.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from webdojo.actions import Action, Hover, Scroll, Stop
from webdojo.errors import InvalidActionError
from webdojo.history import Decision, Step
from webdojo.observation import ErrorInfo, Observation, ObservationOptions
from webdojo.policies.scripted import resolve_step
from webdojo.rollout.episode import EpisodeSpec
from webdojo.tasks.schema import SolutionStep, Task

HORIZON_MEANS = {"easy": 7.8, "medium": 9.9, "hard": 11.9}  # WebGym §3.4
HORIZON_SIGMA = 0.7  # from WebGym's mean / mode ratios (see the module docstring)
UNIFORM_MIX = {"easy": 25.0, "medium": 5.0, "hard": 1.0}  # WebGym §5.3, uniform sampling
EPISODE_TAG = "episode:"


@dataclass(frozen=True)
class LatencyModel:
    """Seconds one policy call takes, as seen by the rollout machine."""

    median_s: float = 2.0  # see the module docstring
    sigma: float = 0.6  # lognormal shape: the heavier the tail, the worse lock-step gets
    max_s: float = 30.0  # a client-side timeout: no call takes longer

    def sample(self, rng: random.Random) -> float:
        return min(self.max_s, rng.lognormvariate(math.log(self.median_s), self.sigma))

    def mean(self) -> float:
        return self.median_s * math.exp(self.sigma**2 / 2)


@dataclass(frozen=True)
class HorizonModel:
    """Steps per episode (the final stop included) by level: a rounded lognormal, capped."""

    means: dict[str, float] = field(default_factory=lambda: dict(HORIZON_MEANS))
    sigma: float = HORIZON_SIGMA

    def probabilities(self, level: str, cap: int) -> tuple[float, ...]:
        """P(horizon = h) for h = 1..cap."""
        return _calibrated(self.means[level], self.sigma, cap)

    def mean(self, level: str, cap: int) -> float:
        return sum(h * p for h, p in enumerate(self.probabilities(level, cap), 1))

    def sample(self, level: str, cap: int, rng: random.Random) -> int:
        probs = self.probabilities(level, cap)
        return rng.choices(range(1, cap + 1), weights=probs)[0]


@lru_cache(maxsize=64)
def _calibrated(target: float, sigma: float, cap: int) -> tuple[float, ...]:
    """The capped, rounded lognormal whose mean is ``target`` (bisection on its log-median)."""
    target = min(target, cap)
    lo, hi = -5.0, math.log(cap) + 5 * sigma
    for _ in range(60):
        mid = (lo + hi) / 2
        probs = _capped_lognormal(mid, sigma, cap)
        if sum(h * p for h, p in enumerate(probs, 1)) < target:
            lo = mid
        else:
            hi = mid
    return _capped_lognormal((lo + hi) / 2, sigma, cap)


def _capped_lognormal(mu: float, sigma: float, cap: int) -> tuple[float, ...]:
    def cdf(x: float) -> float:
        return 0.5 * (1 + math.erf((math.log(x) - mu) / (sigma * math.sqrt(2))))

    edges = [0.0] + [cdf(h + 0.5) for h in range(1, cap)] + [1.0]
    return tuple(edges[i + 1] - edges[i] for i in range(cap))


@dataclass(frozen=True)
class EpisodePlan:
    """What the simulated agent does at each step: ``solve`` (the next solution step), a
    padding move (``scroll``, ``hover``), or ``give_up`` (stop with "N/A")."""

    horizon: int
    moves: tuple[str, ...]


def make_plan(task: Task, horizon: int, rng: random.Random) -> EpisodePlan:
    """Interleave the reference solution with padding moves to fill ``horizon`` steps."""
    n = len(task.solution)  # its last step is the stop
    if horizon >= n:
        pads = [rng.choice(("scroll", "hover")) for _ in range(horizon - n)]
        middle = ["solve"] * (n - 1) + pads
        rng.shuffle(middle)
        return EpisodePlan(horizon, (*middle, "solve"))
    if horizon >= task.max_steps:  # the step cap ends it mid-solution
        return EpisodePlan(horizon, ("solve",) * horizon)
    return EpisodePlan(horizon, ("solve",) * (horizon - 1) + ("give_up",))


def episode_key(task: Task) -> str:
    """The key a workload put in the task's tags, else the task id."""
    tag = next((t for t in task.tags if t.startswith(EPISODE_TAG)), None)
    return task.id if tag is None else tag[len(EPISODE_TAG) :]


class SimulatedVLMPolicy:
    """Sleeps like a VLM call, then acts on the real page (see the module docstring)."""

    name = "simulated"

    def __init__(
        self,
        seed: int = 0,
        latency: LatencyModel | None = None,
        horizons: HorizonModel | None = None,
    ) -> None:
        self.seed = seed
        self.latency = latency or LatencyModel()
        self.horizons = horizons or HorizonModel()

    def observation_options(self) -> ObservationOptions:
        # the element list is what set-of-marks agents get; it also resolves solution targets
        return ObservationOptions(elements=True)

    def plan(self, task: Task) -> EpisodePlan:
        rng = random.Random(f"{self.seed}:{episode_key(task)}:plan")
        horizon = self.horizons.sample(task.level or "medium", task.max_steps, rng)
        return make_plan(task, horizon, rng)

    def call_latency(self, task: Task, step: int) -> float:
        return self.latency.sample(random.Random(f"{self.seed}:{episode_key(task)}:{step}"))

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        start = time.perf_counter()
        step = len(history)
        await asyncio.sleep(self.call_latency(task, step))
        moves = self.plan(task).moves
        move = moves[step] if step < len(moves) else "give_up"
        action, error = self._choose(task, move, observation, history)
        return Decision(
            text=f"(simulated) {action.describe()}" if action else f"(simulated) {move}",
            action=action,
            error=error,
            memory={"move": move},
            latency_s=time.perf_counter() - start,
        )

    def _choose(
        self, task: Task, move: str, obs: Observation, history: Sequence[Step]
    ) -> tuple[Action | None, ErrorInfo | None]:
        solved = sum(1 for s in history if s.decision.action is not None and _move_of(s) == "solve")
        if move == "give_up" or solved >= len(task.solution):
            return Stop(answer="N/A"), None
        if move == "scroll":
            scrolls = sum(1 for s in history if _move_of(s) == "scroll")
            return Scroll(direction="up" if scrolls % 2 else "down"), None
        if move == "hover":
            return _hover_next(task.solution[solved], obs), None
        try:
            return resolve_step(task.solution[solved], obs), None
        except InvalidActionError as exc:  # the page is not there yet: a wasted step
            return None, exc.info()

    async def aclose(self) -> None:
        return None


def _hover_next(step: SolutionStep, obs: Observation) -> Action:
    """Hover over the next solution step's element; a small scroll when it has none here."""
    try:
        element = getattr(resolve_step(step, obs), "element", None)
    except InvalidActionError:
        element = None
    if element is None:
        return Scroll(direction="down", amount=200)
    return Hover(element=element)


def _move_of(step: Step) -> str | None:
    memory = step.decision.memory
    return memory.get("move") if isinstance(memory, dict) else None


def sample_workload(
    tasks: Sequence[Task],
    episodes: int,
    seed: int = 0,
    mix: dict[str, float] | None = None,
) -> list[EpisodeSpec]:
    """``episodes`` episodes: a level drawn with ``mix``'s weights (WebGym's uniform 25:5:1 by
    default; levels absent from ``tasks`` are dropped), then a task of that level uniformly.
    Each task copy carries its episode key in its tags (see ``SimulatedVLMPolicy``)."""
    weights = mix or UNIFORM_MIX
    by_level: dict[str, list[Task]] = {}
    for task in tasks:
        by_level.setdefault(task.level or "medium", []).append(task)
    levels = [lvl for lvl in weights if by_level.get(lvl)]
    if not levels:
        raise ValueError("no task of any level in the mix")
    rng = random.Random(f"{seed}:workload")
    specs = []
    for i in range(episodes):
        level = rng.choices(levels, weights=[weights[lvl] for lvl in levels])[0]
        task = rng.choice(by_level[level])
        key = f"{task.id}#{i}"
        tagged = task.model_copy(update={"tags": [*task.tags, EPISODE_TAG + key]})
        # repeat: the key's index (each draw is an attempt of its own), as v1-v3 records read it
        specs.append(EpisodeSpec(task=tagged, key=key, max_steps=task.max_steps, repeat=i))
    return specs


def expected_steps(specs: Sequence[EpisodeSpec], horizons: HorizonModel | None = None) -> float:
    """The expected number of env steps of a workload (for sizing benchmarks)."""
    model = horizons or HorizonModel()
    return sum(model.mean(s.task.level or "medium", s.max_steps) for s in specs)


__all__ = [
    "EpisodePlan",
    "HorizonModel",
    "LatencyModel",
    "SimulatedVLMPolicy",
    "expected_steps",
    "make_plan",
    "sample_workload",
]
