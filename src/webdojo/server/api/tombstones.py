"""How recently ended sessions ended, kept in a fixed block of memory.

The registry remembers ended session ids so that a late request gets ``session_closed`` or
``session_expired`` rather than an ambiguous ``unknown_session``. A dict of the last 10,000
ids cost about 200 B per ended session until it was full, two hours into a busy server. Here
each id costs 9 bytes in a ring allocated once: an 8-byte digest of the id and one byte for
how it ended, the oldest written over first.

A lookup scans one bucket of the ring with ``bytes.find`` (about 2 us when full); it runs only
for ids that are not live (requests to ended or unknown sessions), never on the step path.
Two ids share a digest with chance 2^-64 per pair: the worst case answers ``session_closed``
for an id that was never issued.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Generic, TypeVar

DIGEST = 8  # bytes per id
BUCKETS = 256  # by the digest's first byte, so that a lookup scans one bucket, not the ring
CAPACITY = 102_400  # 900 kB: about 22 h of the soak's rate of ended sessions

K = TypeVar("K")


def digest(session_id: str) -> bytes:
    return hashlib.blake2b(session_id.encode(), digest_size=DIGEST).digest()


class Tombstones(Generic[K]):
    """About the last ``capacity`` ended ids and how each ended (one of ``kinds``).

    The ring is cut into ``BUCKETS`` rings by the digest's first byte, each written over
    oldest first: with ids spread evenly, the ids forgotten are about the oldest overall."""

    def __init__(self, kinds: Sequence[K], capacity: int = CAPACITY) -> None:
        if not 0 < len(kinds) < 256:
            raise ValueError("between 1 and 255 kinds of ending")
        self._kinds = tuple(kinds)
        self._per_bucket = -(-capacity // BUCKETS) if capacity > 0 else 0
        self.capacity = self._per_bucket * BUCKETS
        self._digests = bytearray(self.capacity * DIGEST)
        self._kind = bytearray(self.capacity)  # 0: an empty slot, else 1 + the index in kinds
        self._next = [0] * BUCKETS  # per bucket: the slot written next, within the bucket
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, session_id: str, kind: K) -> None:
        code = self._kinds.index(kind) + 1  # ValueError for a kind not declared
        if self.capacity == 0:
            return
        key = digest(session_id)
        bucket = key[0]
        slot = bucket * self._per_bucket + self._next[bucket]
        self._count += self._kind[slot] == 0
        self._digests[slot * DIGEST : (slot + 1) * DIGEST] = key
        self._kind[slot] = code
        self._next[bucket] = (self._next[bucket] + 1) % self._per_bucket

    def get(self, session_id: str) -> K | None:
        """How the session ended, or None if it is not remembered (never seen, or too old).
        Session ids are never reused, so the first match is the only one."""
        if self.capacity == 0:
            return None
        key = digest(session_id)
        first = key[0] * self._per_bucket
        start, end = first * DIGEST, (first + self._per_bucket) * DIGEST
        at = self._digests.find(key, start, end)
        while at != -1:
            slot, offset = divmod(at, DIGEST)
            if offset == 0 and self._kind[slot]:
                return self._kinds[self._kind[slot] - 1]
            at = self._digests.find(key, at + 1, end)
        return None
