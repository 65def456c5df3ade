"""``webdojo ...`` as a child process, as users run it (a plain module the e2e tests import)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any


def webdojo(*args: object, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the CLI without the caller's model endpoint settings (tests choose their own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEBDOJO_MODEL", "OPENAI_"))}
    return subprocess.run(
        [sys.executable, "-m", "webdojo.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def last_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The ``--json`` line of a command that must have succeeded."""
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _as_from_a_terminal() -> None:
    # Runs in the child before exec. A test worker can hand its children SIGINT ignored or
    # blocked (its own state, inherited across fork and exec, unlike handlers); a command
    # started from a terminal has neither, and Ctrl-C is what these tests are about.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def interruptible(args: list[str], **popen: Any) -> subprocess.Popen[str]:
    """``webdojo ARGS`` as a child that SIGINT reaches as it would from a terminal."""
    command = [sys.executable, "-m", "webdojo.cli", *args]
    return subprocess.Popen(command, text=True, preexec_fn=_as_from_a_terminal, **popen)


def stop_with_sigint(proc: subprocess.Popen[str], what: str, seconds: float = 30) -> str:
    """Send SIGINT as Ctrl-C would and wait for the child to end; its stderr. A child that
    does not end in ``seconds`` fails the test, naming both processes' signal masks."""
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=seconds)[1] or ""
    except subprocess.TimeoutExpired:
        state = f"child: {signal_state(proc.pid)}; test: {signal_state()}"
        proc.kill()
        proc.communicate()
    raise AssertionError(f"{what} did not stop on SIGINT within {seconds:g} s ({state})")


def signal_state(pid: int | str = "self") -> str:
    """The signal masks of a process (blocked, ignored, caught), for a failure message."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return "(no /proc status)"
    return " ".join(
        line for line in status.splitlines() if line.startswith(("SigBlk", "SigIgn", "SigCgt"))
    )
