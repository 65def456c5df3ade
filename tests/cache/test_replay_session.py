"""An archive as an environment option: a webdojo session browsing the imported iana.org crawl
with no network, through the same actions and observations as any episode."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shared_data import shared_file
from webdojo.actions import Click, Goto
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.cache.archive import Archive
from webdojo.cache.import_archive import import_archive
from webdojo.observation import ObservationOptions

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def iana(tmp_path_factory: pytest.TempPathFactory) -> Path:
    crawl = shared_file("warc/iana/iana.warc.gz")
    out = tmp_path_factory.mktemp("iana") / "archive"
    import_archive([crawl], out)
    return out


@pytest.fixture(scope="module")
async def host() -> AsyncIterator[BrowserHost]:
    async with await BrowserHost.launch() as browser:
        yield browser


async def test_the_iana_crawl_is_a_browsable_site(host: BrowserHost, iana: Path) -> None:
    session = await host.new_session(SessionOptions(archive=str(iana)))
    try:
        obs = await session.step(Goto(url="http://www.iana.org/"), ObservationOptions(marks=True))
        assert obs.last_error is None and "Internet Assigned Numbers Authority" in obs.title
        link = next(e for e in obs.elements if e.name == "Number Resources")
        obs = await session.step(Click(element=link.id), ObservationOptions())
        assert obs.url == "http://www.iana.org/numbers" and obs.last_error is None
        assert "Number Resources" in obs.title
        replayer = session.replayer
        assert replayer is not None
        stats = replayer.stats
        assert stats.served == stats.requests and stats.misses == 0
        assert stats.aborted_outbound == 0
    finally:
        await session.aclose()


async def test_hosts_outside_the_archive_are_refused_and_counted(
    host: BrowserHost, iana: Path
) -> None:
    session = await host.new_session(SessionOptions(archive=str(iana)))
    try:
        obs = await session.step(Goto(url="http://example.com/"), ObservationOptions())
        assert obs.last_error is not None
        assert session.replayer is not None and session.replayer.stats.aborted_outbound == 1
    finally:
        await session.aclose()


async def test_a_damaged_record_fails_its_request_and_the_page_goes_on(
    host: BrowserHost, iana: Path, tmp_path: Path
) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(iana, damaged)
    with Archive.open(damaged) as archive:
        css = next(e for e in archive.index.entries() if e.url.endswith("screen.css"))
    with open(damaged / "traffic.warc.gz", "r+b") as warc:  # garble the body's gzip member
        warc.seek(css.body_offset + 30)
        warc.write(b"\xff" * 64)
    session = await host.new_session(SessionOptions(archive=str(damaged)))
    try:
        obs = await session.step(Goto(url="http://www.iana.org/"), ObservationOptions())
        assert obs.last_error is None and "Internet Assigned Numbers Authority" in obs.title
        assert session.replayer is not None and session.replayer.stats.broken >= 1
        assert "offset" in session.replayer.broken[0]
    finally:
        await session.aclose()
