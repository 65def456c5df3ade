"""A client's ``start_url`` goes through the server's network policy as an agent's goto does:
refused at create (422 bad_start_url, naming ``--allow-host``) before any browser work, so a
decoy server on loopback is never reached. The server's own site server is allowed by its
origin (task sessions open), and an operator's ``--allow-host`` lets their own server in."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest
from _pool_fixtures import FAST

from start_url_cases import SPELLINGS, Decoy
from webdojo.asgi import ThreadServer
from webdojo.errors import BadStartUrl
from webdojo.observation import ObservationOptions
from webdojo.rollout.http_env import HttpEnv
from webdojo.server.child_process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

TASK = "shop.add-runner"  # a built-in task: its start page is on the server's site server


@pytest.fixture(scope="module")
def decoy() -> Iterator[Decoy]:
    served = Decoy()
    yield served
    served.server.close()


@pytest.fixture
async def client(app_server: ThreadServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=app_server.url, timeout=60) as c:
        yield c


@pytest.mark.parametrize("spelling", SPELLINGS)
async def test_a_private_start_url_is_refused_at_create(
    client: httpx.AsyncClient, decoy: Decoy, spelling: str
) -> None:
    case = f"/start/{spelling}"
    url = "http://" + SPELLINGS[spelling].format(p=decoy.port) + case
    response = await client.post("/v1/sessions", json={"start_url": url})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_start_url" and "--allow-host http://" in error["message"]
    assert "network policy" in error["message"] and error["details"]["port"] == decoy.port
    assert (await client.get("/v1/health")).json()["sessions"] == 0  # nothing was opened
    assert [path for path in decoy.seen if path == case] == []


async def test_http_env_gets_bad_start_url(app_server: ThreadServer, decoy: Decoy) -> None:
    env = HttpEnv(app_server.url)
    try:
        with pytest.raises(BadStartUrl, match="allow-host"):
            await env.open_url(f"{decoy.url}/start/client", ObservationOptions())
    finally:
        await env.aclose()
    assert "/start/client" not in decoy.seen


async def test_the_servers_own_site_opens(client: httpx.AsyncClient) -> None:
    """A task session starts on the server's site server: its origin is allowed, and so is
    a start_url at that origin."""
    created = await client.post("/v1/sessions", json={"task_id": TASK})
    assert created.status_code == 201, created.text
    first = created.json()["observation"]["url"]
    await client.delete(f"/v1/sessions/{created.json()['session_id']}")
    again = await client.post("/v1/sessions", json={"start_url": first})
    assert again.status_code == 201, again.text
    assert again.json()["observation"]["url"] == first
    await client.delete(f"/v1/sessions/{again.json()['session_id']}")


async def test_an_allowed_origin_in_the_server_settings_lets_it_in(
    make_server: Callable[..., ThreadServer], decoy: Decoy
) -> None:
    server = make_server(session=FAST.allowing(decoy.url))
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        created = await client.post("/v1/sessions", json={"start_url": f"{decoy.url}/allowed"})
        assert created.status_code == 201, created.text
        assert created.json()["observation"]["title"] == "decoy"
        await client.delete(f"/v1/sessions/{created.json()['session_id']}")
    assert "/allowed" in decoy.seen


@pytest.mark.slow
async def test_serve_allow_host_lets_the_operators_server_in(decoy: Decoy) -> None:
    """``webdojo serve --allow-host ORIGIN`` as a real process: that origin opens, another
    loopback port does not, and task sessions still open on the server's own site."""
    args = ["--workers", "0", "--navigation-timeout", "10", "--allow-host", decoy.url]
    with ServerProcess(args) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            allowed = await client.post("/v1/sessions", json={"start_url": f"{decoy.url}/cli"})
            assert allowed.status_code == 201, allowed.text
            other = f"http://127.0.0.1:{decoy.port + 1}/cli"  # not the allowed origin
            refused = await client.post("/v1/sessions", json={"start_url": other})
            assert refused.json()["error"]["code"] == "bad_start_url", refused.text
            task = await client.post("/v1/sessions", json={"task_id": TASK})
            assert task.status_code == 201, task.text
    assert "/cli" in decoy.seen


def test_zz_the_decoy_got_no_request_but_the_allowed_ones(decoy: Decoy) -> None:
    """Run last (file order): only the sessions whose origin was allowed reached the decoy."""
    assert [path for path in decoy.seen if path not in ("/allowed", "/cli")] == []
