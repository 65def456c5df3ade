"""What a task set holds, in numbers: websites (the top ones and the frequency curve of WebGym's
Figure 3, left), domains and subdomains (the Mind2Web-2 taxonomy), difficulty (original and
decomposed tasks apart, as Figure 3, right, stacks them), levels and sources.

``task_stats`` works on ``TaskColumns``, so a 300k-task file costs a few tens of MB. The
terminal tables live in the CLI and the HTML page in ``webdojo.viewer.task_stats_page``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.tasks.columns import Progress, TaskColumns, read_columns
from webdojo.tasks.schema import LEVELS

TOP_WEBSITES = 20
UNKNOWN = "(unknown)"


@dataclass(frozen=True)
class FrequencyRun:
    """Websites ``first``..``last`` (1-based ranks, most tasks first) have ``tasks`` tasks
    each: the frequency curve as runs of equal counts (a few hundred runs for 100k sites)."""

    first: int
    last: int
    tasks: int


def frequency_runs(counts_desc: list[int]) -> list[FrequencyRun]:
    runs: list[FrequencyRun] = []
    for rank, count in enumerate(counts_desc, 1):
        if runs and runs[-1].tasks == count:
            runs[-1] = FrequencyRun(runs[-1].first, rank, count)
        else:
            runs.append(FrequencyRun(rank, rank, count))
    return runs


@dataclass
class TaskStats:
    path: str
    tasks: int
    websites: int
    original: int
    decomposed: int
    top_websites: list[tuple[str, int]]  # the TOP_WEBSITES websites with most tasks
    top_share: float  # share of all tasks that the top websites hold
    frequency: list[FrequencyRun]
    domains: dict[str, int]  # domain -> tasks, most first; UNKNOWN for none
    subdomains: dict[str, dict[str, int]]  # domain -> {subdomain -> tasks}
    levels: dict[str, int]  # easy, medium, hard, UNKNOWN
    # difficulty -> (original, decomposed); key 0 = no difficulty given
    difficulty: dict[int, tuple[int, int]] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "tasks": self.tasks,
            "websites": self.websites,
            "original": self.original,
            "decomposed": self.decomposed,
            "top_websites": [{"website": w, "tasks": n} for w, n in self.top_websites],
            "top_share": round(self.top_share, 4),
            "frequency": [[r.first, r.last, r.tasks] for r in self.frequency],
            "domains": self.domains,
            "subdomains": self.subdomains,
            "levels": self.levels,
            "difficulty": {
                str(d): {"original": o, "decomposed": c} for d, (o, c) in self.difficulty.items()
            },
            "sources": self.sources,
        }


def _most_first(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def task_stats(columns: TaskColumns, top: int = TOP_WEBSITES) -> TaskStats:
    per_site = Counter(columns.sites)
    ranked = sorted(per_site.items(), key=lambda kv: (-kv[1], kv[0]))
    decomposed = sum(1 for p in columns.parents if p is not None)
    domains = Counter(d or UNKNOWN for d in columns.domains)
    subdomains: dict[str, Counter[str]] = {}
    for domain, sub in zip(columns.domains, columns.subdomains, strict=True):
        subdomains.setdefault(domain or UNKNOWN, Counter())[sub or UNKNOWN] += 1
    levels = Counter(level or UNKNOWN for level in columns.levels)
    difficulty: dict[int, list[int]] = {}
    for d, parent in zip(columns.difficulties, columns.parents, strict=True):
        difficulty.setdefault(d or 0, [0, 0])[parent is not None] += 1
    n = len(columns)
    top_websites = ranked[:top]
    return TaskStats(
        path=str(columns.path),
        tasks=n,
        websites=len(per_site),
        original=n - decomposed,
        decomposed=decomposed,
        top_websites=top_websites,
        top_share=sum(c for _, c in top_websites) / n if n else 0.0,
        frequency=frequency_runs([c for _, c in ranked]),
        domains=_most_first(domains),
        subdomains={d: _most_first(subdomains[d]) for d in _most_first(domains)},
        levels={k: levels[k] for k in (*LEVELS, UNKNOWN) if levels[k]},
        difficulty={d: (o, c) for d, (o, c) in sorted(difficulty.items())},
        sources=_most_first(Counter(columns.sources)),
    )


def file_stats(path: Path, top: int = TOP_WEBSITES, progress: Progress | None = None) -> TaskStats:
    """``task_stats`` of a JSONL task file (validated line by line)."""
    return task_stats(read_columns(Path(path), progress=progress), top=top)
