"""What ``webdojo bench cache`` measured: the result, its JSON line and its rich tables."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group
from rich.table import Table

from webdojo.bench.cache_lookup_bench import PROBE_KINDS, LookupResult
from webdojo.cache.matcher import LEVELS
from webdojo.cache.replayer import ReplayStats
from webdojo.cache.rules import RuleSet

# The targets.
TARGET_SERVED, TARGET_PRECISION, TARGET_RECALL, TARGET_LOOKUP_MS = 0.99, 0.95, 0.90, 1.0
TARGET_REPLAY_OVER_LIVE = 1.0  # a page load from the archive, over the same site live


@dataclass(frozen=True)
class VolatileScore:
    """The volatile fields the rules in force mask, scored against the site's manifest."""

    precision: float
    recall: float
    masked: int  # distinct (host, path, where, name) fields masked in some recorded request
    covered: int  # manifest entries masked in every recorded request that has them
    manifest: int  # manifest entries
    by_source: dict[str, int]  # rule source (default, user, learned) -> manifest entries covered
    missed: list[str]  # manifest entries not covered
    extra: list[str]  # masked fields the manifest does not list (false positives)


@dataclass
class ModeResult:
    """The replays with the determinism aids on, or off."""

    deterministic: bool
    stats: ReplayStats = field(default_factory=ReplayStats)
    hashes: list[str] = field(default_factory=list)  # one screenshot hash per replay
    load_ms: list[float] = field(default_factory=list)  # goto until the page said it is done
    false_matches: int = 0  # served responses recorded for other trap parameter values
    trap_checked: int = 0  # served requests that carried trap parameters
    page_mismatches: int = 0  # replays whose item lists differ from the live page's

    @property
    def identical(self) -> int:
        """The size of the largest group of replays with one screenshot hash."""
        return max(Counter(self.hashes).values(), default=0)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.stats.to_json(),
            "distinct_hashes": len(set(self.hashes)),
            "identical_hashes": self.identical,
            "false_matches": self.false_matches,
            "trap_checked": self.trap_checked,
            "page_mismatches": self.page_mismatches,
            "load_ms": round(median(self.load_ms), 1),
        }


@dataclass(frozen=True)
class Learned:
    rules: RuleSet  # the rules in force after learning: defaults, user and learned ones
    rounds: int  # learning rounds run (0: nothing learned)
    note: str  # where the rules came from, for the report
    precision: float = 1.0  # of the learned fields alone, against the manifest
    recall: float = 1.0
    count: int = 0  # learned rules


@dataclass
class CacheBenchResult:
    replays: int
    recorded: int  # exchanges in the archive of the volatile site
    volatile: VolatileScore
    learned: Learned  # what webdojo cache learn found, and where the scored rules came from
    on: ModeResult
    off: ModeResult
    lookup: LookupResult
    canary_hits: int = 0
    canary_armed: bool = False  # the replay browser did reach the canary before replay
    loads: dict[str, list[float]] = field(default_factory=dict)  # live, replay, route: ms
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        both = ReplayStats()
        both.add(self.on.stats)
        both.add(self.off.stats)
        live, replay, route = (median(self.loads.get(k, [])) for k in ("live", "replay", "route"))
        return {
            "served_rate": round(both.served / both.requests, 4) if both.requests else 0.0,
            "requests": both.requests,
            "served": both.served,
            "by_level": {level: both.by_level.get(level, 0) for level in LEVELS},
            "misses": both.misses,
            "false_matches": self.on.false_matches + self.off.false_matches,
            "trap_checked": self.on.trap_checked + self.off.trap_checked,
            "page_mismatches": self.on.page_mismatches + self.off.page_mismatches,
            "volatile_precision": round(self.volatile.precision, 3),
            "volatile_recall": round(self.volatile.recall, 3),
            "volatile_by_source": self.volatile.by_source,
            "volatile_missed": self.volatile.missed,
            "volatile_extra": self.volatile.extra,
            "learned_precision": round(self.learned.precision, 3),
            "learned_recall": round(self.learned.recall, 3),
            "learned_rules": self.learned.count,
            "learn_rounds": self.learned.rounds,
            "learn_note": self.learned.note,
            "replays": self.replays,
            "identical_hashes_on": self.on.identical,
            "identical_hashes_off": self.off.identical,
            "aborted_outbound": both.aborted_outbound,
            "canary_hits": self.canary_hits,
            "canary_armed": self.canary_armed,
            **self.lookup.to_json(),
            "load_ms_live": round(live, 1),
            "load_ms_replay": round(replay, 1),
            "load_ms_route": round(route, 1),
            "replay_over_live": _ratio(replay, live),
            "route_over_live": _ratio(route, live),
            "load_ratio": _ratio(replay, live),  # the name before replay_over_live
            "recorded_exchanges": self.recorded,
            "replay_on": self.on.to_json(),
            "replay_off": self.off.to_json(),
            "bench_s": round(self.seconds, 1),
        }


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if a and b else None


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def _mark(ok: bool, text: str) -> str:
    colour = "green" if ok else "red"
    return f"[{colour}]{text}[/{colour}]"


