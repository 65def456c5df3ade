"""The index-lookup part of ``webdojo bench cache``: ``Matcher.match`` on a big archive.

A synthetic archive of ``n`` exchanges (tiny bodies) spreads over 50 hosts and 40 paths a
host; every request carries a selecting parameter (``id``), a cache-buster (``_``, a default
rule), a session id (``sid``, masked by a *learned* rule written into the archive's
``rules.yaml`` before it is built) and a constant ``ref``. Probes are made from recorded
requests so that each should resolve at a known level:

- L0: the recorded request as it was;
- L1: a new cache-buster value;
- L2: a new ``sid`` (only the learned rule masks it);
- L3: a new ``ref`` (same endpoint, same ``id``; no rule masks ``ref``);
- miss: a path never recorded on a recorded host.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from webdojo.bench.percentiles import percentile
from webdojo.cache.archive import RULES, Archive, ArchiveWriter
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.matcher import Matcher
from webdojo.cache.rules import Rule, dump_rules

HOSTS, PATHS = 50, 40
PROBE_KINDS = ("L0", "L1", "L2", "L3", "miss")
_EPOCH_S = 1_700_000_000
_BODY_HEADERS = (("Content-Type", "application/json"),)


@dataclass
class LookupResult:
    entries: int
    build_s: float  # writing the WARC and the index
    open_s: float  # Archive.open (rekeying included when rules changed)
    ms: dict[str, list[float]] = field(default_factory=dict)  # probe kind -> lookup times
    wrong_level: int = 0  # probes that resolved at another level than the one they aim at

    def quantile(self, kinds: tuple[str, ...], q: float) -> float:
        return percentile((t for k in kinds for t in self.ms.get(k, [])), q * 100) or 0.0

    def to_json(self) -> dict[str, Any]:
        hits = ("L0", "L1", "L2")
        return {
            "lookup_entries": self.entries,
            "lookup_build_s": round(self.build_s, 2),
            "lookup_p50_ms": round(self.quantile(hits, 0.50), 3),
            "lookup_p99_ms": round(self.quantile(hits, 0.99), 3),
            "lookup_by_level": {
                kind: {
                    "n": len(self.ms.get(kind, [])),
                    "p50_ms": round(self.quantile((kind,), 0.50), 3),
                    "p99_ms": round(self.quantile((kind,), 0.99), 3),
                }
                for kind in PROBE_KINDS
            },
            "lookup_wrong_level": self.wrong_level,
            # the names for the L3 and miss tails (also in lookup_by_level)
            "lookup_p99_ms_l3": round(self.quantile(("L3",), 0.99), 3),
            "miss_p99_ms": round(self.quantile(("miss",), 0.99), 3),
        }


def _url(host: int, path: int, params: dict[str, str]) -> str:
    return f"http://h{host}.synthetic.test/p{path}/items?{urlencode(params)}"


def _params(i: int) -> dict[str, str]:
    return {
        "id": str(i),
        "_": str((_EPOCH_S + i) * 1000),
        "sid": f"s{i * 7919 % 10**9}",
        "ref": "home",
    }


def _exchange(i: int) -> Exchange:
    host, path = i % HOSTS, (i // HOSTS) % PATHS
    params = _params(i)
    body = b'{"i":%d}' % i
    return Exchange(
        CapturedRequest("GET", _url(host, path, params)),
        CapturedResponse(200, _BODY_HEADERS, body, "OK"),
        visit=0,
        seq=i,
        started=_EPOCH_S + i / 1000,
    )


def learned_rules() -> list[Rule]:
    """The rule that only level 2 applies: ``sid`` on every synthetic host."""
    return [
        Rule(
            host="synthetic.test",
            where="query",
            name="sid",
            source="learned",
            note="synthetic session id",
            evidence=("cache bench",),
        )
    ]


def build_archive(path: Path, n: int) -> float:
    """Write an archive of ``n`` synthetic exchanges at ``path``; the seconds it took."""
    path.mkdir(parents=True, exist_ok=True)
    dump_rules(learned_rules(), path / RULES)
    started = time.perf_counter()
    with ArchiveWriter(path, source=f"cache bench: {n} synthetic exchanges", overwrite=True) as w:
        for i in range(n):
            w.add(_exchange(i))
    return time.perf_counter() - started


def probe(kind: str, i: int) -> CapturedRequest:
    """A request made from recorded exchange ``i`` that should resolve at level ``kind``."""
    host, path = i % HOSTS, (i // HOSTS) % PATHS
    params = _params(i)
    if kind == "L1":
        params["_"] = str((_EPOCH_S + 10**6 + i) * 1000)
    elif kind == "L2":
        params |= {"_": str((_EPOCH_S + 10**6 + i) * 1000), "sid": f"t{i}"}
    elif kind == "L3":
        params["ref"] = "elsewhere"
    elif kind == "miss":
        path += PATHS
    return CapturedRequest("GET", _url(host, path, params))


def time_lookups(path: Path, n: int, probes: int, seed: int = 0) -> LookupResult:
    """Open the archive at ``path`` and time ``probes`` lookups spread over the probe kinds
    (a fresh ``Matcher`` per kind, so the per-key order does not carry over)."""
    started = time.perf_counter()
    with Archive.open(path) as archive:
        result = LookupResult(n, 0.0, time.perf_counter() - started)
        rng = random.Random(seed)
        for kind in PROBE_KINDS:
            matcher = Matcher(archive.index, archive.rules)
            times: list[float] = []
            for _ in range(max(1, probes // len(PROBE_KINDS))):
                request = probe(kind, rng.randrange(n))
                t0 = time.perf_counter()
                match = matcher.match(request)
                times.append((time.perf_counter() - t0) * 1000)
                if (match.level or "miss") != kind:
                    result.wrong_level += 1
            result.ms[kind] = times
        return result


def run_lookup_bench(work: Path, n: int, probes: int = 2000) -> LookupResult:
    build_s = build_archive(work, n)
    result = time_lookups(work, n, probes)
    result.build_s = build_s
    return result
