"""The three papers' rules for turning scored episodes into training samples (I/O free).

* ``bc`` (WebGym: REINFORCE with binary rewards and no baseline, i.e. filtered behaviour
  cloning): every step of every successful episode, except steps whose next screenshot is
  identical (WebGym's repetition filter) and steps whose output did not parse. Only the last
  ``last_k`` iterations (runs) are in the buffer; with ``samples``, that many steps are drawn
  without replacement, each with a weight that favours recent iterations:
  ``(last_k - age) ** power`` for a run ``age`` iterations old (the newest has age 0).
* ``rft`` (BrowserAgent's rejection fine-tuning): group by task, keep the tasks with mixed
  outcomes, and take the correct trajectory with the most steps; ``sft`` rows (a share of an
  earlier selection) are mixed in by the caller.
* ``grpo`` (Weblica's Dr. GRPO): group by task (``group_size`` rollouts each when given), drop
  groups whose rewards are all equal, and give every step of a trajectory its advantage
  ``reward - group mean``, with no division by the group's standard deviation (the loss has no
  length normalization either: that is the trainer's side).

Episodes without a score (faults, website failures, blocked, unjudged) never count as failures:
they are left out with their reason before any rule runs. A reward above 0.5 is a success.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from webdojo.store.records import StepRecord
from webdojo.training.rewards import Scored
from webdojo.training.samples import Rule, Sample


@dataclass
class Selected:
    """What a rule kept (step samples) and dropped (reason -> count)."""

    samples: list[Sample] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)

    @property
    def episodes(self) -> int:
        return len({(s.run, s.episode) for s in self.samples})


@dataclass(frozen=True)
class BcSettings:
    power: float = 1.0  # recency bias: WebGym used 1 and 2
    last_k: int = 4  # iterations in the replay buffer: WebGym used the last 4 and the last 8
    samples: int | None = None  # steps drawn per iteration (WebGym: 1,200-1,800); None: all
    seed: int = 0


def _success(reward: float) -> bool:
    return reward > 0.5


def _scored(episodes: Iterable[Scored], out: Selected) -> list[Scored]:
    """The episodes with a reward; the rest are counted under their reason."""
    kept = []
    for episode in episodes:
        if episode.reward is None:
            out.dropped[episode.why or "unscored"] += 1
        else:
            kept.append(episode)
    return kept


def _steps(
    episode: Scored, rule: Rule, out: Selected, repeats: bool, **fields: float | None
) -> list[Sample]:
    """The episode's trainable steps as samples: parsed, and (unless ``repeats``) not repeated."""
    samples = []
    for step in episode.steps:
        why = _step_problem(step, repeats)
        if why is not None:
            out.dropped[why] += 1
            continue
        samples.append(
            Sample(
                rule=rule,
                run=str(episode.run),
                iteration=episode.iteration,
                key=episode.record.key,
                episode=step.episode,
                task_id=episode.task_id,
                step=step.step,
                reward=float(episode.reward or 0.0),
                **fields,
            )
        )
    return samples


def _step_problem(step: StepRecord, repeats: bool) -> str | None:
    if step.action is None:
        return "unparsed_step"  # its text is not an action: nothing to imitate
    if not repeats and step.repeated:
        return "repeated_step"  # WebGym: the next screenshot is identical
    return None


def select_bc(episodes: list[Scored], settings: BcSettings) -> Selected:
    out = Selected()
    newest = max((e.iteration for e in episodes), default=0)
    pool: list[Sample] = []
    for episode in _scored(episodes, out):
        age = newest - episode.iteration
        if age >= settings.last_k:
            out.dropped["older_than_buffer"] += 1
        elif not _success(episode.reward or 0.0):
            out.dropped["failure"] += 1
        else:
            weight = float((settings.last_k - age) ** settings.power)
            pool += _steps(episode, "bc", out, repeats=False, weight=weight)
    out.samples = _draw(pool, settings)
    out.dropped["not_sampled_step"] += len(pool) - len(out.samples)
    return _tidy(out)


def _draw(pool: list[Sample], settings: BcSettings) -> list[Sample]:
    """``settings.samples`` of the pool without replacement, by recency weight (seeded)."""
    if settings.samples is None or settings.samples >= len(pool):
        return pool
    import numpy as np  # here: `webdojo train loop`'s options import this module at CLI start

    weights = np.array([s.weight for s in pool], dtype=float)
    rng = np.random.default_rng(settings.seed)
    chosen = rng.choice(len(pool), size=settings.samples, replace=False, p=weights / weights.sum())
    return [pool[i] for i in sorted(chosen)]


def _groups(episodes: list[Scored]) -> dict[str, list[Scored]]:
    groups: dict[str, list[Scored]] = {}
    for episode in episodes:
        groups.setdefault(episode.task_id, []).append(episode)
    return groups


def select_rft(episodes: list[Scored]) -> Selected:
    out = Selected()
    for group in _groups(_scored(episodes, out)).values():
        correct = [e for e in group if _success(e.reward or 0.0)]
        if len(correct) in (0, len(group)):
            out.dropped["uniform_group"] += len(group)
            continue
        best = max(correct, key=lambda e: len(e.steps))  # the first among equals
        out.dropped["not_chosen"] += len(group) - 1
        out.samples += _steps(best, "rft", out, repeats=True)
    return _tidy(out)


def select_grpo(episodes: list[Scored], group_size: int | None = None) -> Selected:
    out = Selected()
    for group in _groups(_scored(episodes, out)).values():
        group.sort(key=lambda e: e.record.repeat)
        if group_size is not None:
            if len(group) < group_size:
                out.dropped["incomplete_group"] += len(group)
                continue
            out.dropped["beyond_group_size"] += len(group) - group_size
            group = group[:group_size]
        rewards = [e.reward or 0.0 for e in group]
        if len(set(rewards)) == 1:
            out.dropped["uniform_group"] += len(group)  # no signal: every advantage is 0
            continue
        mean = sum(rewards) / len(rewards)
        for episode, reward in zip(group, rewards, strict=True):
            out.samples += _steps(episode, "grpo", out, repeats=True, advantage=reward - mean)
    return _tidy(out)


def _tidy(out: Selected) -> Selected:
    out.dropped = Counter({k: v for k, v in out.dropped.items() if v})
    return out
