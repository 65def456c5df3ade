"""The shell sessions of the quickstart and of one tutorial run as written, in a fresh
directory, and print what the page shows.

A ```console block promises a session that runs offline in well under a minute per command;
commands that need a model endpoint, a server left running or the network go in ```bash
blocks instead (test_docs_pages.py allows console blocks only on the pages run here).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from docs_pages import DOCS, ROOT
from docs_sessions import RUNNABLE, missing_output, steps

STEP_TIMEOUT_S = 240  # a loaded 2-core machine; each command takes well under a minute alone
# Model settings of the person running the tests must not change what the pages show.
MODEL_VARS = ("WEBDOJO_MODEL_BASE_URL", "WEBDOJO_MODEL", "WEBDOJO_API_KEY", "OPENAI_BASE_URL")


def fresh_checkout(tmp_path: Path) -> Path:
    """A directory that looks like the repository root to the commands: docs/ and .venv/."""
    for name in ("docs", ".venv"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def session_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARS}
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"  # rich draws tables to this width
    return env


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("page", RUNNABLE)
def test_the_page_runs_as_written(page: str, tmp_path: Path) -> None:
    where = fresh_checkout(tmp_path)
    found = steps(DOCS / page)
    assert found, f"{page} has no console session"
    for step in found:
        proc = subprocess.run(
            ["bash", "-c", step.command.text],
            cwd=where,
            env=session_env(),
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT_S,
        )
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0, (
            f"{step.command.where}: `{step.command.text}` exited {proc.returncode}:\n"
            + output[-3000:]
        )
        missing = missing_output(step.expected, output)
        assert missing is None, (
            f"{step.command.where}: `{step.command.text}` did not print {missing!r}:\n"
            + output[-3000:]
        )
