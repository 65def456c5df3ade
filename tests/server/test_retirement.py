"""When workers retire: the default, the first workers' staggered shares, and the flag's checks
(the retirement itself runs in test_worker_retire.py)."""

from __future__ import annotations

import pytest

from webdojo.errors import ConfigError
from webdojo.server.pool.local import LocalPoolConfig
from webdojo.server.pool.retirement import DEFAULT_MAX_WORKER_SESSIONS, retire_after
from webdojo.server.serve import checked_retirement


def test_managed_pools_retire_workers_by_default() -> None:
    assert DEFAULT_MAX_WORKER_SESSIONS > 0
    assert LocalPoolConfig().max_worker_sessions == DEFAULT_MAX_WORKER_SESSIONS


def test_the_first_workers_retire_apart_and_later_ones_after_the_whole_limit() -> None:
    firsts = [retire_after(250, slot, 2, generation=1) for slot in range(2)]
    assert firsts == [250, 125]
    assert [retire_after(300, slot, 3, generation=1) for slot in range(3)] == [300, 200, 100]
    assert [retire_after(250, slot, 2, generation=2) for slot in range(2)] == [250, 250]
    assert retire_after(250, 0, 1, generation=1) == 250  # one worker: nothing to stagger
    assert retire_after(1, 1, 2, generation=1) == 1  # never below one session
    assert retire_after(0, 1, 2, generation=1) == 0  # 0: never
    assert retire_after(0, 0, 2, generation=3) == 0


def test_the_flag_is_refused_where_no_worker_can_be_replaced() -> None:
    assert checked_retirement(0, 0, None) == 0  # "never" is fine for the server's own process
    assert checked_retirement(5, 2, None) == 5
    assert checked_retirement(5, 0, "auto") == 5  # --ray places at least one actor
    with pytest.raises(ConfigError, match="--workers N or --ray"):
        checked_retirement(5, 0, None)
    with pytest.raises(ConfigError, match="0 or more"):
        checked_retirement(-1, 1, None)
