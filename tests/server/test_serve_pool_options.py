"""``webdojo serve``'s worker flags reach the worker of every kind of pool (no browser starts:
pools start their workers only when the server starts)."""

from __future__ import annotations

import pytest

from webdojo.server.pool.inline import InlinePool
from webdojo.server.pool.local import LocalPool
from webdojo.server.serve import _pool_options, build_pool
from webdojo.server.worker.config import WorkerConfig


def _worker_config(workers: int, *, spare: bool = False, preload: bool = True) -> WorkerConfig:
    options = _pool_options(None, workers, None, spare, None, warm_preload=preload)
    pool = build_pool(workers, None, **options)
    if isinstance(pool, InlinePool):
        return pool.worker.config
    assert isinstance(pool, LocalPool)
    return pool.config.worker


@pytest.mark.parametrize("workers", [0, 2])
def test_no_warm_preload_reaches_the_worker(workers: int) -> None:
    assert _worker_config(workers).warm_preload  # the default
    config = _worker_config(workers, preload=False)
    assert not config.warm_preload
    assert config.warm_contexts == WorkerConfig().warm_contexts  # warm pages stay, blank


def test_spare_browser_and_no_preload_together() -> None:
    config = _worker_config(2, spare=True, preload=False)
    assert config.spare_browser and not config.warm_preload
