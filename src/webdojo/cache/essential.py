"""Level 3's essential parameters: the ones that tell an endpoint's responses apart.

A parameter (a ``query``, ``form``, ``json``, ``multipart`` or ``body`` field) is essential
when its name says it selects something (id, page, q, ...: ``rules._ID_LIKE``), or when its
value differs between the recorded requests of the endpoint, absence counting as a value, and
no rule masks it in any of them. The set is computed over *all* of an endpoint's recorded
requests, once, when the index is keyed (``Index.insert``, ``Index.rekey``), and each entry
gets an ``l3`` key: its endpoint with its level-2-masked essential parameters. A lookup then
keys the incoming request the same way and finds its candidates with one indexed query.
"""

from __future__ import annotations

from collections.abc import Iterable

from webdojo.cache.normalize import Endpoint, Field, signature
from webdojo.cache.rules import _ID_LIKE, MASK

PARAMS = frozenset({"query", "form", "json", "multipart", "body"})
Name = tuple[str, str]  # (where, name)


def essential_names(recorded: Iterable[tuple[Field, ...]]) -> frozenset[Name]:
    """The essential parameter names of an endpoint, from its recorded requests' level-2-
    masked fields. One pass: each name's values per request, then which names vary."""
    seen: dict[Name, set[tuple[str, ...]]] = {}  # name -> the value tuples requests gave it
    present: dict[Name, int] = {}  # name -> requests that have it
    requests = 0
    for fields in recorded:
        requests += 1
        values: dict[Name, list[str]] = {}
        for f in fields:
            if f.where in PARAMS:
                values.setdefault((f.where, f.name), []).append(f.value)
        for name, vals in values.items():
            seen.setdefault(name, set()).add(tuple(sorted(vals)))
            present[name] = present.get(name, 0) + 1
    out = set()
    for name, tuples in seen.items():
        if _ID_LIKE.match(name[1]):
            out.add(name)
            continue
        kinds = len(tuples) + (present[name] < requests)  # a request without it: one more
        if kinds > 1 and not any(MASK in t for t in tuples):
            out.add(name)
    return frozenset(out)


def asks_unrecorded(fields: tuple[Field, ...], essential: frozenset[Name]) -> bool:
    """Whether a request names something (an id-like parameter) that no recorded request of
    the endpoint has: no recorded response can be the one it asks for."""
    return any(
        f.where in PARAMS and (f.where, f.name) not in essential and _ID_LIKE.match(f.name)
        for f in fields
    )


def l3_key(endpoint: Endpoint, masked: tuple[Field, ...], essential: frozenset[Name]) -> str:
    """The level-3 key: the endpoint with the essential ones of the level-2-masked fields."""
    return signature(endpoint, [f for f in masked if (f.where, f.name) in essential])
