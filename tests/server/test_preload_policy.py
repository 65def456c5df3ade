"""Which start page a worker's warm pages load ahead (``server/worker/preload.py``): no browser,
the bookkeeping alone (the loading is tested in test_warm_preload.py)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from webdojo.browser.options import SessionOptions
from webdojo.server.worker.preload import Preload, PreloadPolicy

SITE = "http://127.0.0.1:8000"
OPTIONS = SessionOptions().allowing(SITE)


def _pages(*preloaded: str | None) -> Any:
    return [SimpleNamespace(preloaded=url) for url in preloaded]


def _opened_and_refilled(
    policy: PreloadPolicy, url: str, options: SessionOptions = OPTIONS
) -> bool:
    policy.opened(url, options)
    return policy.refilling()


def test_a_url_opened_twice_in_a_row_is_loaded_ahead_until_another_one_comes() -> None:
    policy = PreloadPolicy(SessionOptions(), pool_size=2, enabled=True)
    assert not _opened_and_refilled(policy, SITE + "/a")  # once: not yet
    assert policy.target(_pages(None, None)) is None
    assert _opened_and_refilled(policy, SITE + "/a")  # twice: wanted from now on
    assert policy.target(_pages(None, None)) == Preload(SITE + "/a", OPTIONS.network)
    assert not _opened_and_refilled(policy, SITE + "/a")  # kept, nothing stale
    assert _opened_and_refilled(policy, SITE + "/b")  # another: dropped (stale pages go)
    assert policy.wanted_url is None and policy.target(_pages(None, None)) is None


def test_a_pool_of_two_or_more_keeps_one_page_blank() -> None:
    for size, room in ((1, [None]), (2, [None, None]), (3, [SITE + "/a", None, None])):
        policy = PreloadPolicy(SessionOptions(), pool_size=size, enabled=True)
        _opened_and_refilled(policy, SITE + "/a")
        _opened_and_refilled(policy, SITE + "/a")
        assert policy.target(_pages(*room)) is not None, size
    policy = PreloadPolicy(SessionOptions(), pool_size=2, enabled=True)
    _opened_and_refilled(policy, SITE + "/a")
    _opened_and_refilled(policy, SITE + "/a")
    assert policy.target(_pages(SITE + "/a", None)) is None


def test_no_preload_when_off_after_a_failure_or_for_another_context() -> None:
    off = PreloadPolicy(SessionOptions(), pool_size=2, enabled=False)
    failed = PreloadPolicy(SessionOptions(), pool_size=2, enabled=True)
    other = PreloadPolicy(SessionOptions(), pool_size=2, enabled=True)
    # a network policy that differs in more than its origins: such episodes get cold contexts
    denying = replace(OPTIONS, network=replace(OPTIONS.network, deny_hosts=("*.example.com",)))
    for policy, options in ((off, OPTIONS), (failed, OPTIONS), (other, denying)):
        _opened_and_refilled(policy, SITE + "/a", options)
        _opened_and_refilled(policy, SITE + "/a", options)
    failed.failed(SITE + "/a")
    assert all(p.target(_pages(None, None)) is None for p in (off, failed, other))


def test_the_latest_episodes_network_policy_is_the_one_loaded_under() -> None:
    policy = PreloadPolicy(SessionOptions(), pool_size=2, enabled=True)
    wider = OPTIONS.allowing("http://127.0.0.1:9000")
    _opened_and_refilled(policy, SITE + "/a")
    _opened_and_refilled(policy, SITE + "/a")
    assert not _opened_and_refilled(policy, SITE + "/a", wider)  # same URL: nothing stale
    target = policy.target(_pages(None, None))
    assert target is not None and target.network == wider.network