def cache_bench_tables(result: CacheBenchResult) -> Group:
    """One table of the headline figures against their targets, one of the replays by mode,
    one of the lookup times by level."""
    data = result.to_json()
    head = Table(title=f"webdojo cache bench: {result.replays} replays a mode")
    for column in ("measure", "value", "target"):
        head.add_column(column, justify="left" if column == "measure" else "right")
    rows = [*_matching_rows(result, data), *_isolation_rows(result, data), *_speed_rows(data)]
    for row in rows:
        head.add_row(*row)
    return Group(head, _modes_table(result), _lookup_table(result.lookup))


Row = tuple[str, str, str]  # measure, value, target


def _matching_rows(result: CacheBenchResult, data: dict[str, Any]) -> list[Row]:
    """How much the archive served, and how well the volatile fields were found."""
    volatile, learned = result.volatile, result.learned
    served = f"{data['served']}/{data['requests']} ({data['served_rate']:.1%})"
    false_matches = f"{data['false_matches']} of {data['trap_checked']}"
    precision = f"{volatile.precision:.3f}"
    recall = f"{volatile.recall:.3f} ({volatile.covered}/{volatile.manifest})"
    return [
        ("served", _mark(data["served_rate"] >= TARGET_SERVED, served), ">= 99%"),
        ("false matches on trap params", _mark(data["false_matches"] == 0, false_matches), "0"),
        ("volatile precision", _mark(volatile.precision >= TARGET_PRECISION, precision), ">= 0.95"),
        ("volatile recall", _mark(volatile.recall >= TARGET_RECALL, recall), ">= 0.90"),
        ("learned fields: precision", f"{learned.precision:.3f}", ">= 0.95"),
        ("learned fields: recall", f"{learned.recall:.3f}", ">= 0.90"),
        ("learn rounds", f"{learned.rounds} ({learned.note})", "<= 3"),
    ]


def _isolation_rows(result: CacheBenchResult, data: dict[str, Any]) -> list[Row]:
    """Whether replays were the same each time, and whether anything got past the archive."""
    identical = f"{result.on.identical}/{result.replays}"
    all_same = result.on.identical == result.replays
    canary = f"{result.canary_hits}" + ("" if result.canary_armed else " (canary not reachable!)")
    return [
        ("identical hashes, aids on", _mark(all_same, identical), "all"),
        ("identical hashes, aids off", f"{result.off.identical}/{result.replays}", ""),
        ("canary hits", _mark(result.canary_hits == 0 and result.canary_armed, canary), "0"),
        ("aborted outbound", f"{data['aborted_outbound']}", ""),
    ]


_LOOKUP_MEASURES = (
    ("lookup p99 (L0-L2)", "lookup_p99_ms"),
    ("lookup p99 (L3)", "lookup_p99_ms_l3"),
    ("miss p99", "miss_p99_ms"),
)


def _speed_rows(data: dict[str, Any]) -> list[Row]:
    """Lookup times against their target, and page loads live and replayed."""
    rows = [
        (label, _mark(data[key] < TARGET_LOOKUP_MS, f"{data[key]:.3f} ms"), "< 1 ms")
        for label, key in _LOOKUP_MEASURES
    ]
    load = (
        f"{data['load_ms_live']:.0f} / {data['load_ms_replay']:.0f} / {data['load_ms_route']:.0f}"
        f" ms (x{data['replay_over_live'] or 0:.2f}, route x{data['route_over_live'] or 0:.2f})"
    )
    ratio = data["replay_over_live"]
    fast = ratio is not None and ratio <= TARGET_REPLAY_OVER_LIVE
    return [*rows, ("page load live / replay / route", _mark(fast, load), "replay <= x1.00")]


def _modes_table(result: CacheBenchResult) -> Table:
    table = Table(title="replays by mode (hashes: distinct screenshot hashes; false: matches)")
    columns = ("aids", "req", "served", *LEVELS, "miss", "hashes", "false", "load ms")
    for column in columns:
        table.add_column(column, justify="left" if column == "aids" else "right")
    for mode in (result.on, result.off):
        data = mode.to_json()
        table.add_row(
            "on" if mode.deterministic else "off",
            str(data["requests"]),
            str(data["served"]),
            *(str(data["by_level"][level]) for level in LEVELS),
            str(data["misses"]),
            str(data["distinct_hashes"]),
            str(data["false_matches"]),
            f"{data['load_ms']:.0f}",
        )
    return table


def _lookup_table(lookup: LookupResult) -> Table:
    data = lookup.to_json()
    table = Table(
        title=f"index lookups at {lookup.entries:,} entries (built in {lookup.build_s:.1f} s)"
    )
    for column in ("probe", "n", "p50", "p99"):
        table.add_column(column, justify="left" if column == "probe" else "right")
    for kind in PROBE_KINDS:
        row = data["lookup_by_level"][kind]
        table.add_row(kind, str(row["n"]), f"{row['p50_ms']:.3f} ms", f"{row['p99_ms']:.3f} ms")
    return table
