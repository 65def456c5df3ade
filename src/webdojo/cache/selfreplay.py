"""An archive replayed against itself, offline: which recorded requests of one visit the
other visits answer at level 2, under the archive's rules plus candidate ones.

``webdojo cache learn`` asks this view, again and again, how many requests miss with and
without a candidate rule, and whether a rule would make two requests of one visit that got
different responses look the same (a false match).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from webdojo.cache.index import Entry
from webdojo.cache.normalize import Endpoint, Field
from webdojo.cache.rules import MASK, Rule, RuleSet

Diff = tuple[str, str, str, str]  # where, name, value here, value there
ABSENT = "(absent)"  # what ``matcher.differences`` shows for a field one side lacks


@dataclass(frozen=True)
class ReplayMiss:  # a browser replay's miss, with the differences to its nearest request
    endpoint: Endpoint
    url: str
    differences: tuple[Diff, ...]

    def resolved_by(self, rules: Sequence[Rule]) -> bool:
        """Whether the rules mask every field it differs in (none may be absent on one side)."""
        return bool(self.differences) and all(
            ABSENT not in (d[2], d[3])
            and any(r.applies_to(self.endpoint, Field(d[0], d[1], d[2])) for r in rules)
            for d in self.differences
        )


class SelfReplay:
    """An archive's entries, each looked up among the other visits at level 2 under the base
    rules plus any extra ones; the base masks are worked out once, so that keys under many
    lists of extra rules are cheap."""

    def __init__(
        self, entries: Sequence[Entry], base: RuleSet, replay: Sequence[ReplayMiss] = ()
    ) -> None:
        self.entries = list(entries)
        self.base = base
        self.replay = list(replay)
        self._base_masked = [self._masked_by(base.at_level(2), e) for e in self.entries]
        self._covers: dict[tuple[str, ...], list[frozenset[int]]] = {}
        self.visits = sorted({e.visit for e in self.entries})
        self.by_endpoint: dict[Endpoint, list[int]] = defaultdict(list)
        for i, e in enumerate(self.entries):
            self.by_endpoint[e.endpoint].append(i)

    @staticmethod
    def _masked_by(rules: Iterable[Rule], entry: Entry) -> frozenset[int]:
        rules = tuple(rules)
        return frozenset(
            j
            for j, f in enumerate(entry.fields)
            if any(r.applies_to(entry.endpoint, f) for r in rules)
        )

    def masked(self, i: int, extra: Sequence[Rule]) -> frozenset[int]:
        """Indices of entry i's fields masked by the base rules and ``extra``."""
        out = set(self._base_masked[i])
        for rule in extra:
            covers = self._covers.get(rule.key())
            if covers is None:
                covers = [self._masked_by((rule,), e) for e in self.entries]
                self._covers[rule.key()] = covers
            out |= covers[i]
        return frozenset(out)

    def key(self, i: int, extra: Sequence[Rule]) -> tuple[Any, ...]:
        entry, masked = self.entries[i], self.masked(i, extra)
        fields = sorted(
            Field(f.where, f.name, MASK) if j in masked else f for j, f in enumerate(entry.fields)
        )
        return (entry.endpoint, tuple(fields))

    def peers(self, i: int) -> list[int]:  # same endpoint, other visits
        e = self.entries[i]
        return [j for j in self.by_endpoint[e.endpoint] if self.entries[j].visit != e.visit]

    def misses(self, extra: Sequence[Rule]) -> list[int]:
        """Entries no other visit answers at level 2 (among those whose endpoint another
        visit has at all: the rest no rule can help)."""
        keys = [self.key(i, extra) for i in range(len(self.entries))]
        visits_of: dict[Any, set[int]] = defaultdict(set)
        for i, k in enumerate(keys):
            visits_of[k].add(self.entries[i].visit)
        return [
            i
            for i, k in enumerate(keys)
            if self.peers(i) and not visits_of[k] - {self.entries[i].visit}
        ]

    def unresolved(self, extra: Sequence[Rule]) -> int:
        """Misses of the last browser replay that the rules would not turn into a match."""
        rules = (*self.base.at_level(2), *extra)
        return sum(1 for m in self.replay if not m.resolved_by(rules))

    def cost(self, extra: Sequence[Rule]) -> int:
        return len(self.misses(extra)) + self.unresolved(extra)

    def false_matches(self, extra: Sequence[Rule], before: Sequence[Rule]) -> list[tuple[int, int]]:
        """Pairs of one visit and endpoint with different responses that share a key under
        ``extra`` but not under ``before``."""
        groups: dict[tuple[int, Any], list[int]] = defaultdict(list)
        for i, e in enumerate(self.entries):
            groups[(e.visit, self.key(i, extra))].append(i)
        pairs = []
        for members in groups.values():
            for a, i in enumerate(members):
                for j in members[a + 1 :]:
                    differ = self.entries[i].digest != self.entries[j].digest
                    if differ and self.key(i, before) != self.key(j, before):
                        pairs.append((i, j))
        return pairs
