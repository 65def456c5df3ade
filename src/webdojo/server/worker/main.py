"""Entry point of a local worker process: ``python -m webdojo.server.worker.main --fd N``.

``LocalPool`` starts it with one end of a Unix socket pair as file descriptor N. The first
frame it reads is its ``WorkerConfig``; it launches its browser and answers ``(0, True,
{"pid": ...})`` when ready (or ``(0, False, error)``), then serves ``ipc`` requests until the
pool asks it to shut down or the socket closes (the server process died): either way it closes
its browser and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
from typing import Any

from webdojo.errors import InternalError
from webdojo.server.worker import ipc
from webdojo.server.worker.core import Worker, WorkerConfig

# The Worker methods the pool may call; anything else is refused.
METHODS = frozenset({"create", "step", "observe", "final_state", "close", "stats"})
SHUTDOWN = "shutdown"


async def run(fd: int) -> None:
    sock = socket.socket(fileno=fd)
    os.set_inheritable(fd, False)  # the browser's processes must not hold the channel open
    reader, writer = await asyncio.open_unix_connection(sock=sock)
    config = await ipc.read_frame(reader)
    if not isinstance(config, WorkerConfig):
        raise SystemExit(f"expected a WorkerConfig first, got {type(config).__name__}")
    worker = Worker(config)
    try:
        await worker.start()
    except Exception as exc:
        ipc.write_frame(writer, (0, False, ipc.error_to_wire(exc)))
        await writer.drain()
        return
    try:
        ipc.write_frame(writer, (0, True, {"pid": os.getpid()}))
        await writer.drain()
    except ConnectionError:  # the server died while this worker started: close the browser
        await worker.aclose()
        return
    stop = asyncio.Event()

    async def handle(method: str, args: tuple[Any, ...]) -> Any:
        if method == SHUTDOWN:
            stop.set()
            return None
        if method not in METHODS:
            raise InternalError(f"a worker has no method {method!r}")
        result = getattr(worker, method)(*args)
        return await result if asyncio.iscoroutine(result) else result

    serving = asyncio.create_task(ipc.serve(reader, writer, handle))
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        await worker.aclose()  # before answering nothing more: the browser goes first
        serving.cancel()
        stopping.cancel()
        await asyncio.gather(serving, stopping, return_exceptions=True)
        writer.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m webdojo.server.worker.main")
    parser.add_argument("--fd", type=int, required=True, help="the socket to the pool")
    args = parser.parse_args(argv)
    asyncio.run(run(args.fd))


if __name__ == "__main__":
    main()
