"""The one percentile every benchmark reports agrees with the standard library's definitions."""

from __future__ import annotations

import random
import statistics

import pytest

from webdojo.bench.percentiles import percentile


def test_it_matches_statistics_quantiles_inclusive_and_the_median() -> None:
    rng = random.Random(13)
    for n in (2, 3, 4, 7, 20, 101):
        values = [rng.uniform(0, 10) for _ in range(n)]
        cuts = statistics.quantiles(values, n=100, method="inclusive")
        for q in range(1, 100):
            assert percentile(values, q) == pytest.approx(cuts[q - 1])
        assert percentile(values, 50) == pytest.approx(statistics.median(values))
        assert percentile(values, 0) == min(values) and percentile(values, 100) == max(values)


def test_edges() -> None:
    assert percentile([], 50) is None
    assert percentile([4.0], 99) == 4.0
    assert percentile([1.0, 2.0], 50) == 1.5  # an even count: halfway, as the median
    assert percentile(iter([3.0, 1.0, 2.0]), 50) == 2.0  # any iterable, in any order
    with pytest.raises(ValueError, match="outside 0-100"):
        percentile([1.0], 101)
