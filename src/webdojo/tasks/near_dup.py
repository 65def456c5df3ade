"""Near-duplicate instructions, found with MinHash and locality-sensitive hashing, so that one
synthetic source that says the same thing many times over cannot flood a sample.

An instruction is the set of its word 3-grams (lower-cased ``\\w+`` words; an instruction of
one or two words is one shingle). Its signature is the minimum of 64 seeded hash functions over
that set; the share of equal signature entries estimates the Jaccard similarity of two sets.
The signature is cut into 16 bands of 4 rows: two instructions are compared only when a band is
equal (likely above a similarity of about 0.5), and are near-duplicates when their estimated
similarity is at least ``threshold`` (0.8 by default).

Everything is seeded with constants (CRC-32 of words, a fixed generator for the permutations),
so signatures are the same in every process and run. Signatures are computed a chunk of
instructions at a time with numpy: about 10 µs an instruction.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

NUM_PERM, BANDS = 64, 16
ROWS = NUM_PERM // BANDS
DEFAULT_THRESHOLD = 0.8
_MASK32 = np.uint64(0xFFFFFFFF)
_K1, _K2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F)
_rng = np.random.default_rng(20240611)  # fixed: signatures must not depend on --seed
_A = _rng.integers(0, 2**63, size=(NUM_PERM, 1), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
_B = _rng.integers(0, 2**63, size=(NUM_PERM, 1), dtype=np.uint64)
_SHIFT = np.uint64(32)
_BAND_MIX = np.array([(0x100000001B3**i) % 2**64 for i in range(ROWS)], dtype=np.uint64)
_WORD = re.compile(r"\w+")
_word_hashes: dict[str, int] = {}


def _word_ids(text: str) -> list[int]:
    ids = []
    for word in _WORD.findall(text.lower()):
        value = _word_hashes.get(word)
        if value is None:
            value = _word_hashes[word] = zlib.crc32(word.encode()) + 1  # 0 pads short texts
        ids.append(value)
    return ids + [0] * (3 - len(ids)) if len(ids) < 3 else ids


def signatures(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(signatures: n x NUM_PERM uint32, band keys: n x BANDS uint64) of ``texts``."""
    n = len(texts)
    if n == 0:
        return np.zeros((0, NUM_PERM), np.uint32), np.zeros((0, BANDS), np.uint64)
    words = [_word_ids(t) for t in texts]
    lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=n)
    flat = np.fromiter((i for w in words for i in w), dtype=np.uint64, count=int(lengths.sum()))
    # a 3-gram starts at every word but the last two of each text
    valid = np.ones(len(flat), dtype=bool)
    ends = np.cumsum(lengths)
    valid[ends - 1] = False
    valid[ends - 2] = False
    starts = np.flatnonzero(valid)
    with np.errstate(over="ignore"):  # wrapping multiplication is the mixing we want
        shingles = (flat[starts] * _K1 + flat[starts + 1] * _K2 + flat[starts + 2]) & _MASK32
        # multiply-shift hashing: the high 32 bits of a*x + b (mod 2**64), a odd
        hashed = (_A * shingles[None, :] + _B) >> _SHIFT  # NUM_PERM x shingles
        firsts = np.concatenate(([0], np.cumsum(lengths - 2)[:-1]))
        sig = np.minimum.reduceat(hashed, firsts, axis=1).T.astype(np.uint32)
        bands = (sig.reshape(n, BANDS, ROWS).astype(np.uint64) * _BAND_MIX).sum(axis=2)
    return sig, bands


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """The estimated Jaccard similarity of two signatures."""
    return float(np.count_nonzero(a == b)) / NUM_PERM


class NearDupFilter:
    """Accepts instructions that are not near-duplicates of one accepted before."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self._buckets: list[dict[int, list[int]]] = [{} for _ in range(BANDS)]
        self._sigs: list[np.ndarray] = []

    def __len__(self) -> int:
        return len(self._sigs)

    def offer(self, sig: np.ndarray, bands: Sequence[int]) -> int | None:
        """Accept the instruction (None), or return the index (in acceptance order) of the
        accepted one it nearly duplicates (and do not accept it)."""
        keys = [int(k) for k in bands]
        checked: set[int] = set()
        for band, key in enumerate(keys):
            for other in self._buckets[band].get(key, ()):
                if other not in checked:
                    checked.add(other)
                    if similarity(sig, self._sigs[other]) >= self.threshold:
                        return other
        index = len(self._sigs)
        self._sigs.append(sig)
        for band, key in enumerate(keys):
            self._buckets[band].setdefault(key, []).append(index)
        return None
