"""Visual diversity of generated sites: a difference hash (dHash) of each home-page screenshot,
and the Hamming distances between every pair.

dHash: shrink to 9x8 grey pixels and keep one bit per horizontal neighbour pair (is the left
one brighter?). Similar layouts and colors give hashes a few bits apart; the 64-bit distance
between unrelated pages is typically 20-40. Computed with Pillow: no extra dependency.
"""

from __future__ import annotations

import io
import itertools
import statistics
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

HASH_SIZE = 8  # 8x8 = 64 bits
NEAR_DUPLICATE_BITS = 10  # pairs at most this far apart are reported as near-duplicates


def dhash(png: bytes) -> str:
    """The 64-bit difference hash of an image, as 16 hex digits."""
    with Image.open(io.BytesIO(png)) as image:
        grey = image.convert("L").resize((HASH_SIZE + 1, HASH_SIZE), Image.Resampling.LANCZOS)
        pixels = grey.tobytes()  # one byte a pixel, row by row
    bits = 0
    for row in range(HASH_SIZE):
        for col in range(HASH_SIZE):
            left = pixels[row * (HASH_SIZE + 1) + col]
            right = pixels[row * (HASH_SIZE + 1) + col + 1]
            bits = (bits << 1) | (left > right)
    return f"{bits:016x}"


def distance(a: str, b: str) -> int:
    """Hamming distance of two hashes."""
    return (int(a, 16) ^ int(b, 16)).bit_count()


@dataclass
class Diversity:
    sites: int = 0
    pairs: int = 0
    min_distance: int | None = None
    mean_distance: float | None = None
    near_duplicates: list[tuple[str, str, int]] = field(default_factory=list)  # a, b, bits
    histogram: dict[int, int] = field(default_factory=dict)  # distance -> pairs

    def to_json(self) -> dict[str, Any]:
        return {
            "sites": self.sites,
            "pairs": self.pairs,
            "min_distance": self.min_distance,
            "mean_distance": self.mean_distance,
            "near_duplicate_bits": NEAR_DUPLICATE_BITS,
            "near_duplicates": [
                {"a": a, "b": b, "distance": d} for a, b, d in self.near_duplicates
            ],
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
        }


def measure(hashes: dict[str, str], threshold: int = NEAR_DUPLICATE_BITS) -> Diversity:
    """Pairwise distances of ``name -> hash``; near-duplicates closest first."""
    result = Diversity(sites=len(hashes))
    distances = []
    for (a, ha), (b, hb) in itertools.combinations(sorted(hashes.items()), 2):
        d = distance(ha, hb)
        distances.append(d)
        result.histogram[d] = result.histogram.get(d, 0) + 1
        if d <= threshold:
            result.near_duplicates.append((a, b, d))
    result.pairs = len(distances)
    if distances:
        result.min_distance = min(distances)
        result.mean_distance = round(statistics.fmean(distances), 2)
    result.near_duplicates.sort(key=lambda pair: pair[2])
    return result
