"""``ServerProcess``: ``webdojo serve`` as a child process on 127.0.0.1 (tests, benchmarks).

    with ServerProcess(["--workers", "0", "--max-sessions", "8"]) as server:
        env = HttpEnv(server.url)

It reads the ``listening on URL`` line, waits until ``/v1/health`` answers, keeps draining
the child's output (so a chatty server never blocks on a full pipe) and stops it with SIGTERM,
which closes every session and browser, then SIGKILL if it hangs.
"""

from __future__ import annotations

import collections
import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

import httpx

READY_PREFIX = "listening on "


class ServerProcess:
    def __init__(
        self,
        args: Sequence[str] = (),
        *,
        command: Sequence[str] | None = None,
        env: dict[str, str] | None = None,
        start_timeout_s: float = 120.0,
    ) -> None:
        base = command or [sys.executable, "-m", "webdojo.cli", "serve"]
        self.argv = [*base, "--host", "127.0.0.1", "--port", "0", *args]
        self.env = {**os.environ, **(env or {})}
        self.start_timeout_s = start_timeout_s
        self.url = ""
        self.output: collections.deque[str] = collections.deque(maxlen=500)  # last lines
        self._proc: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    def start(self) -> ServerProcess:
        self._proc = subprocess.Popen(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self.env,
        )
        self.url = self._read_url()
        self._drain = threading.Thread(target=self._drain_output, daemon=True)
        self._drain.start()
        self._wait_healthy()
        return self

    def _read_url(self) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:  # blocks until a line or EOF (the child exited)
            self.output.append(line.rstrip())
            if line.startswith(READY_PREFIX):
                return line[len(READY_PREFIX) :].strip()
        self._proc.wait(timeout=10)
        raise RuntimeError(f"the server exited ({self._proc.returncode}):\n{self.log()}")

    def _drain_output(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            self.output.append(line.rstrip())

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            assert self._proc is not None
            if self._proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self._proc.returncode}):\n{self.log()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/v1/health", timeout=5).status_code == 200:
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the server did not answer within {self.start_timeout_s} s")

    def log(self) -> str:
        return "\n".join(self.output)

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def stop(self, timeout_s: float = 30.0) -> int | None:
        """SIGTERM, then SIGKILL after ``timeout_s``; returns the exit status."""
        if self._proc is None:
            return None
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        if self._drain is not None:
            self._drain.join(timeout=5)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        return self._proc.returncode

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
