"""The app's semantics over real uvicorn (in a thread) and a real Chromium (InlinePool)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import httpx
import msgpack
import pytest

from webdojo.asgi import ThreadServer
from webdojo.server.serve import check_exposure, is_loopback
from webdojo.wire.protocol import StepResponse
from webdojo.wire.transport import decode

pytestmark = pytest.mark.browser


@pytest.fixture
async def client(app_server: ThreadServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=app_server.url, timeout=60) as c:
        yield c


async def _open(client: httpx.AsyncClient, **body: object) -> dict:
    response = await client.post("/v1/sessions", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def _step(index: int, **action: object) -> dict:
    return {"step_index": index, "action": action}


async def test_task_session_returns_its_step_cap_and_ends_there(
    client: httpx.AsyncClient,
) -> None:
    created = await _open(client, task_id="wiki.skarn-height")
    sid, cap = created["session_id"], created["max_steps"]
    assert cap == 10
    try:
        for index in range(cap):
            response = await client.post(
                f"/v1/sessions/{sid}/step", json=_step(index, type="wait", seconds=0)
            )
            body = response.json()
            assert response.status_code == 200, body
            assert body["done"] is (index == cap - 1)
        assert body["info"]["done_reason"] == "step_cap"
        assert body["info"]["verifier"]["passed"] is False  # never answered
        assert body["info"]["final_state"]["url"].endswith("/wiki/index.html")
        past = await client.post(f"/v1/sessions/{sid}/step", json=_step(cap, type="stop"))
        assert past.status_code == 409 and past.json()["error"]["code"] == "invalid_state"
        # a done session still observes and gives its final state
        assert (await client.post(f"/v1/sessions/{sid}/observe")).status_code == 200
        final = await client.post(f"/v1/sessions/{sid}/final_state", json={"answer": "x"})
        assert final.json()["final_state"]["answer"] == "x"
    finally:
        await client.delete(f"/v1/sessions/{sid}")


async def test_model_text_is_parsed_server_side(client: httpx.AsyncClient, test_site: str) -> None:
    sid = (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"]
    try:
        bad = await client.post(
            f"/v1/sessions/{sid}/step",
            json={"step_index": 0, "text": "I think I should click", "format": "funcall"},
        )
        assert bad.status_code == 200
        body = bad.json()
        assert body["info"]["parse_error"]["code"] == "parse_error"
        assert body["observation"]["last_error"]["code"] == "parse_error"  # the agent sees it
        assert body["info"]["action"] is None and body["done"] is False

        good = await client.post(
            f"/v1/sessions/{sid}/step",
            json={"step_index": 1, "text": 'Done.\nstop("42")', "format": "funcall"},
        )
        assert good.status_code == 200, good.text
        info = good.json()["info"]
        assert good.json()["done"] is True and info["answer"] == "42"
        assert info["action"]["type"] == "stop" and info["verifier"] is None

        unknown = await client.post(
            f"/v1/sessions/{sid}/step", json={"step_index": 2, "text": "x", "format": "klingon"}
        )
        assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "invalid_request"
    finally:
        await client.delete(f"/v1/sessions/{sid}")


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "type", "text": "x" * 5000}, "text_too_long"),
        ({"type": "click", "x": 10}, "invalid_coordinates"),
        ({"type": "press", "keys": "Hyper+Q"}, "bad_key"),
        ({"type": "goto", "url": "file:///etc/passwd"}, "bad_url"),
        ({"type": "teleport"}, "invalid_action"),
        ({"type": "scroll", "direction": "sideways"}, "invalid_action"),
    ],
)
async def test_invalid_actions_from_json_get_precise_codes(
    client: httpx.AsyncClient, action: dict, code: str
) -> None:
    response = await client.post(
        "/v1/sessions/whatever/step", json={"step_index": 0, "action": action}
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["fault"] == "agent"


@pytest.mark.parametrize(
    "start_url",
    [
        "file:///etc/passwd",
        "data:text/html,<h1>hi</h1>",
        "view-source:http://127.0.0.1/",
        "javascript:alert(1)",
        "chrome://settings",
        "Ü",
        "http://",
    ],
)
async def test_start_urls_go_through_the_goto_check(
    client: httpx.AsyncClient, start_url: str
) -> None:
    """Sessions open only where the agent's goto may go: never a local file's contents."""
    response = await client.post("/v1/sessions", json={"start_url": start_url})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_start_url" and error["fault"] == "config"
    assert "root:" not in response.text
    assert (await client.get("/v1/health")).json()["sessions"] == 0  # nothing was opened


async def test_out_of_viewport_click_is_an_observation_error(
    client: httpx.AsyncClient, test_site: str
) -> None:
    sid = (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"]
    try:
        response = await client.post(
            f"/v1/sessions/{sid}/step", json=_step(0, type="click", x=5000, y=5)
        )
        assert response.status_code == 200  # checked against the page, shown to the agent
        assert response.json()["observation"]["last_error"]["code"] == "invalid_coordinates"
    finally:
        await client.delete(f"/v1/sessions/{sid}")


async def test_concurrent_duplicates_of_a_step_click_once(
    client: httpx.AsyncClient, test_site: str
) -> None:
    created = await _open(
        client, start_url=f"{test_site}/counter.html", observation={"elements": True}
    )
    sid = created["session_id"]
    button = next(e["id"] for e in created["observation"]["elements"] if e["html_id"] == "inc")
    try:
        sends = [
            client.post(f"/v1/sessions/{sid}/step", json=_step(0, type="click", element=button))
            for _ in range(3)
        ]
        responses = await asyncio.gather(*sends)
        assert [r.status_code for r in responses] == [200, 200, 200]
        assert responses[0].json() == responses[1].json() == responses[2].json()
        final = await client.post(f"/v1/sessions/{sid}/final_state")
        assert final.json()["final_state"]["storage"]["count"] == 1
    finally:
        await client.delete(f"/v1/sessions/{sid}")


async def test_msgpack_and_json_carry_the_same_response(
    client: httpx.AsyncClient, test_site: str
) -> None:
    sid = (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"]
    try:
        url = f"/v1/sessions/{sid}/step"
        packed = await client.post(
            url, json=_step(0, type="wait", seconds=0), headers={"accept": "application/msgpack"}
        )
        assert packed.headers["content-type"] == "application/msgpack"
        raw = msgpack.unpackb(packed.content)
        assert isinstance(raw["observation"]["screenshot"], bytes)  # raw JPEG, not base64
        assert raw["observation"]["screenshot"][:2] == b"\xff\xd8"
        as_json = await client.post(url, json=_step(0, type="wait", seconds=0))  # the replay
        assert as_json.headers["content-type"] == "application/json"
        a = decode(StepResponse, packed.content, packed.headers["content-type"])
        b = decode(StepResponse, as_json.content, as_json.headers["content-type"])
        assert a == b
        assert len(packed.content) < len(as_json.content)
    finally:
        await client.delete(f"/v1/sessions/{sid}")


async def test_openapi_publishes_the_wire_models(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    for name in [
        "CreateSessionRequest",
        "SessionCreated",
        "StepRequest",
        "StepResponse",
        "ErrorBody",
    ]:
        assert name in schemas
    step = spec["paths"]["/v1/sessions/{session_id}/step"]["post"]
    assert {"200", "409", "422", "429", "503"} <= set(step["responses"])
    assert "application/msgpack" in step["responses"]["200"]["content"]


async def test_unknown_route_is_an_error_body(client: httpx.AsyncClient) -> None:
    response = await client.get("/v2/nothing")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "invalid_request"


async def test_reaper_closes_idle_sessions(
    make_server: Callable[..., ThreadServer], test_site: str
) -> None:
    server = make_server(idle_ttl_s=1.0, reap_interval_s=0.1)
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        sid = (await _open(client, start_url=f"{test_site}/plain.html"))["session_id"]
        for _ in range(200):  # no timing assertion: wait until the reaper has been by
            await asyncio.sleep(0.1)
            if (await client.get("/v1/health")).json()["sessions"] == 0:
                break
        response = await client.post(f"/v1/sessions/{sid}/observe")
        assert response.status_code == 410
        assert response.json()["error"]["code"] == "session_expired"
        closing = await client.delete(f"/v1/sessions/{sid}")
        assert closing.status_code == 410
        metrics = (await client.get("/metrics")).text
        assert 'webdojo_sessions_ended_total{reason="expired"} 1.0' in metrics


def test_exposure_rules() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")
    check_exposure("127.0.0.1", None)
    check_exposure("0.0.0.0", "a-token")
    with pytest.raises(Exception, match="bearer token"):
        check_exposure("0.0.0.0", None)
