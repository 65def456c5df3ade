"""hypothesis settings for the property tests: deterministic in CI.

``derandomize`` makes each test draw the same examples on every run (so a failure in CI is a
failure on a laptop), ``database=None`` keeps nothing between runs, and ``deadline=None``
because a shared 2-core machine makes timings meaningless. ``HYPOTHESIS_PROFILE=explore``
searches longer, with fresh randomness, when hunting for bugs by hand.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=80,  # the suite runs on 2 cores; HYPOTHESIS_PROFILE=explore searches longer
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "explore", settings.get_profile("ci"), derandomize=False, max_examples=5_000
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
