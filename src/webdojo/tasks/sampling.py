"""Difficulty-ratio sampling (WebGym §4): draw ``n`` tasks with a given share of easy, medium
and hard tasks, give them per-level step caps, and keep the set diverse and alive.

* Ratios: ``2:5:3`` (easy:medium:hard shares), or ``uniform`` (every task equally likely,
  whatever its level), ``only-easy``, ``only-medium``, ``only-hard``. Quotas are ``n`` times
  the shares, rounded by largest remainder. A level that runs out of tasks gives what it has
  (reported as ``short``); others do not make up for it, so the ratio stays honest.
* Tasks whose level is unknown (no rubric, difficulty or level) are left out of ratio sampling
  (counted as ``unknown_level``); ``uniform`` draws them like any other.
* Step caps (``caps``, e.g. WebGym's 10/20/30 or 15/30/45) set ``step_cap`` on each sampled
  task by its level; an unknown level gets the medium cap, as ``Task.max_steps`` does.
* Websites on the blocklist (``webdojo.tasks.blocklist``, active entries only) are left out
  (their tasks counted as ``blocked``).
* Near-duplicate instructions (``webdojo.tasks.near_dup``): a drawn task whose instruction
  nearly duplicates one already sampled in this round is rejected and counted, and the next
  one is drawn.
* The effective task set size, the number of distinct tasks sampled over all rounds so far, is
  kept in a state file: ``{"version": 1, "rounds": [...], "seen": [task ids]}``.

The draw is deterministic for a given file, seed and blocklist.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from webdojo.errors import ConfigError
from webdojo.tasks.columns import Progress, TaskColumns, iter_tasks_at, read_columns
from webdojo.tasks.near_dup import DEFAULT_THRESHOLD, NearDupFilter, signatures
from webdojo.tasks.schema import LEVELS
from webdojo.tasks.task_file import write_tasks

ALL = "all"  # the one pool of uniform sampling
PRESETS: dict[str, tuple[int, int, int] | None] = {
    "uniform": None,
    "only-easy": (1, 0, 0),
    "only-medium": (0, 1, 0),
    "only-hard": (0, 0, 1),
}
CHUNK = 2048  # instructions hashed at a time
STATE_VERSION = 1


def parse_ratio(text: str) -> tuple[int, int, int] | None:
    """``2:5:3`` or a preset name (None = uniform)."""
    if text in PRESETS:
        return PRESETS[text]
    parts = text.split(":")
    try:
        ratio = tuple(int(p) for p in parts)
    except ValueError:
        ratio = ()
    if len(ratio) != 3 or min(ratio) < 0 or sum(ratio) == 0:
        raise ConfigError(
            f"ratio {text!r}: give easy:medium:hard as three whole numbers (e.g. 2:5:3), "
            f"or one of {', '.join(PRESETS)}"
        )
    return ratio[0], ratio[1], ratio[2]


def parse_caps(text: str) -> dict[str, int]:
    """``10,20,30``: the step caps of easy, medium and hard tasks."""
    try:
        caps = [int(p) for p in text.split(",")]
    except ValueError:
        caps = []
    if len(caps) != 3 or min(caps) < 1:
        raise ConfigError(f"caps {text!r}: give three positive step caps, e.g. 10,20,30")
    return dict(zip(LEVELS, caps, strict=True))


def quotas(n: int, ratio: tuple[int, int, int]) -> dict[str, int]:
    """``n`` shared by ``ratio`` (largest remainder; ties go to the easier level)."""
    total = sum(ratio)
    exact = [n * r / total for r in ratio]
    counts = [int(x) for x in exact]
    order = sorted(range(3), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    return dict(zip(LEVELS, counts, strict=True))


@dataclass
class SampleState:
    """What earlier rounds sampled (the ``--state`` file)."""

    seen: set[str] = field(default_factory=set)
    rounds: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path | None) -> SampleState:
        if path is None or not Path(path).exists():
            return cls()
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            if data.get("version") != STATE_VERSION:
                raise ValueError(f"version {data.get('version')!r}, this webdojo reads 1")
            return cls(set(data["seen"]), list(data["rounds"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{path}: not a sampling state file ({exc})") from exc

    def save(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        data = {"version": STATE_VERSION, "rounds": self.rounds, "seen": sorted(self.seen)}
        tmp.write_text(json.dumps(data) + "\n", encoding="utf-8")
        tmp.replace(path)


@dataclass
class SampleResult:
    sampled: int
    levels: dict[str, int]  # sampled per level (or {"all": n} when uniform)
    wanted: dict[str, int]
    short: dict[str, int]  # levels that ran out: how many are missing
    near_dup_rejected: int
    blocked: int  # tasks left out because their website is blocked
    unknown_level: int  # tasks left out of ratio sampling for want of a level
    new: int  # sampled tasks that no earlier round sampled
    effective_size: int  # distinct tasks sampled over all rounds
    round: int
    seed: int
    chosen: list[int] = field(default_factory=list)  # indices into the columns
    out: Path | None = None

    def to_json(self) -> dict[str, Any]:
        # every field but the indices, which only the sampler needs
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "chosen"}
        data["out"] = None if self.out is None else str(self.out)
        return data


def _pools(
    columns: TaskColumns, ratio: tuple[int, int, int] | None, blocked_sites: set[str]
) -> tuple[dict[str, list[int]], int, int]:
    """(pool name -> task indices, blocked tasks, unknown-level tasks left out)."""
    pools: dict[str, list[int]] = {ALL: []} if ratio is None else {lv: [] for lv in LEVELS}
    blocked = unknown = 0
    for i, (site, level) in enumerate(zip(columns.sites, columns.levels, strict=True)):
        if site in blocked_sites:
            blocked += 1
        elif ratio is None:
            pools[ALL].append(i)
        elif level is None:
            unknown += 1
        else:
            pools[level].append(i)
    return pools, blocked, unknown


def _draw(
    columns: TaskColumns, pool: list[int], quota: int, rng: random.Random, dups: NearDupFilter
) -> tuple[list[int], int]:
    """Up to ``quota`` tasks of ``pool`` in random order, skipping near-duplicates:
    (chosen, rejected)."""
    assert columns.instructions is not None
    order = pool[:]
    rng.shuffle(order)
    chosen: list[int] = []
    rejected = 0
    for start in range(0, len(order), CHUNK):
        if len(chosen) >= quota:
            break
        chunk = order[start : start + CHUNK]
        sigs, bands = signatures([columns.instructions[i] for i in chunk])
        band_rows = bands.tolist()
        for k, i in enumerate(chunk):
            if dups.offer(sigs[k], band_rows[k]) is None:
                chosen.append(i)
                if len(chosen) >= quota:
                    break
            else:
                rejected += 1
    return chosen, rejected


def plan_sample(
    columns: TaskColumns,
    n: int,
    ratio: tuple[int, int, int] | None,
    *,
    seed: int = 0,
    blocked_sites: set[str] | None = None,
    state: SampleState | None = None,
    dup_threshold: float = DEFAULT_THRESHOLD,
) -> SampleResult:
    """Choose the sample (``result.chosen``); ``state`` is updated with it."""
    if n < 1:
        raise ConfigError(f"--n {n}: sample at least one task")
    if not 0 < dup_threshold <= 1:
        raise ConfigError(f"near-duplicate threshold {dup_threshold}: give a number in (0, 1]")
    state = state if state is not None else SampleState()
    pools, blocked, unknown = _pools(columns, ratio, blocked_sites or set())
    wanted = {ALL: n} if ratio is None else quotas(n, ratio)
    rng = random.Random(seed)
    dups = NearDupFilter(dup_threshold)
    chosen: list[int] = []
    levels: dict[str, int] = {}
    rejected = 0
    for name, pool in pools.items():
        got, skipped = _draw(columns, pool, wanted[name], rng, dups) if wanted[name] else ([], 0)
        chosen += got
        levels[name] = len(got)
        rejected += skipped
    ids = [columns.ids[i] for i in chosen]
    new = sum(1 for task_id in ids if task_id not in state.seen)
    state.seen.update(ids)
    state.rounds.append(
        {"seed": seed, "n": n, "sampled": len(ids), "new": new, "effective_size": len(state.seen)}
    )
    return SampleResult(
        sampled=len(chosen),
        levels=levels,
        wanted=wanted,
        short={k: wanted[k] - levels[k] for k in wanted if levels[k] < wanted[k]},
        near_dup_rejected=rejected,
        blocked=blocked,
        unknown_level=unknown,
        new=new,
        effective_size=len(state.seen),
        round=len(state.rounds),
        seed=seed,
        chosen=sorted(chosen),
    )


def sample_file(
    path: Path,
    out: Path,
    n: int,
    ratio: tuple[int, int, int] | None,
    *,
    seed: int = 0,
    caps: dict[str, int] | None = None,
    blocked_sites: set[str] | None = None,
    state_path: Path | None = None,
    dup_threshold: float = DEFAULT_THRESHOLD,
    progress: Progress | None = None,
) -> SampleResult:
    """Sample a task file into ``out`` (tasks in file order, with step caps when ``caps``);
    with ``state_path``, read and update the rounds so far."""
    path, out = Path(path), Path(out)
    state = SampleState.load(state_path)
    columns = read_columns(path, instructions=True, progress=progress)
    result = plan_sample(
        columns,
        n,
        ratio,
        seed=seed,
        blocked_sites=blocked_sites,
        state=state,
        dup_threshold=dup_threshold,
    )
    lines = [columns.lines[i] for i in result.chosen]
    tasks = iter_tasks_at(path, lines)
    if caps is not None:
        tasks = (t.model_copy(update={"step_cap": caps[t.level or "medium"]}) for t in tasks)
    write_tasks(out, tasks)
    if state_path is not None:
        state.save(state_path)
    result.out = out
    return result
