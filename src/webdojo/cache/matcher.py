"""Tiered matching of an incoming request against an archive's index.

- **L0** exact: method, URL and body bytes.
- **L1** the normalized fields with default and user rules applied.
- **L2** the same, with learned volatile fields masked too.
- **L3** same method, host and path; the *essential* parameters equal; the best overlap of the
  rest wins. A parameter is essential when its name says it selects something (id, page, q,
  ...) or when its value differs between the recorded requests of the endpoint: then it is
  what tells their responses apart (``webdojo.cache.essential``). The index keys every entry
  by its essential parameters, so the candidates are one indexed lookup, not a scan.
- **L4** a synthesized response for an endpoint known to be non-essential (beacons, analytics,
  ads): the page works the same without it.

Repeated requests with the same key get the recorded responses in recorded order, then the
last one again. Matching is pure logic over the index: replay and ``webdojo cache lookup``
share it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from webdojo.cache.essential import Name, asks_unrecorded, l3_key
from webdojo.cache.exchange import CapturedRequest, CapturedResponse
from webdojo.cache.index import Entry, Index, Plain
from webdojo.cache.nonessential import synthesize
from webdojo.cache.normalize import Endpoint, Field, NormalRequest, exact_key, normalize, signature
from webdojo.cache.rules import RuleSet

LEVELS = ("L0", "L1", "L2", "L3", "L4")
_ESSENTIAL_CACHE = 4096  # endpoints whose essential names a Matcher keeps


@dataclass(frozen=True)
class Candidate:
    """A recorded request near a missed one, and how they differ."""

    entry: Entry
    score: float  # share of fields in common, 0..1
    differences: tuple[tuple[str, str, str, str], ...]  # where, name, incoming, recorded


@dataclass(frozen=True)
class Match:
    level: str | None  # "L0".."L4", or None for a miss
    entry: Entry | None = None  # the recorded exchange to serve (L0-L3)
    synthesized: CapturedResponse | None = None  # L4
    candidates: tuple[Candidate, ...] = ()  # nearest recorded requests (misses, lookups)
    request: NormalRequest | None = None


@dataclass
class Matcher:
    index: Index
    rules: RuleSet
    max_level: int = 4  # highest level tried (learning replays at 1 to see what it misses)
    l3_cap: int = 50  # L3 scores at most this many distinct variants of one l3 key
    near_cap: int = 10  # a miss is compared with at most this many recorded requests (cheap)
    _served: Counter[tuple[str, str]] = field(default_factory=Counter)
    _essentials: dict[Endpoint, frozenset[Name] | None] = field(default_factory=dict)
    _learned: RuleSet = field(init=False)

    def __post_init__(self) -> None:
        self._learned = RuleSet(self.rules.learned())

    def match(
        self, request: CapturedRequest, advance: bool = True, resource_type: str = ""
    ) -> Match:
        """The recorded exchange to serve for ``request``; ``advance=False`` looks without
        moving the per-key sequence (``lookup``). ``resource_type`` is the browser's (a
        beacon is "ping")."""
        normal = normalize(request)
        keys, level2 = self._keys(request, normal)
        for level, key in enumerate(keys):
            if level and key == keys[level - 1]:
                continue  # no learned rule masked anything: L2 asks what L1 asked
            entries = self.index.by_key(level, key)
            if entries:
                return Match(
                    LEVELS[level], self._next(LEVELS[level], key, entries, advance), request=normal
                )
        if self.max_level >= 3:
            found = self._level3(normal, level2, advance)
            if found is not None:
                return found
        if self.max_level >= 4:
            synthesized = synthesize(request, resource_type)
            if synthesized is not None:
                return Match("L4", synthesized=synthesized, request=normal)
        return Match(None, candidates=self._nearest(normal, level2), request=normal)

    def _keys(
        self, request: CapturedRequest, normal: NormalRequest
    ) -> tuple[list[str], tuple[Field, ...]]:
        """The L0-L2 keys to try, and the fields as level 2 sees them (L3 and misses score
        with those: masked once per request)."""
        endpoint = normal.endpoint
        level1 = self.rules.mask(endpoint, normal.fields, 1)
        # level 2 is level 1 plus the learned rules: only those need to run again
        level2 = self._learned.mask(endpoint, level1, 2)
        keys = [exact_key(request), signature(endpoint, level1), signature(endpoint, level2)]
        return keys[: 1 + min(2, max(0, self.max_level))], level2

    def _next(self, level: str, key: str, entries: list[Entry], advance: bool) -> Entry:
        """Recorded order within the first visit that has this request, then the last again."""
        first_visit = [e for e in entries if e.visit == entries[0].visit]
        n = self._served[(level, key)]
        if advance:
            self._served[(level, key)] += 1
        return first_visit[min(n, len(first_visit) - 1)]

    def _level3(
        self, normal: NormalRequest, mine: tuple[Field, ...], advance: bool
    ) -> Match | None:
        essential = self._essential(normal.endpoint)
        if essential is None or asks_unrecorded(mine, essential):
            return None  # no recorded request can have equal essential parameters
        key = l3_key(normal.endpoint, mine, essential)
        variants = self.index.l3_variants(key, self.l3_cap)
        if not variants:
            return None
        # max keeps the first of equal scores: the earliest recorded, as a scan would
        like = _Likeness(mine)
        best = max(variants, key=lambda e: like(_plain(e.at_level2())))
        # served in recorded order among the copies of best (its l2 key); best is the first
        same = [best]
        if self._served[("L3", key)]:
            same = self.index.by_key(2, signature(best.endpoint, best.at_level2()))
        return Match("L3", self._next("L3", key, same, advance), request=normal)

    def _essential(self, endpoint: Endpoint) -> frozenset[Name] | None:
        if endpoint not in self._essentials:
            if len(self._essentials) >= _ESSENTIAL_CACHE:
                self._essentials.clear()  # misses of ever new paths must not grow it forever
            self._essentials[endpoint] = self.index.essential(endpoint)
        return self._essentials[endpoint]

    def nearest(self, normal: NormalRequest, n: int = 3) -> tuple[Candidate, ...]:
        """The recorded requests most like ``normal``: same endpoint first, else same host."""
        return self._nearest(normal, self.rules.mask(normal.endpoint, normal.fields, 2), n)

    def _nearest(
        self, normal: NormalRequest, mine: tuple[Field, ...], n: int = 3
    ) -> tuple[Candidate, ...]:
        # a pool is all of one endpoint or all of other paths: overlap alone ranks it
        recorded = self._essential(normal.endpoint) is not None
        best = self.index.nearest(normal.endpoint, _Likeness(mine), self.near_cap, n, recorded)
        return tuple(
            Candidate(entry, round(score, 3), differences(normal.fields, entry.fields))
            for score, entry in best
        )


class _Likeness:
    """The share of fields a recorded request has in common with one incoming request, as
    multisets: |A & B| / |A | B|. Plain tuples hash much faster than Fields; and while one side
    at most repeats a field, counting the common distinct fields gives |A & B| without
    Counters (requests rarely repeat one)."""

    def __init__(self, mine: tuple[Field, ...]) -> None:
        plain = _plain(mine)
        self.counts = Counter(plain)
        self.distinct = set(plain)
        self.repeats = len(self.distinct) < len(plain)
        self.size = len(plain)

    def __call__(self, theirs: list[Plain]) -> float:
        distinct = set(theirs)
        if not self.repeats or len(distinct) == len(theirs):
            common = len(self.distinct & distinct)
        else:
            common = sum(min(n, self.counts[k]) for k, n in Counter(theirs).items())
        union = self.size + len(theirs) - common
        return common / union if union else 1.0


def _plain(fields: tuple[Field, ...]) -> list[Plain]:
    return [(f.where, f.name, f.value) for f in fields]


def differences(
    incoming: tuple[Field, ...], recorded: tuple[Field, ...]
) -> tuple[tuple[str, str, str, str], ...]:
    """Fields whose values differ (or that only one side has), for people to read."""

    def by_name(fields: tuple[Field, ...]) -> dict[tuple[str, str], str]:
        out: dict[tuple[str, str], list[str]] = {}
        for f in fields:
            out.setdefault((f.where, f.name), []).append(f.value)
        return {k: "&".join(v) for k, v in out.items()}

    a, b = by_name(incoming), by_name(recorded)
    return tuple(
        (where, name, a.get((where, name), "(absent)"), b.get((where, name), "(absent)"))
        for where, name in sorted(a.keys() | b.keys())
        if a.get((where, name)) != b.get((where, name))
    )
