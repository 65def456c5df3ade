"""Learning volatile fields: rules that let one recording of a session stand in for another.

An archive recorded with ``--visits N`` holds one session N times. Learning replays it against
itself offline: each request is looked up at level 2 among the *other* visits. Fields that two
requests meant as one (a miss and its nearest request of another visit; a request and its
counterpart in visit 0) both carry with different values become candidate rules, as do the
differences listed by the last browser replay's misses. A candidate is kept only if some miss
needs it and it merges no two requests of one visit that got different responses (``page=1``
and ``page=2`` differ within a visit, never across visits at one place). Rounds repeat until
nothing misses or nothing new is proposed.

Learning judges fields without the default rules: they guess from names and values (a number
that looks like a time), and a guess fails now and then (a token with no digit, a UUID under
an id-like name); a learned rule names what this site varies, with its evidence.
"""

from __future__ import annotations

import fnmatch
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webdojo.cache.archive import Archive, read_last_replay
from webdojo.cache.exchange import CapturedRequest
from webdojo.cache.index import Entry
from webdojo.cache.matcher import differences
from webdojo.cache.normalize import Field, normalize
from webdojo.cache.rules import _ID_LIKE, Rule, RuleSet, _host_matches
from webdojo.cache.selfreplay import ABSENT, Diff, ReplayMiss, SelfReplay

_LEARNABLE = frozenset({"query", "form", "json", "multipart", "header", "cookie"})


@dataclass(frozen=True)
class LearnConfig:
    max_rounds: int = 5  # replay, propose, verify passes at most
    evidence_per_rule: int = 3  # evidence strings kept on each rule
    value_chars: int = 14  # how much of a value an evidence string shows


@dataclass(frozen=True)
class Sighting:  # one field seen with two values where one request was meant
    host: str  # without port
    path: str
    where: str
    name: str
    evidence: str  # for people: which requests, which values


@dataclass
class LearnReport:
    rounds: int = 0
    rules: list[Rule] = field(default_factory=list)  # the rules learned (kept), in order
    rejected: list[tuple[Rule, str]] = field(default_factory=list)  # proposed, and why not
    misses_before: int = 0  # offline misses, learning view (no default rules), before
    misses_after: int = 0
    replay_misses_before: int = 0  # offline misses with every rule in force, at level 2
    replay_misses_after: int = 0
    saved: bool = False  # whether the rules went to the archive's rules.yaml

    def to_json(self) -> dict[str, Any]:
        rules = [
            {"host": r.host, "path": r.path, "where": r.where, "name": r.name} for r in self.rules
        ]
        counts = ("misses_before", "misses_after", "replay_misses_before", "replay_misses_after")
        return {
            "rounds": self.rounds,
            "rules": rules,
            **{k: getattr(self, k) for k in counts},
            "rejected": len(self.rejected),
            "saved": self.saved,
        }


# --- proposing --------------------------------------------------------------------------


def aligned(view: SelfReplay) -> list[tuple[int, int]]:
    """(visit 0 entry, later visit entry) pairs: within one endpoint, each later request goes
    with the unpaired visit-0 request that shares most field values (earliest on a tie)."""
    pairs = []
    first = view.visits[0] if view.visits else 0
    for members in view.by_endpoint.values():
        ref = sorted((i for i in members if view.entries[i].visit == first), key=_order(view))
        for visit in view.visits[1:]:
            free = list(ref)
            mine = sorted((i for i in members if view.entries[i].visit == visit), key=_order(view))
            for i in mine:
                if not free:
                    break
                best = max(free, key=lambda j: (_shared(view, i, j), -free.index(j)))
                free.remove(best)
                pairs.append((best, i))
    return pairs


def _order(view: SelfReplay) -> Any:
    return lambda i: (view.entries[i].seq, view.entries[i].id)


def _shared(view: SelfReplay, i: int, j: int) -> int:
    return sum((Counter(view.entries[i].fields) & Counter(view.entries[j].fields)).values())


