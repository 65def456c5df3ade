"""The one percentile every benchmark reports.

Linear interpolation between the two nearest ranks (numpy's default, and
``statistics.quantiles(method="inclusive")``): p0 is the minimum, p100 the maximum and p50 the
median as ``statistics.median`` gives it, so a p50 in one table and a median in another agree.
Over few samples a high percentile lies between the two largest, not at the maximum: reports
that care about the worst case print the maximum beside it.
"""

from __future__ import annotations

from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float | None:
    """The ``q``-th percentile (``q`` in 0-100) of ``values``; None without values."""
    ordered = sorted(values)
    if not ordered:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0-100")
    position = q / 100 * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
