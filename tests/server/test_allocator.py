"""glibc's allocator settings of the server and its workers (``allocator.py``).

mallopt's effect cannot be read back from glibc, so each case runs in a fresh interpreter and
checks what ``tune_allocator`` applied and what glibc accepted."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the settings are glibc's own")

PROBE = "import json; from webdojo.server.worker.allocator import tune_allocator as t; "
PROBE += "print(json.dumps(t()))"


def applied(**env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_"))}
    clean.pop("WEBDOJO_MALLOC_TUNING", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    result: list[str] = json.loads(out.stdout)
    return result


@glibc
def test_both_settings_apply_on_glibc() -> None:
    assert applied() == ["MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD"]


@glibc
def test_a_users_own_setting_is_kept() -> None:
    assert applied(MALLOC_ARENA_MAX="4") == ["MALLOC_MMAP_THRESHOLD"]
    assert applied(MALLOC_MMAP_THRESHOLD_="65536") == ["MALLOC_ARENA_MAX"]
    assert applied(GLIBC_TUNABLES="glibc.malloc.arena_max=4") == []


def test_it_can_be_turned_off() -> None:
    assert applied(WEBDOJO_MALLOC_TUNING="0") == []
