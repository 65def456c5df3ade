"""scripts/ensure-chromium.sh, the Chromium step of `make setup`, with stand-ins for python,
apt-get and id on PATH: which packages it installs, and when it gives up with a command to run.

The stand-ins only record calls; the real script runs under the real bash."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "ensure-chromium.sh"
SHELL_BINARY = "/usr/lib/chromium/chromium-headless-shell"

FAKE_PYTHON = """#!/bin/sh
# -c '...find_chromium()...': print what $STATE holds, fail if it is empty.
# -m playwright install chromium: exit with $PLAYWRIGHT_RC.
if [ "$1" = "-m" ]; then exit "${PLAYWRIGHT_RC:-1}"; fi
found=$(cat "$STATE")
if [ -n "$found" ]; then echo "$found"; exit 0; fi
echo "ChromiumNotFound" >&2; exit 1
"""
FAKE_APT = f"""#!/bin/sh
echo "$*" >> "$APT_LOG"
if [ "$1" = "install" ] && [ -n "$APT_FAILS" ]; then exit 100; fi
if [ "$1" = "install" ]; then echo "{SHELL_BINARY}" > "$STATE"; fi
exit 0
"""
FAKE_ID = """#!/bin/sh
echo "$FAKE_UID"
"""


def run_script(
    tmp_path: Path, found: str, *, uid: int = 0, apt: bool = True, apt_fails: bool = False
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stubs = {"python": FAKE_PYTHON, "id": FAKE_ID} | ({"apt-get": FAKE_APT} if apt else {})
    for name, text in stubs.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    state, log = tmp_path / "state", tmp_path / "apt.log"
    state.write_text(found)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "STATE": str(state),
        "APT_LOG": str(log),
        "FAKE_UID": str(uid),
        **({"APT_FAILS": "1"} if apt_fails else {}),
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT), str(bin_dir / "python")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return proc, calls


@pytest.mark.skipif(os.name != "posix", reason="a bash script")
class TestEnsureChromium:
    def test_nothing_found_as_root_installs_both_browsers(self, tmp_path: Path) -> None:
        proc, calls = run_script(tmp_path, "")
        assert proc.returncode == 0, proc.stderr
        installs = [c for c in calls if c.startswith("install")]
        assert len(installs) == 1
        assert {"chromium", "chromium-headless-shell"} <= set(installs[0].split())
        assert f"Chromium: {SHELL_BINARY}" in proc.stdout

    def test_full_browser_found_as_root_adds_the_headless_shell(self, tmp_path: Path) -> None:
        proc, calls = run_script(tmp_path, "/usr/bin/chromium")
        assert proc.returncode == 0, proc.stderr
        assert any(c.split()[-1] == "chromium-headless-shell" for c in calls if "install" in c)

    def test_a_failed_best_effort_install_keeps_the_browser_found(self, tmp_path: Path) -> None:
        proc, _ = run_script(tmp_path, "/usr/bin/chromium", apt_fails=True)
        assert proc.returncode == 0
        assert "webdojo uses /usr/bin/chromium" in proc.stderr

    def test_headless_shell_found_installs_nothing(self, tmp_path: Path) -> None:
        proc, calls = run_script(tmp_path, SHELL_BINARY)
        assert proc.returncode == 0 and calls == []

    def test_not_root_and_no_playwright_download_prints_the_commands(self, tmp_path: Path) -> None:
        proc, calls = run_script(tmp_path, "", uid=1000)
        assert proc.returncode == 1 and calls == []
        assert "sudo apt-get install -y chromium chromium-headless-shell" in proc.stderr
        assert "playwright install chromium" in proc.stderr
