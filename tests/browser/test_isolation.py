"""Isolation between sessions of one BrowserHost, and the session's download directory.

A canary planted in one session (cookies by header and by JS, localStorage, sessionStorage,
IndexedDB, Cache API, an HTTP cache entry, a download) is seen again by that same session (the
positive control: the probe can see it) and never by another one, open at the same time or
opened after the first closed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_helpers import TEST_OPTIONS

from isolation_site import ALL_CANARIES, DOWNLOAD_BYTES, IsolationSite, serve_isolation_site
from webdojo.browser import BrowserHost, BrowserSession, SessionOptions
from webdojo.browser.downloads import ROOT_PREFIX, sweep_stale_roots
from webdojo.errors import ConfigError
from webdojo.observation import DownloadInfo, ObservationOptions

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

BARE = ObservationOptions(screenshot=False)
MB = 1024 * 1024


@pytest.fixture(scope="module")
def site() -> Iterator[IsolationSite]:
    with serve_isolation_site() as s:
        yield s


async def plant(session: BrowserSession, site: IsolationSite, token: str) -> None:
    """Plant ``token``'s canaries; check that the page's download was kept and reported."""
    await session.goto(site.plant_url(token))
    await site.wait_planted(token)
    async with asyncio.timeout(20):  # the server saw /planted: the browser is committing it
        while not session.page.url.endswith(f"/planted/{token}"):
            await asyncio.sleep(0.02)
    got = await downloads(session, 1)
    assert [(d.name, d.bytes, d.error) for d in got] == [
        (f"canary-{token}.bin", DOWNLOAD_BYTES, None)
    ]


async def probe(session: BrowserSession, site: IsolationSite, token: str) -> set[str]:
    url, probe_id = site.probe_url(token)
    await session.goto(url)
    return await site.seen(probe_id, token)


async def downloads(session: BrowserSession, count: int) -> list[DownloadInfo]:
    """Observe until ``count`` downloads have been reported."""
    seen: list[DownloadInfo] = []
    async with asyncio.timeout(20):
        while len(seen) < count:
            seen += (await session.observe(BARE)).downloads
            await asyncio.sleep(0.05)
    return seen


def on_disk(session: BrowserSession) -> dict[str, int]:
    assert session.downloads is not None
    return session.downloads.files()


async def test_concurrent_sessions_do_not_see_each_others_canaries(
    host: BrowserHost, site: IsolationSite
) -> None:
    a, b = await asyncio.gather(
        host.new_session(TEST_OPTIONS.allowing(site.url)),
        host.new_session(TEST_OPTIONS.allowing(site.url)),
    )
    try:
        await plant(a, site, "conc")
        assert site.hits["conc"] == 1

        assert await probe(b, site, "conc") == set()
        assert site.hits["conc"] == 2  # b's fetch missed the cache: it reached the server
        assert on_disk(b) == {} and (await b.observe(BARE)).downloads == []

        assert await probe(a, site, "conc") == ALL_CANARIES  # the control: a sees its own
        assert site.hits["conc"] == 2  # and its fetch came from its HTTP cache
        assert list(on_disk(a).values()) == [DOWNLOAD_BYTES]
    finally:
        await asyncio.gather(a.aclose(), b.aclose())


async def test_a_later_session_does_not_see_a_closed_ones_canaries(
    host: BrowserHost, site: IsolationSite
) -> None:
    async with await host.new_session(TEST_OPTIONS.allowing(site.url)) as a:
        await plant(a, site, "seq")
        assert await probe(a, site, "seq") == ALL_CANARIES
        assert site.hits["seq"] == 1
    async with await host.new_session(TEST_OPTIONS.allowing(site.url)) as b:
        assert await probe(b, site, "seq") == set()
        assert site.hits["seq"] == 2
        assert on_disk(b) == {}


async def test_download_dirs_are_removed_at_close_and_after_a_browser_kill(
    site: IsolationSite,
) -> None:
    host = await BrowserHost.launch()
    try:
        kept = await host.new_session(TEST_OPTIONS.allowing(site.url))
        killed = await host.new_session(TEST_OPTIONS.allowing(site.url))
        for session, token in ((kept, "close1"), (killed, "kill1")):
            await plant(session, site, token)
        assert kept.downloads is not None and killed.downloads is not None
        root = host.downloads.path
        assert root is not None and root.name.startswith(f"{ROOT_PREFIX}{os.getpid()}-")
        await kept.aclose()
        assert not kept.downloads.path.exists()

        assert host.pid is not None
        os.kill(host.pid, signal.SIGKILL)
        async with asyncio.timeout(20):
            while host.is_connected():
                await asyncio.sleep(0.05)
        assert killed.downloads.path.exists()  # nothing removed it yet: the test can fail
        await killed.aclose()
        assert not killed.downloads.path.exists()
    finally:
        await host.aclose()
    assert not root.exists()


def test_roots_of_dead_processes_are_swept() -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{dead.stdout.strip()}-"))
    (stale / "s-x").mkdir()
    mine = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-"))
    try:
        assert sweep_stale_roots() >= 1
        assert not stale.exists() and mine.exists()
    finally:
        mine.rmdir()


def test_download_caps_cannot_be_negative() -> None:
    with pytest.raises(ConfigError, match="max_download_mb"):
        SessionOptions(max_download_mb=-1)
    assert SessionOptions(max_downloads=0).max_downloads == 0  # 0: every download refused


@pytest.mark.parametrize("path", ["big/{n}", "big/{n}/unsized"])
async def test_an_over_cap_download_leaves_nothing_past_the_cap(
    host: BrowserHost, site: IsolationSite, path: str
) -> None:
    options = SessionOptions(
        action_timeout_s=10.0, navigation_timeout_s=10.0, max_download_mb=1
    ).allowing(site.url)
    async with await host.new_session(options) as session:
        await session.goto(site.url + "/download-page")
        await click_download(session, site.url + "/" + path.format(n=MB // 2))
        [small] = await downloads(session, 1)
        assert small.error is None and small.bytes == MB // 2

        await click_download(session, site.url + "/" + path.format(n=64 * MB))
        [big] = await downloads(session, 1)
        assert big.error is not None and big.error.code == "download_too_large"
        # How many bytes arrived before the cancel landed depends on load (on loopback a
        # busy machine may see all 64 MB first): the contract is what stays on disk
        assert big.error.fault == "env"
        assert sum(on_disk(session).values()) == MB // 2  # only the first, kept one


async def test_the_download_count_is_capped(host: BrowserHost, site: IsolationSite) -> None:
    options = SessionOptions(
        action_timeout_s=10.0, navigation_timeout_s=10.0, max_downloads=1
    ).allowing(site.url)
    async with await host.new_session(options) as session:
        await session.goto(site.url + "/download-page")
        await click_download(session, site.url + "/big/100")
        [first] = await downloads(session, 1)
        await click_download(session, site.url + "/big/200")
        [second] = await downloads(session, 1)
        assert first.error is None and first.bytes == 100
        assert second.error is not None and second.error.code == "too_many_downloads"
        assert list(on_disk(session).values()) == [100]


async def click_download(session: BrowserSession, url: str) -> None:
    """Start a download the way a page does (a link with ``download``)."""
    await session.page.evaluate(
        """u => { const a = document.createElement("a"); a.href = u; a.download = "";
                  document.body.appendChild(a); a.click(); a.remove(); }""",
        url,
    )
