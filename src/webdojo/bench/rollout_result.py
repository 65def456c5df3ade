"""The rollout bench's data: what a run is asked to do (``RolloutBenchConfig``), what it found
(``RolloutBenchResult``: the legs' figures, their ratios, the CPU ceiling) and the targets
the ratios are read against (``TARGETS``). ``rollout_bench`` runs the legs;
``rollout_report`` renders the result as a table.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from webdojo.bench.ratios import paired_ratio
from webdojo.bench.rollout_legs import RolloutLeg, Saturation
from webdojo.bench.simulated import LatencyModel
from webdojo.errors import ConfigError

TARGETS = {
    "async_over_sync": 4.0,  # env steps/s over the whole async run, tail included
    "async_over_sync_steady": 4.0,  # the same, async in its steady phase (a long rollout)
    "server_over_raw": 0.90,
    "server_latency_ratio": 1.10,
}


@dataclass(frozen=True)
class RolloutBenchConfig:
    episodes: int = 160  # the workload (async legs run all of it)
    in_flight: int = 32  # async episodes in flight; also the sync batch size
    policy_calls: int | None = None  # concurrent model calls (None: one per episode in flight)
    env_calls: int = 4  # concurrent env operations: 2 cores saturate at about 4 sessions
    sync_batches: int | None = 1  # batches the sync baseline runs (None: the whole workload)
    latency_median_s: float = 2.0  # simulated VLM call (see webdojo.bench.simulated)
    latency_sigma: float = 0.6
    seed: int = 0
    saturation_sessions: int = 8  # busy sessions for the raw / server throughput legs
    saturation_warmup_s: float = 1.0
    saturation_s: float = 6.0  # measured window per saturation leg and round
    saturation_rounds: int = 3  # rounds per contender, taking turns; the median is reported
    latency_steps: int = 30  # low-load steps per side (in-process vs server)
    queue_duration_s: float | None = 5.0  # per queue mode; None skips the queue comparison
    queue_sessions: tuple[int, int] = (24, 4)  # (slow navigating, fast clicking) sessions
    server: bool = True  # run the server legs
    server_workers: int = 0  # `webdojo serve --workers`; 0 = sessions in the server process

    def __post_init__(self) -> None:
        for name in (
            "episodes",
            "in_flight",
            "env_calls",
            "saturation_sessions",
            "saturation_rounds",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.latency_median_s <= 0 or self.server_workers < 0:
            raise ConfigError("the latency median must be > 0 and server workers >= 0")

    @classmethod
    def quick(cls) -> RolloutBenchConfig:
        """A CI-sized smoke run (a minute or two on 2 idle cores): too small and too short to
        be CPU-bound, so its ratios are not the benchmark's figures."""
        return cls(
            episodes=8,
            in_flight=4,
            env_calls=2,
            latency_median_s=1.0,
            saturation_sessions=4,
            saturation_warmup_s=0.5,
            saturation_s=2.0,
            saturation_rounds=1,
            latency_steps=10,
            queue_duration_s=2.0,
            queue_sessions=(8, 2),
        )

    def latency(self) -> LatencyModel:
        return LatencyModel(median_s=self.latency_median_s, sigma=self.latency_sigma)

    def sync_episodes(self) -> int:
        if self.sync_batches is None:
            return self.episodes
        return min(self.episodes, self.sync_batches * self.in_flight)


@dataclass
class RolloutBenchResult:
    config: RolloutBenchConfig
    rollouts: list[RolloutLeg] = field(default_factory=list)
    saturation: list[Saturation] = field(default_factory=list)
    latency_ms: dict[str, dict[str, float | None]] = field(default_factory=dict)
    queues: dict[str, Any] | None = None
    skipped: list[str] = field(default_factory=list)  # legs not run, and why
    machine: dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0

    def leg(self, name: str) -> RolloutLeg | None:
        return next((r for r in self.rollouts if r.name == name), None)

    def saturated(self, name: str) -> Saturation | None:
        return next((s for s in self.saturation if s.name == name), None)

    def ratios(self) -> dict[str, float | None]:
        """The target ratios (None where a leg did not run)."""
        a, s = self.leg("async in-process"), self.leg("sync in-process")
        lat = self.latency_ms
        return {
            "async_over_sync": _ratio(_rate(a), _rate(s)),
            "async_over_sync_steady": _ratio(None if a is None else a.steady_steps_per_s, _rate(s)),
            "server_over_raw": self.over("server", "raw"),
            "server_latency_ratio": _ratio(
                lat.get("server", {}).get("p50"), lat.get("in-process", {}).get("p50")
            ),
        }

    def over(self, leg: str, base: str) -> float | None:
        """A saturated leg's rate over another's (None where either did not run): per round
        where both have rounds (they took turns: ``ratios.paired_ratio``), else the ratio of
        the two rates."""
        a, b = self.saturated(leg), self.saturated(base)
        if a is None or b is None:
            return None
        by_round = paired_ratio(a.rounds, b.rounds)
        return by_round if by_round is not None else _ratio(a.steps_per_s, b.steps_per_s)

    def floor_ratio(self, leg: str = "server") -> float | None:
        """A saturated leg over "raw CDP" (the click and a bare CDP screenshot), the floor any
        framework can reach with this browser (issue 32's targets: 0.95 served, 0.98 in
        process)."""
        return self.over(leg, "raw CDP")

    def cpu_ceiling(self) -> dict[str, float] | None:
        """What the CPU allows: the async in-process leg's CPU seconds per env step (browsers
        included) bound its steps/s to ``cores / cpu_s_per_step`` on this machine, whatever the
        engine does; and so the async / sync ratio to that bound over the sync leg's rate."""
        a, s = self.leg("async in-process"), self.leg("sync in-process")
        cores = os.cpu_count() or 1
        if a is None or not a.steps or not a.cpu.get("tree_cpu_s"):
            return None
        cpu_s_per_step = a.cpu["tree_cpu_s"] / a.steps
        ceiling = cores / cpu_s_per_step
        out = {
            "cores": cores,
            "cpu_ms_per_step": round(cpu_s_per_step * 1000, 1),
            "steps_per_s": round(ceiling, 2),
            "async_share": round(a.steps_per_s / ceiling, 3),
        }
        if s is not None and s.steps_per_s:
            out["async_over_sync_bound"] = round(ceiling / s.steps_per_s, 2)
        return out

    def targets(self) -> dict[str, dict[str, Any]]:
        out = {}
        for name, value in self.ratios().items():
            target = TARGETS[name]
            met = (
                None
                if value is None
                else (value <= target if "latency" in name else value >= target)
            )
            out[name] = {"value": value, "target": target, "met": met}
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "config": asdict(self.config),
            "machine": self.machine,
            "rollouts": {r.name: r.to_json() for r in self.rollouts},
            "saturation": {s.name: s.to_json() for s in self.saturation},
            "latency_ms": self.latency_ms,
            "queues": self.queues,
            "targets": self.targets(),
            "server_over_raw_cdp": self.floor_ratio("server"),
            "inprocess_over_raw_cdp": self.floor_ratio("in-process"),
            "cpu_ceiling": self.cpu_ceiling(),
            "skipped": self.skipped,
            "wall_s": round(self.wall_s, 1),
        }


def _rate(leg: RolloutLeg | Saturation | None) -> float | None:
    return None if leg is None else leg.steps_per_s


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a and b else None