def nearest(view: SelfReplay, i: int, extra: Sequence[Rule]) -> int | None:
    """The recorded request of another visit most like entry i once rules mask what they
    mask."""
    peers = view.peers(i)
    if not peers:
        return None
    mine = Counter(view.key(i, extra)[1])

    def score(j: int) -> tuple[int, int]:
        return (sum((mine & Counter(view.key(j, extra)[1])).values()), -view.entries[j].id)

    return max(peers, key=score)


def _open_diffs(view: SelfReplay, i: int, j: int, extra: Sequence[Rule]) -> list[Diff]:
    """Fields both requests have, with different values, that no rule masks yet."""
    a, b = view.entries[i], view.entries[j]
    masked = {(a.fields[k].where, a.fields[k].name) for k in view.masked(i, extra)}
    return [
        d
        for d in differences(a.fields, b.fields)
        if ABSENT not in (d[2], d[3]) and d[0] in _LEARNABLE and (d[0], d[1]) not in masked
    ]


def sightings(view: SelfReplay, extra: Sequence[Rule], config: LearnConfig) -> list[Sighting]:
    """Every volatile-looking field: aligned visits, offline misses, last replay's misses."""
    found: list[Sighting] = []
    pairs = aligned(view)
    for i in view.misses(extra):
        j = nearest(view, i, extra)
        if j is not None:  # the earlier visit first, so a pair seen both ways reads the same
            pairs.append((i, j) if view.entries[i].visit < view.entries[j].visit else (j, i))
    for i, j in pairs:
        a, b = view.entries[i], view.entries[j]
        for where, name, mine, theirs in _open_diffs(view, i, j, extra):
            text = (
                f"visit {a.visit} vs {b.visit}: {a.endpoint} {where} {name}: "
                f"{_short(mine, config)} != {_short(theirs, config)}"
            )
            found.append(Sighting(_bare(a.endpoint.host), a.endpoint.path, where, name, text))
    rules = (*view.base.at_level(2), *extra)
    for miss in view.replay:
        for where, name, mine, theirs in miss.differences:
            f = Field(where, name, mine)
            if ABSENT in (mine, theirs) or where not in _LEARNABLE:
                continue
            if any(r.applies_to(miss.endpoint, f) for r in rules):
                continue
            text = (
                f"last replay missed {miss.url}: {where} {name}: "
                f"{_short(mine, config)} != {_short(theirs, config)}"
            )
            found.append(Sighting(_bare(miss.endpoint.host), miss.endpoint.path, where, name, text))
    return found


def _short(value: str, config: LearnConfig) -> str:
    n = config.value_chars
    return value if len(value) <= n else value[: n - 1] + "…"


def _bare(host: str) -> str:
    return host.split(":")[0]


def propose(
    found: Sequence[Sighting], refused: set[tuple[str, ...]], config: LearnConfig
) -> list[Rule]:
    """One rule per field: a cookie under the hosts' common domain, anything else under its
    host; the paths' common prefix. A refused general rule falls back to one rule per path."""
    groups: dict[tuple[str, ...], list[Sighting]] = defaultdict(list)
    for s in found:  # a site's cookies ride to all its hosts: group them by site
        scope = ".".join(s.host.split(".")[-2:]) if s.where == "cookie" else s.host
        groups[(scope, s.where, s.name)].append(s)
    out: list[Rule] = []
    for items in groups.values():
        general = _rule(items, config)
        if general.key() not in refused:
            out.append(general)
            continue
        for host, path in sorted({(s.host, s.path) for s in items}):
            specific = _rule([s for s in items if (s.host, s.path) == (host, path)], config)
            if specific.key() not in refused:
                out.append(specific)
    return out


