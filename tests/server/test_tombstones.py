"""The ring of ended session ids: what it remembers, what it forgets, and that it does not grow."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest

from webdojo.server.api import tombstones
from webdojo.server.api.tombstones import Tombstones


def _one_bucket(monkeypatch: pytest.MonkeyPatch, digests: dict[str, bytes] | None = None) -> None:
    """Send every id to bucket 0, so that the test sees one ring of capacity / BUCKETS."""

    def fake(sid: str) -> bytes:
        if digests and sid in digests:
            return digests[sid]
        return b"\x00" + sid.encode().ljust(tombstones.DIGEST - 1, b".")

    monkeypatch.setattr(tombstones, "digest", fake)


def test_remembers_how_each_session_ended_and_forgets_the_oldest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _one_bucket(monkeypatch)
    ring = Tombstones(("closed", "expired"), capacity=3 * tombstones.BUCKETS)
    for name, kind in (("a", "closed"), ("b", "expired"), ("c", "closed")):
        ring.add(name, kind)
    assert [ring.get(n) for n in "abc"] == ["closed", "expired", "closed"]
    assert ring.get("never") is None
    ring.add("d", "expired")  # written over "a"
    assert ring.get("a") is None
    assert [ring.get(n) for n in "bcd"] == ["expired", "closed", "expired"]
    assert len(ring) == 3


def test_a_digest_found_across_two_slots_is_not_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two stored digests whose joint bytes hold a third one at an unaligned offset.
    x, y = bytes.fromhex("0011111100222222"), bytes.fromhex("0033333333333333")
    z = bytes.fromhex("0022222200333333")
    assert z in x + y
    _one_bucket(monkeypatch, {"x": x, "y": y, "z": z})
    ring = Tombstones(("closed",), capacity=4 * tombstones.BUCKETS)
    ring.add("x", "closed")
    ring.add("y", "closed")
    assert ring.get("z") is None
    ring.add("z", "closed")
    assert ring.get("z") == "closed"


def test_an_empty_slot_is_not_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    _one_bucket(monkeypatch, {"zeros": bytes(tombstones.DIGEST)})
    ring = Tombstones(("closed",), capacity=4 * tombstones.BUCKETS)
    assert ring.get("zeros") is None


def test_real_ids_spread_over_the_buckets_and_the_newest_are_kept() -> None:
    ring = Tombstones(("closed",), capacity=16 * tombstones.BUCKETS)
    # fixed ids, so the spread over the buckets is the same on every run
    ids = [f"session-{i}" for i in range(20 * tombstones.BUCKETS)]
    for sid in ids:
        ring.add(sid, "closed")
    assert len(ring) > 15 * tombstones.BUCKETS  # buckets fill about evenly
    assert all(ring.get(sid) == "closed" for sid in ids[-4 * tombstones.BUCKETS :])
    assert sum(ring.get(sid) is None for sid in ids[: 2 * tombstones.BUCKETS]) > tombstones.BUCKETS


def test_capacity_zero_remembers_nothing() -> None:
    ring = Tombstones(("closed",), capacity=0)
    ring.add("a", "closed")
    assert ring.get("a") is None and len(ring) == 0


def test_an_unknown_kind_is_refused() -> None:
    ring = Tombstones(("closed",), capacity=2)
    with pytest.raises(ValueError):
        ring.add("a", "lost")


def _kept_by(module_file: str, fill: Callable[[], None]) -> int:
    """Bytes still held after ``fill()`` by allocations made in ``module_file`` (other tests'
    threads and tasks may allocate meanwhile: only that file's lines count)."""
    only = [tracemalloc.Filter(True, module_file)]
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot().filter_traces(only)
        fill()
        after = tracemalloc.take_snapshot().filter_traces(only)
    finally:
        tracemalloc.stop()
    return sum(s.size_diff for s in after.compare_to(before, "filename"))


def test_ending_many_sessions_allocates_nothing_that_stays() -> None:
    """The ring keeps nothing per ended id. The control, a dict of the ids (the old way), keeps
    its table, about 20 B per id here where the id strings are held elsewhere: the measure
    does see growth of that size."""
    ring = Tombstones(("closed", "expired"), capacity=1_000)
    ids = [f"session-{i}" for i in range(5_000)]

    def fill_ring() -> None:
        for i, sid in enumerate(ids):
            ring.add(sid, "closed" if i % 2 else "expired")

    assert _kept_by(tombstones.__file__, fill_ring) < 1_000  # a few ints: counters
    assert ring.get(ids[-1]) == "closed" and ring.get(ids[0]) is None

    remembered: dict[str, str] = {}

    def fill_dict() -> None:
        for sid in ids:
            remembered[sid] = "closed"

    assert _kept_by(__file__, fill_dict) > 10 * len(ids)
