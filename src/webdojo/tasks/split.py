"""The out-of-distribution split by website (WebGym §3.3): a test set of one task per test
website, and a training set with every task of those websites removed, so that no test task
comes from a website seen in training.

* Websites are site keys (``webdojo.tasks.websites``: registrable domains, local site names).
* A decomposed task and its parent never straddle the split: websites linked by a parent/child
  pair (a subtask normally inherits its parent's website, but may name another one) are one
  *site group*, and groups, not single websites, are drawn for the test set. A ``parent_id``
  that names no task of the file links nothing (counted as ``orphans``).
* The test set has ``test_sites`` groups, or ``test_ratio`` of them (default 1%, about WebGym's
  1,167 test websites out of ~129k), drawn uniformly with ``seed``. Tasks with no website
  (``(none)``) always stay in training. Each test group gives one task: an original (not
  decomposed) one when it has any, drawn with the same seed.
* ``DIR/train.jsonl`` and ``DIR/test.jsonl`` hold the input lines unchanged, in file order;
  ``DIR/split.json`` records the counts, the seed and the test websites.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.errors import ConfigError
from webdojo.tasks.columns import Progress, TaskColumns, copy_lines, read_columns
from webdojo.tasks.websites import NO_WEBSITE

DEFAULT_TEST_RATIO = 0.01
TRAIN, TEST, REMOVED = 1, 2, 0


@dataclass
class SplitResult:
    train: int
    test: int
    removed: int  # training tasks dropped because their website is a test website
    websites: int  # distinct websites (site keys) in the input
    test_websites: list[str]  # every website of the test groups, sorted
    merged: int  # websites that share a site group with another one (parent/child links)
    orphans: int  # tasks whose parent_id is not in the file
    seed: int
    frequency: list[int] = field(default_factory=list)  # train tasks per website, descending
    out: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "train": self.train,
            "test": self.test,
            "removed": self.removed,
            "websites": self.websites,
            "test_websites": len(self.test_websites),
            "train_websites": len(self.frequency),
            "merged": self.merged,
            "orphans": self.orphans,
            "seed": self.seed,
            "out": None if self.out is None else str(self.out),
        }


class _Groups:
    """Union-find over site keys."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        root = self.parent.setdefault(key, key)
        while root != self.parent[root]:
            self.parent[root] = self.parent[self.parent[root]]
            root = self.parent[root]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)  # the smaller key names the group


def site_groups(columns: TaskColumns) -> tuple[dict[str, str], int]:
    """(site key -> its group's name, orphan count)."""
    groups = _Groups()
    for site in columns.sites:
        groups.find(site)
    index = {task_id: i for i, task_id in enumerate(columns.ids)}
    orphans = 0
    for i, parent in enumerate(columns.parents):
        if parent is None:
            continue
        j = index.get(parent)
        if j is None:
            orphans += 1
        else:
            groups.union(columns.sites[i], columns.sites[j])
    return {site: groups.find(site) for site in groups.parent}, orphans


def count_test_groups(eligible: int, test_sites: int | None, test_ratio: float | None) -> int:
    if test_sites is None:
        ratio = DEFAULT_TEST_RATIO if test_ratio is None else test_ratio
        if not 0 < ratio < 1:
            raise ConfigError(f"--test-ratio {ratio}: give a fraction between 0 and 1")
        test_sites = max(1, round(ratio * eligible))
    if test_sites < 1 or test_sites >= eligible:
        raise ConfigError(
            f"{test_sites} test websites asked for, but the file has {eligible} website groups "
            "that can be tested: ask for at least 1 and fewer than that (training keeps the rest)"
        )
    return test_sites


def plan_split(
    columns: TaskColumns,
    *,
    seed: int = 0,
    test_sites: int | None = None,
    test_ratio: float | None = None,
) -> tuple[list[int], SplitResult]:
    """(route per task: TRAIN / TEST / REMOVED, the result without ``out``)."""
    group_of, orphans = site_groups(columns)
    members: dict[str, list[int]] = {}
    for i, site in enumerate(columns.sites):
        members.setdefault(group_of[site], []).append(i)
    eligible = sorted(g for g in members if g != group_of.get(NO_WEBSITE))
    rng = random.Random(seed)
    chosen = rng.sample(eligible, count_test_groups(len(eligible), test_sites, test_ratio))
    routes = [TRAIN] * len(columns)
    for group in chosen:
        tasks = members[group]
        originals = [i for i in tasks if columns.parents[i] is None]
        pick = rng.choice(originals or tasks)
        for i in tasks:
            routes[i] = REMOVED
        routes[pick] = TEST
    chosen_set = set(chosen)
    per_site = Counter(s for s, r in zip(columns.sites, routes, strict=True) if r == TRAIN)
    group_sizes = Counter(group_of.values())
    result = SplitResult(
        train=routes.count(TRAIN),
        test=len(chosen),
        removed=routes.count(REMOVED),
        websites=len(group_of),
        test_websites=sorted(s for s, g in group_of.items() if g in chosen_set),
        merged=sum(1 for g in group_of.values() if group_sizes[g] > 1),
        orphans=orphans,
        seed=seed,
        frequency=sorted(per_site.values(), reverse=True),
    )
    return routes, result


def split_file(
    path: Path,
    out: Path,
    *,
    seed: int = 0,
    test_sites: int | None = None,
    test_ratio: float | None = None,
    progress: Progress | None = None,
) -> SplitResult:
    """Split the task file ``path`` into ``out/train.jsonl`` and ``out/test.jsonl`` (see the
    module docstring); ``out/split.json`` records what was done."""
    path, out = Path(path), Path(out)
    columns = read_columns(path, progress=progress)
    routes, result = plan_split(columns, seed=seed, test_sites=test_sites, test_ratio=test_ratio)
    route_of_line = bytearray(max(columns.lines, default=0) + 1)  # REMOVED unless set
    for number, route in zip(columns.lines, routes, strict=True):
        route_of_line[number] = route
    targets = {TRAIN: out / "train.jsonl", TEST: out / "test.jsonl"}
    size = len(route_of_line)
    copy_lines(path, targets, lambda n: route_of_line[n] if n < size else REMOVED)
    result.out = out
    record = {**result.to_json(), "source": str(path), "test_websites": result.test_websites}
    (out / "split.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return result
