"""``webdojo ...`` as a child process, as users run it (a plain module the e2e tests import)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