def _rule(items: Sequence[Sighting], config: LearnConfig) -> Rule:
    # evidence from as many paths as there are, then more of the same
    first = {s.path: s.evidence for s in reversed(items)}
    texts = dict.fromkeys([*first.values(), *(s.evidence for s in items)])
    evidence = tuple(texts)[: config.evidence_per_rule]
    return Rule(
        host=common_domain([s.host for s in items]),
        path=common_path([s.path for s in items]),
        where=items[0].where,
        name=items[0].name,
        source="learned",
        note=f"seen volatile {len(items)} times",
        evidence=evidence,
    )


def _common(items: Iterable[list[str]]) -> list[str]:
    out: list[str] = []
    for parts in zip(*items, strict=False):
        if len(set(parts)) != 1:
            break
        out.append(parts[0])
    return out


def common_domain(hosts: Sequence[str]) -> str:
    """One host itself; several: the longest domain (two labels at least) they all lie under,
    else "*"."""
    if len(set(hosts)) == 1:
        return hosts[0]
    common = _common(h.split(".")[::-1] for h in set(hosts))
    return ".".join(reversed(common)) if len(common) >= 2 else "*"


def common_path(paths: Sequence[str]) -> str:
    """One path itself; several: their common prefix of whole segments, ending in "/"."""
    unique = sorted(set(paths))
    if len(unique) == 1:
        return unique[0]
    prefix = "/".join(_common(p.split("/") for p in unique))
    return prefix + "/" if all(p.startswith(prefix + "/") for p in unique) else prefix or "/"


# --- verifying --------------------------------------------------------------------------


def verify(
    view: SelfReplay, kept: Sequence[Rule], proposed: Sequence[Rule], support: dict[Any, int]
) -> tuple[list[Rule], list[tuple[Rule, str]]]:
    """The proposed rules that cause no false match and that some miss needs."""
    alive = list(proposed)
    refused: list[tuple[Rule, str]] = []
    while alive:
        pairs = view.false_matches([*kept, *alive], kept)
        if not pairs:
            break
        i, j = pairs[0]
        culprits = _culprits(view, i, j, kept, alive)
        # the likelier mistake goes first: an id-like name, then the rule seen least
        worst = min(culprits or alive, key=lambda r: (not _ID_LIKE.match(r.name), support[r.key()]))
        alive.remove(worst)
        a, b = view.entries[i], view.entries[j]
        refused.append((worst, f"would serve one response for two: {a.url} and {b.url}"))
    cost = view.cost([*kept, *alive])
    accepted = []
    for rule in alive:
        if view.cost([*kept, *_without(alive, rule)]) > cost:
            accepted.append(rule)
        else:
            refused.append((rule, "no miss needs it"))
    return accepted, refused


def _culprits(
    view: SelfReplay, i: int, j: int, kept: Sequence[Rule], alive: Sequence[Rule]
) -> list[Rule]:
    """The rules of ``alive`` without which entries ``i`` and ``j`` would key apart."""
    out = []
    for rule in alive:
        rules = [*kept, *_without(alive, rule)]
        if view.key(i, rules) != view.key(j, rules):
            out.append(rule)
    return out


def _without(rules: Sequence[Rule], rule: Rule) -> list[Rule]:
    return [r for r in rules if r is not rule]


def learn(
    entries: Sequence[Entry],
    rules: RuleSet,
    replay: Sequence[ReplayMiss] = (),
    config: LearnConfig | None = None,
) -> LearnReport:
    """Learned rules for an archive's entries under its rules (the I/O-free core)."""
    config = config or LearnConfig()
    view = SelfReplay(
        entries, RuleSet(tuple(r for r in rules.rules if r.source != "default")), replay
    )
    full = SelfReplay(entries, rules)
    report = LearnReport(misses_before=view.cost([]), replay_misses_before=len(full.misses([])))
    kept: list[Rule] = []
    refused: dict[Any, tuple[Rule, str]] = {}
    while report.rounds < config.max_rounds and view.cost(kept) > 0:
        found = sightings(view, kept, config)
        proposed = [r for r in propose(found, set(refused), config) if r.key() not in refused]
        if not proposed:
            break
        report.rounds += 1
        support = _support(found, proposed)
        accepted, rejected = verify(view, kept, proposed, support)
        kept += accepted
        refused.update((r.key(), (r, why)) for r, why in rejected)
    report.rules = kept
    report.rejected = list(refused.values())
    report.misses_after = view.cost(kept)
    report.replay_misses_after = len(full.misses(kept))
    return report


