"""The figures of ``webdojo bench compare-browsergym``: per-step wall and CPU times of each side
in each round, the ratios (webdojo over BrowserGym: below 1, webdojo is cheaper or faster) and
their table. The floor (raw Playwright's click or ``goto`` and a bare capture, ``raw_page``)
is a side too: its ratios over BrowserGym are the least any framework could reach with this
browser, and webdojo's are read against them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from webdojo.bench.percentiles import percentile

KINDS = ("inpage", "nav")
OURS, RICH, FLOOR, THEIRS = "webdojo", "webdojo_rich", "floor", "browsergym"
SIDES = (OURS, RICH, FLOOR, THEIRS)


@dataclass(frozen=True)
class Block:
    """One side's steps of one kind in one round: each step's wall time and the CPU of the
    side's whole process tree per step, over the block."""

    ms: list[float]
    cpu_ms: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Block:
        return cls(ms=[float(v) for v in data["ms"]], cpu_ms=float(data["cpu_ms"]))


Round = dict[str, dict[str, Block]]  # side -> kind -> block


def median_ratio(ours: list[float], theirs: list[float]) -> float | None:
    """The median over rounds of ours / theirs within each round: a slow round (a busy minute,
    a slow browser start) moves its own ratio, not the figure."""
    ratios = [a / b for a, b in zip(ours, theirs, strict=True) if b > 0]
    return round(statistics.median(ratios), 3) if ratios else None


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


@dataclass
class CompareResult:
    steps: int
    rounds: int
    chromium: str = ""  # webdojo's view: version and executable
    browsergym: dict[str, Any] = field(default_factory=dict)  # versions, settings, Chromium
    webdojo_playwright: str = ""
    by_round: list[Round] = field(default_factory=list)
    wall_s: float = 0.0

    def blocks(self, side: str, kind: str) -> list[Block]:
        return [r[side][kind] for r in self.by_round if side in r]

    def stats(self, side: str, kind: str) -> dict[str, Any]:
        """Pooled p50/p90 over every round's steps; CPU per step: the median over rounds."""
        blocks = self.blocks(side, kind)
        times = [ms for b in blocks for ms in b.ms]
        cpu = [b.cpu_ms for b in blocks]
        return {
            "p50_ms": _ms(percentile(times, 50)),
            "p90_ms": _ms(percentile(times, 90)),
            "cpu_ms": _ms(statistics.median(cpu)) if cpu else None,
            "steps": len(times),
        }

    def ratio(self, kind: str, measure: str, side: str = OURS, base: str = THEIRS) -> float | None:
        """``side`` over ``base`` (by default BrowserGym), ``measure`` "cpu" or "p50", the
        median of per-round ratios."""

        def value(block: Block) -> float:
            if measure == "cpu":
                return block.cpu_ms
            return percentile(block.ms, 50) or 0.0

        rounds = [r for r in self.by_round if side in r and base in r]
        return median_ratio(
            [value(r[side][kind]) for r in rounds], [value(r[base][kind]) for r in rounds]
        )

    def ratios(self, side: str = OURS, base: str = THEIRS) -> dict[str, float | None]:
        return {
            f"{kind}_{measure}_ratio": self.ratio(kind, measure, side, base)
            for kind in KINDS
            for measure in ("cpu", "p50")
        }

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.ratios())
        out["rich_ratios"] = self.ratios(RICH)
        out["floor_ratios"] = self.ratios(FLOOR)
        out["webdojo_over_floor"] = self.ratios(OURS, base=FLOOR)
        for side in SIDES:
            out[side] = {kind: self.stats(side, kind) for kind in KINDS}
        out.update(
            steps=self.steps,
            rounds=self.rounds,
            chromium=self.chromium,
            browsergym_chromium=self.browsergym.get("chromium"),
            executable=self.browsergym.get("executable"),
            browsergym_version=self.browsergym.get("browsergym"),
            browsergym_playwright=self.browsergym.get("playwright"),
            webdojo_playwright=self.webdojo_playwright,
            browsergym_settings=self.browsergym.get("settings"),
            wall_s=round(self.wall_s, 2),
        )
        return out

    def table(self) -> Table:
        table = Table(
            title=f"webdojo vs BrowserGym {self.browsergym.get('browsergym', '?')}: "
            f"{self.steps} steps x {self.rounds} rounds, Chromium {self.chromium}"
        )
        for column in ("step", "side", "p50 ms", "p90 ms", "CPU ms/step", "p50 ratio", "CPU ratio"):
            left = column in ("step", "side")
            # "webdojo_rich" whole: an 80-column terminal would cut it
            table.add_column(column, justify="left" if left else "right", no_wrap=left)
        for kind in KINDS:
            for side in SIDES:
                stats = self.stats(side, kind)
                cells = [_text(stats[k]) for k in ("p50_ms", "p90_ms", "cpu_ms")]
                if side == THEIRS:
                    cells += ["(base)", "(base)"]
                else:
                    cells += [_text(self.ratio(kind, m, side)) for m in ("p50", "cpu")]
                table.add_row(kind, side, *cells)
        over = self.ratios(OURS, base=FLOOR)
        table.caption = "webdojo over the floor: " + ", ".join(
            f"{kind} p50 {_text(over[f'{kind}_p50_ratio'])}, CPU {_text(over[f'{kind}_cpu_ratio'])}"
            for kind in KINDS
        )
        return table


def _text(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
