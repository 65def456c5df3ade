"""Tiered matching of an incoming request against an archive's index.

- **L0** exact: method, URL and body bytes.
- **L1** the normalized fields with default and user rules applied.
- **L2** the same, with learned volatile fields masked too.
- **L3** same method, host and path; the *essential* parameters equal; the best overlap of the
  rest wins, among at most ``l3_cap`` candidates. A parameter is essential when its name says
  it selects something (id, page, q, ...) or when its value differs between the recorded
  requests of the endpoint: then it is what tells their responses apart.
- **L4** a synthesized response for an endpoint known to be non-essential (beacons, analytics,
  ads): the page works the same without it.

Repeated requests with the same key get the recorded responses in recorded order, then the
last one again. Matching is pure logic over the index: replay and ``webdojo cache lookup``
share it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from webdojo.cache.exchange import CapturedRequest, CapturedResponse
from webdojo.cache.index import Entry, Index
from webdojo.cache.nonessential import synthesize
from webdojo.cache.normalize import Field, NormalRequest, exact_key, normalize, signature
from webdojo.cache.rules import _ID_LIKE, MASK, RuleSet

LEVELS = ("L0", "L1", "L2", "L3", "L4")
PARAMS = frozenset({"query", "form", "json", "multipart", "body"})


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
    l3_cap: int = 50  # L3 scores at most this many recorded requests of one endpoint
    _served: Counter[tuple[str, str]] = field(default_factory=Counter)

    def match(
        self, request: CapturedRequest, advance: bool = True, resource_type: str = ""
    ) -> Match:
        """The recorded exchange to serve for ``request``; ``advance=False`` looks without
        moving the per-key sequence (``lookup``). ``resource_type`` is the browser's (a
        beacon is "ping")."""
        normal = normalize(request)
        keys = self._keys(request, normal)
        for level, key in enumerate(keys):
            entries = self.index.by_key(level, key)
            if entries:
                return Match(LEVELS[level], self._next(LEVELS[level], key, entries, advance),
                             request=normal)  # fmt: skip
        if self.max_level >= 3:
            found = self._level3(normal, advance)
            if found is not None:
                return found
        if self.max_level >= 4:
            synthesized = synthesize(request, resource_type)
            if synthesized is not None:
                return Match("L4", synthesized=synthesized, request=normal)
        return Match(None, candidates=self.nearest(normal), request=normal)

    def _keys(self, request: CapturedRequest, normal: NormalRequest) -> list[str]:
        keys = [exact_key(request)]
        for level in (1, 2)[: max(0, self.max_level)]:
            keys.append(
                signature(normal.endpoint, self.rules.mask(normal.endpoint, normal.fields, level))
            )
        return keys

    def _next(self, level: str, key: str, entries: list[Entry], advance: bool) -> Entry:
        """Recorded order within the first visit that has this request, then the last again."""
        first_visit = [e for e in entries if e.visit == entries[0].visit]
        n = self._served[(level, key)]
        if advance:
            self._served[(level, key)] += 1
        return first_visit[min(n, len(first_visit) - 1)]

    def _level3(self, normal: NormalRequest, advance: bool) -> Match | None:
        recorded = self.index.by_endpoint(normal.endpoint, self.l3_cap)
        if not recorded:
            return None
        mine = self.rules.mask(normal.endpoint, normal.fields, 2)
        theirs = {e.id: self.rules.mask(e.endpoint, e.fields, 2) for e in recorded}
        essential = _essential(mine, list(theirs.values()))
        wanted = _params(mine, essential)
        best: tuple[float, Entry] | None = None
        for entry in recorded:
            if _params(theirs[entry.id], essential) != wanted:
                continue
            score = _overlap(mine, theirs[entry.id])
            if best is None or score > best[0]:
                best = (score, entry)
        if best is None:
            return None
        key = signature(normal.endpoint, [f for f in mine if (f.where, f.name) in essential])
        same = [e for e in recorded if _overlap(theirs[e.id], theirs[best[1].id]) == 1.0]
        return Match("L3", self._next("L3", key, same, advance), request=normal)

    def nearest(self, normal: NormalRequest, n: int = 3) -> tuple[Candidate, ...]:
        """The recorded requests most like ``normal``: same endpoint first, else same host."""
        pool = self.index.by_endpoint(normal.endpoint, self.l3_cap) or self.index.near(
            normal.endpoint, self.l3_cap
        )
        mine = self.rules.mask(normal.endpoint, normal.fields, 2)
        scored = []
        for entry in pool:
            theirs = self.rules.mask(entry.endpoint, entry.fields, 2)
            path_bonus = 1.0 if entry.endpoint == normal.endpoint else 0.0
            scored.append((path_bonus + _overlap(mine, theirs), entry, theirs))
        scored.sort(key=lambda t: (-t[0], t[1].id))
        return tuple(
            Candidate(
                entry, round(_overlap(mine, theirs), 3), differences(normal.fields, entry.fields)
            )
            for _, entry, theirs in scored[:n]
        )


def _essential(mine: tuple[Field, ...], recorded: list[tuple[Field, ...]]) -> set[tuple[str, str]]:
    """Parameters that select a response: id-like names, and names whose unmasked values differ
    between the recorded requests of this endpoint."""
    names = {(f.where, f.name) for fields in [mine, *recorded] for f in fields if f.where in PARAMS}
    out = set()
    for where, name in names:
        if _ID_LIKE.match(name):
            out.add((where, name))
            continue
        values = {
            tuple(sorted(f.value for f in fs if (f.where, f.name) == (where, name)))
            for fs in recorded
        }
        if len(values) > 1 and not any(MASK in v for v in values):
            out.add((where, name))
    return out


def _params(fields: tuple[Field, ...], essential: set[tuple[str, str]]) -> list[Field]:
    return sorted(f for f in fields if (f.where, f.name) in essential)


def _overlap(a: tuple[Field, ...], b: tuple[Field, ...]) -> float:
    ca, cb = Counter(a), Counter(b)
    union = sum((ca | cb).values())
    return sum((ca & cb).values()) / union if union else 1.0


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
