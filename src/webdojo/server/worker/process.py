"""One local worker process, as the server process sees it: start, call, watch, stop (the
``WorkerHandle`` that ``LocalPool`` drives).

Why ``asyncio.create_subprocess_exec`` and not ``multiprocessing``: the child is a fresh
interpreter (like multiprocessing's spawn, nothing of the server's threads, event loop or
sockets is inherited) and both ends talk through asyncio streams over a socket pair, with no
blocking ``Connection.recv`` threads and no pickling of a process object. The child's death is
seen at once as the end of the stream, whatever killed it. The child runs in its own session,
so a Ctrl-C at the terminal reaches only the server, which then shuts the workers down in
order (and Playwright's driver takes Chromium down with a worker that dies).

Lifecycle (``ProcessState``): STARTING -> READY -> DEAD (it died, or was killed as hung) or
STOPPED (shut down by the pool).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any

from webdojo.errors import InfraError, WebdojoError, from_info
from webdojo.server.worker import ipc
from webdojo.server.worker.config import WorkerConfig
from webdojo.server.worker.handle import WorkerGone, WorkerHandle, WorkerTimeout


class ProcessState(StrEnum):
    STARTING = "starting"
    READY = "ready"
    DEAD = "dead"
    STOPPED = "stopped"


class WorkerProcess(WorkerHandle):
    """``await WorkerProcess.spawn(...)`` returns a READY worker or raises ``InfraError``."""

    def __init__(self, name: str, generation: int, on_death: Callable[[WorkerProcess], None]):
        self.name = name
        self.generation = generation  # how many times this slot's worker was (re)started
        self.state = ProcessState.STARTING
        self.pid: int | None = None
        self.last_stats: dict[str, Any] = {}  # the latest answer to a ``stats`` call
        self._on_death = on_death
        self._proc: asyncio.subprocess.Process | None = None
        self._rpc: ipc.RpcClient | None = None
        self._reaper: asyncio.Task[int] | None = None
        self._sock: socket.socket | None = None
        self._writer: asyncio.StreamWriter | None = None

    @classmethod
    async def spawn(
        cls,
        name: str,
        generation: int,
        config: WorkerConfig,
        on_death: Callable[[WorkerProcess], None],
        timeout_s: float,
        env: dict[str, str] | None = None,
    ) -> WorkerProcess:
        """``env``: variables set for the child on top of the server's (its ``TMPDIR``)."""
        worker = cls(name, generation, on_death)
        try:
            async with asyncio.timeout(timeout_s):
                await worker._start(config, env or {})
        except BaseException as exc:
            await worker._abandon()
            if isinstance(exc, TimeoutError):
                raise InfraError(f"worker {name} did not start within {timeout_s:g} s") from exc
            if isinstance(exc, ipc.ChannelClosed):
                raise InfraError(f"worker {name} exited while starting: {exc}") from exc
            raise
        return worker

    async def _start(self, config: WorkerConfig, env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock = ours
        try:
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "webdojo.server.worker.main",
                "--fd",
                str(theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=2,  # stdout belongs to the server (it prints its address there)
                start_new_session=True,
                env={**_child_env(), **env},
            )
        finally:
            theirs.close()  # the child holds its copy: our end sees EOF when it dies
        self.pid = self._proc.pid
        reader, self._writer = await asyncio.open_unix_connection(sock=ours)
        ipc.write_frame(self._writer, config)
        await self._writer.drain()
        _, ok, payload = await ipc.read_frame(reader)
        if not ok:
            raise from_info(payload)
        self._rpc = ipc.RpcClient(reader, self._writer, on_close=self._channel_closed)
        self.state = ProcessState.READY

    async def _abandon(self) -> None:
        """After a failed start: no process, no socket left behind."""
        self.state = ProcessState.STOPPED
        self.kill()
        if self._writer is not None:
            self._writer.close()
        elif self._sock is not None:
            self._sock.close()
        if self._proc is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), 10)

    async def exited(self) -> None:
        """Return once the process has ended (at once if it never started)."""
        if self._proc is not None:
            await self._proc.wait()

    @property
    def alive(self) -> bool:
        return self.state is ProcessState.READY

    @property
    def in_flight(self) -> int:
        return self._rpc.in_flight if self._rpc else 0

    @property
    def label(self) -> str:
        return f"pid {self.pid}"

    async def call(self, method: str, *args: Any, timeout: float) -> Any:
        """Raises the worker's webdojo errors, ``WorkerGone`` if it is or goes away,
        ``WorkerTimeout`` past the deadline."""
        if self._rpc is None or not self.alive:
            raise WorkerGone(f"worker {self.name} is {self.state.value}")
        try:
            return await self._rpc.call(method, *args, timeout=timeout)
        except ipc.ChannelClosed as exc:
            raise WorkerGone(f"worker {self.name}: {exc}") from exc
        except ipc.CallTimeout as exc:
            raise WorkerTimeout(f"worker {self.name}: {exc}") from exc

    def kill(self) -> None:
        """SIGKILL (a hung or failed worker); its death is then reported as any other."""
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._proc.pid, signal.SIGKILL)

    async def stop(self, timeout_s: float = 15.0) -> None:
        """Ask the worker to close its browser and exit; kill it if it does not in time."""
        if self.state is ProcessState.READY:
            self.state = ProcessState.STOPPED
            with contextlib.suppress(ipc.ChannelClosed, ipc.CallTimeout, WebdojoError):
                await self._rpc.call("shutdown", timeout=1.0)  # type: ignore[union-attr]
        self.state = ProcessState.STOPPED
        if self._proc is not None:
            try:
                await asyncio.wait_for(self._proc.wait(), timeout_s)
            except TimeoutError:
                self.kill()
                await self._proc.wait()
        if self._rpc is not None:
            await self._rpc.aclose()

    def _channel_closed(self) -> None:
        if self.state is ProcessState.READY:
            self.state = ProcessState.DEAD
            self.kill()  # a worker that closed its end but lingers is of no use
            if self._proc is not None:  # collect the exit status (no zombie)
                self._reaper = asyncio.get_running_loop().create_task(self._proc.wait())
            self._on_death(self)


def _child_env() -> dict[str, str]:
    """This environment, with webdojo importable in the child even when it runs from a
    source tree that is not installed."""
    env = dict(os.environ)
    source = str(Path(__file__).resolve().parents[3])  # what holds the webdojo package
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH")) if p)
    return env
