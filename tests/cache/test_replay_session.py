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
from webdojo.cache.archive import Archive, ArchiveWriter
from webdojo.cache.exchange import CapturedRequest, CapturedResponse, Exchange
from webdojo.cache.import_archive import import_archive
from webdojo.cache.replayer import Replayer, ReplayOptions, Via
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
        for n, url in enumerate(("http://example.com/", "https://example.com/"), 1):
            obs = await session.step(Goto(url=url), ObservationOptions())
            assert obs.last_error is not None and obs.last_error.code == "blocked_by_policy"
            assert "not in the replayed archive" in obs.last_error.message
            assert session.replayer is not None and session.replayer.stats.aborted_outbound == n
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


SHOP_HTML = b"""<!doctype html><html><head><title>loading</title>
<link rel="stylesheet" href="/site.css"><script src="https://cdn.shop.test/app.js"></script>
</head><body><h1>Shop</h1></body></html>"""
# a credentialed cross-origin POST with its own headers: the browser sends a CORS preflight
APP_JS = b"""fetch("https://api.shop.test/me", {method: "POST", credentials: "include",
  headers: {"Content-Type": "application/json", "X-Token": "t"}, body: "{}"})
  .then((r) => r.json())
  .then((d) => { document.title = d.name + " " + (isSecureContext ? "secure" : "insecure")
    + " " + document.cookie; });"""


def https_shop(path: Path) -> Path:
    cors = (
        ("Content-Type", "application/json"),
        ("Access-Control-Allow-Origin", "https://www.shop.test"),
        ("Access-Control-Allow-Credentials", "true"),
    )
    home = (("Content-Type", "text/html"), ("Set-Cookie", "sid=abc; Secure; SameSite=None"))
    pages = [
        (CapturedRequest("GET", "https://www.shop.test/"), home, SHOP_HTML),
        (
            CapturedRequest("GET", "https://www.shop.test/site.css"),
            (("Content-Type", "text/css"),),
            b"h1{color:red}",
        ),
        (
            CapturedRequest("GET", "https://cdn.shop.test/app.js"),
            (("Content-Type", "text/javascript"),),
            APP_JS,
        ),
        (CapturedRequest("POST", "https://api.shop.test/me", (), b"{}"), cors, b'{"name": "Ada"}'),
    ]
    with ArchiveWriter(path, source="test") as writer:
        for n, (request, headers, body) in enumerate(pages):
            response = CapturedResponse(200, headers, body, "OK")
            writer.add(Exchange(request, response, seq=n, started=1_700_000_000.0 + n))
    return path


@pytest.mark.parametrize("via", ["proxy", "route"])
async def test_an_https_site_replays_as_a_secure_origin(
    host: BrowserHost, tmp_path: Path, via: Via
) -> None:
    with Archive.open(https_shop(tmp_path / "shop")) as archive:
        replayer = Replayer(archive, ReplayOptions(via=via))
        async with host.replay_context(replayer) as context:
            page = await context.new_page()
            await page.goto("https://www.shop.test/", wait_until="load")
            await page.wait_for_function("document.title !== 'loading'", timeout=10_000)
            assert await page.title() == "Ada secure sid=abc"
            assert await page.evaluate("getComputedStyle(document.querySelector('h1')).color") == (
                "rgb(255, 0, 0)"
            )
    stats = replayer.stats
    assert stats.requests == stats.served == 4 and stats.misses == stats.aborted_outbound == 0
    assert stats.preflights == (1 if via == "proxy" else 0)  # a route never sees it
