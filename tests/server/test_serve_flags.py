"""``webdojo serve`` flags that reach each session: the download caps, through a real server
process and a page that downloads a file."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from isolation_site import IsolationSite, serve_isolation_site
from webdojo.server.child_process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def site() -> Iterator[IsolationSite]:
    with serve_isolation_site() as s:
        yield s


async def _download_errors(server: ServerProcess, url: str) -> list[str | None]:
    """Open ``url`` (a page that downloads a file) and observe until a download is reported."""
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        created = await client.post("/v1/sessions", json={"start_url": url})
        assert created.status_code == 201, created.text
        session = created.json()["session_id"]
        seen = created.json()["observation"]["downloads"]
        async with asyncio.timeout(30):
            while not seen:
                await asyncio.sleep(0.05)
                observed = await client.post(f"/v1/sessions/{session}/observe")
                seen = observed.json()["downloads"]
        await client.delete(f"/v1/sessions/{session}")
    return [(d.get("error") or {}).get("code") for d in seen]


async def test_max_downloads_reaches_the_sessions(site: IsolationSite) -> None:
    allow = ["--allow-host", site.url]  # the test site, as an operator allows a local server
    with ServerProcess(["--workers", "0", "--max-downloads", "0", *allow]) as server:
        refused = await _download_errors(server, site.plant_url("serve-cap"))
    assert refused == ["too_many_downloads"]
    with ServerProcess(["--workers", "0", *allow]) as server:  # the control: default caps
        kept = await _download_errors(server, site.plant_url("serve-default"))
    assert kept == [None]
