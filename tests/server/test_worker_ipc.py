"""The worker channel (``webdojo.server.worker.ipc``) over a real socket pair, without browsers."""

from __future__ import annotations

import asyncio
import pickle
import socket
from typing import Any

import pytest

from webdojo.actions import Click, Goto
from webdojo.browser.options import SessionOptions
from webdojo.errors import InternalError, NavigationTimeout, UnknownSession, from_info
from webdojo.observation import Box, Element, FinalState, Observation, ObservationOptions, Tab
from webdojo.server.worker import ipc
from webdojo.server.worker.core import WorkerConfig

OBS = Observation(
    url="http://127.0.0.1/",
    title="t",
    tabs=[Tab(index=0, url="http://127.0.0.1/", title="t", active=True)],
    viewport_width=1280,
    viewport_height=720,
    screenshot=bytes(range(256)) * 100,
    elements=[
        Element(
            id=1,
            role="button",
            name="b",
            tag="button",
            box=Box(x=1, y=2, width=3, height=4),
            in_viewport=True,
        )
    ],
    timings_ms={"observe": 1.5},
)


@pytest.mark.parametrize(
    "value",
    [
        OBS,
        Click(element=3),
        Goto(url="http://127.0.0.1/x"),
        ObservationOptions(elements=True),
        SessionOptions(viewport_width=800),
        FinalState(url="u", storage={"k": [1, {"a": None}]}, answer="x"),
        WorkerConfig(warm_contexts=0),
        ("id", OBS, {"nested": [Click(x=1, y=2)]}),
    ],
)
def test_values_cross_the_channel_unchanged(value: Any) -> None:
    assert pickle.loads(ipc.dumps(value)) == value


def test_errors_are_rebuilt_from_their_code() -> None:
    sent = NavigationTimeout("opening x did not finish within 1 s", seconds=1.0)
    got = from_info(pickle.loads(ipc.dumps(ipc.error_to_wire(sent))))  # as a frame carries it
    assert type(got) is NavigationTimeout and got.retryable and got.details == {"seconds": 1.0}
    got = from_info(ipc.error_to_wire(KeyError("boom")))
    assert type(got) is InternalError and "boom" in got.message


async def _pair() -> tuple[Any, Any, Any, Any]:
    left, right = socket.socketpair()
    client_reader, client_writer = await asyncio.open_unix_connection(sock=left)
    server_reader, server_writer = await asyncio.open_unix_connection(sock=right)
    return client_reader, client_writer, server_reader, server_writer


async def test_calls_are_multiplexed_and_a_closed_channel_fails_them() -> None:
    creader, cwriter, sreader, swriter = await _pair()
    release = asyncio.Event()

    async def handler(method: str, args: tuple[Any, ...]) -> Any:
        if method == "echo":
            await asyncio.sleep(args[1])  # later calls answer first
            return args[0]
        if method == "fail":
            raise UnknownSession("no session 'x'")
        await release.wait()  # "hang"
        return None

    closed: list[bool] = []
    server = asyncio.create_task(ipc.serve(sreader, swriter, handler))
    client = ipc.RpcClient(creader, cwriter, on_close=lambda: closed.append(True))
    answers = await asyncio.gather(
        *(client.call("echo", (i, OBS), 0.05 * (5 - i), timeout=30) for i in range(5))
    )
    assert answers == [(i, OBS) for i in range(5)]
    with pytest.raises(UnknownSession):
        await client.call("fail", timeout=30)
    with pytest.raises(ipc.CallTimeout):
        await client.call("hang", timeout=0.2)

    hanging = asyncio.create_task(client.call("hang", timeout=30))
    await asyncio.sleep(0.1)
    server.cancel()  # the answering end goes away with a call in flight
    await asyncio.gather(server, return_exceptions=True)
    swriter.close()
    with pytest.raises(ipc.ChannelClosed):
        await hanging
    with pytest.raises(ipc.ChannelClosed):
        await client.call("echo", 1, 0, timeout=30)
    assert closed == [True] and client.closed
    await client.aclose()