def _support(found: Sequence[Sighting], proposed: Sequence[Rule]) -> dict[Any, int]:
    """How many sightings each proposed rule explains."""
    out: dict[Any, int] = {}
    for rule in proposed:
        out[rule.key()] = sum(
            1
            for s in found
            if (s.where, s.name) == (rule.where, rule.name)
            and _host_matches(rule.host, s.host)
            and s.path.startswith(rule.path)
        )
    return out


# --- archives ---------------------------------------------------------------------------


def replay_misses(last_replay: dict[str, Any] | None) -> list[ReplayMiss]:
    """The misses of a ``last_replay.json``, each with its nearest candidate's differences
    when that candidate has the same endpoint (other endpoints say nothing about fields)."""
    out = []
    for miss in (last_replay or {}).get("missed", []):
        try:
            endpoint = normalize(CapturedRequest(str(miss["method"]), str(miss["url"]))).endpoint
            near = (miss.get("nearest") or [None])[0]
            if near is None:
                continue
            theirs = normalize(CapturedRequest(endpoint.method, str(near["url"]))).endpoint
            diffs: tuple[Diff, ...] = tuple(
                (str(d[0]), str(d[1]), str(d[2]), str(d[3])) for d in near.get("differences", [])
            )
        except (KeyError, TypeError, ValueError, IndexError):
            continue  # a hand-edited or older file: its evidence is not worth an error
        if theirs == endpoint:
            out.append(ReplayMiss(endpoint, str(miss["url"]), diffs))
    return out


def learn_archive(path: Path, config: LearnConfig | None = None, save: bool = True) -> LearnReport:
    """Learn rules for the archive at ``path`` and (``save``) add them to its rules.yaml,
    so that its next replay matches with them at level 2."""
    with Archive.open(path) as archive:
        entries = list(archive.index.entries())
        report = learn(entries, archive.rules, replay_misses(read_last_replay(path)), config)
        if save and report.rules:
            archive.save_rules(archive.rules.with_rules(report.rules))
            report.saved = True
    return report


# --- scoring (the benchmark's) ----------------------------------------------------------

FieldId = tuple[str, str, str, str]  # host, path, where, name


def learned_fields(rules: Iterable[Rule]) -> set[FieldId]:
    """(host, path, where, name) of every learned rule."""
    return {(r.host, r.path, r.where, r.name) for r in rules if r.source == "learned"}


def _covers(learned: FieldId, truth: dict[str, str]) -> bool:
    host, path, where, name = learned
    if where not in ("any", truth["where"]) or not fnmatch.fnmatchcase(truth["name"], name):
        return False
    host_ok = truth["host"] == "*" or _host_matches(host, truth["host"])
    return host_ok and (truth["path"] == "*" or truth["path"].startswith(path))


def precision_recall(
    learned: Iterable[FieldId], manifest: Sequence[dict[str, str]]
) -> tuple[float, float]:
    """Precision: the share of learned fields that cover some true volatile field; recall:
    the share of true fields some learned one covers (1.0 for an empty side)."""
    fields = list(learned)
    correct = sum(1 for f in fields if any(_covers(f, t) for t in manifest))
    found = sum(1 for t in manifest if any(_covers(f, t) for f in fields))
    precision = correct / len(fields) if fields else 1.0
    recall = found / len(manifest) if manifest else 1.0
    return precision, recall
