"""Finding a Chromium binary and the flags every webdojo browser is launched with."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from webdojo.errors import ChromiumNotFound

ENV_VAR = "WEBDOJO_CHROMIUM"
SYSTEM_CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = (
    "install one with `sudo apt-get install -y chromium` (Debian/Ubuntu) or "
    "`python -m playwright install chromium`, or point $WEBDOJO_CHROMIUM at a Chromium binary"
)

# Quiet, deterministic, offline-friendly: no update/sync/telemetry traffic, no first-run UI.
# Smooth scrolling is off so a wheel scroll is complete by the next frame.
LAUNCH_ARGS: tuple[str, ...] = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-smooth-scrolling",
)


@dataclass(frozen=True)
class BrowserConfig:
    """How the one browser of a process is launched."""

    executable: str | None = None  # Chromium binary; None = find_chromium()
    headless: bool = True  # False shows windows (debugging only; needs a display)
    extra_args: tuple[str, ...] = ()  # appended after LAUNCH_ARGS
    no_sandbox: bool | None = None  # None = only when running as root (Chromium refuses else)
    launch_timeout_s: float = 30.0  # give up starting Chromium after this long

    def launch_args(self) -> list[str]:
        args = list(LAUNCH_ARGS)
        no_sandbox = self.no_sandbox if self.no_sandbox is not None else _is_root()
        if no_sandbox:
            args.append("--no-sandbox")
        return args + list(self.extra_args)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def find_chromium() -> str:
    """The Chromium to launch: $WEBDOJO_CHROMIUM, then /usr/bin/chromium, then the Chromium that
    ``python -m playwright install chromium`` downloaded. Raises ``ChromiumNotFound``."""
    override = os.environ.get(ENV_VAR)
    if override:
        if _is_executable(override):
            return override
        raise ChromiumNotFound(f"${ENV_VAR}={override!r} is not an executable file; {INSTALL_HINT}")
    candidates: list[str | Path] = [SYSTEM_CHROMIUM, *_playwright_candidates()]
    for candidate in candidates:
        if _is_executable(candidate):
            return str(candidate)
    raise ChromiumNotFound(f"no Chromium found; {INSTALL_HINT}")


def _is_executable(path: str | Path) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _playwright_candidates() -> list[Path]:
    """Where Playwright's registry puts its managed Chromium. Computed from the driver's
    browsers.json instead of asking Playwright: its sync API cannot run inside an event loop
    and its async API needs a started driver."""
    root = _registry_root()
    revision = _chromium_revision()
    if root is None or not root.is_dir():
        return []
    dirs = [root / f"chromium-{revision}"] if revision else []
    dirs += sorted(root.glob("chromium-*"), reverse=True)  # any other installed revision
    binaries = (
        "chrome-linux64/chrome",
        "chrome-linux/chrome",
        "chrome-linux-arm64/chrome",
        "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
        "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-win64/chrome.exe",
        "chrome-win/chrome.exe",
    )
    return [d / b for d in dirs for b in binaries]


def _registry_root() -> Path | None:
    env = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if env and env != "0":
        return Path(env)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ms-playwright"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return Path(local) / "ms-playwright" if local else None
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "ms-playwright"


def _chromium_revision() -> str | None:
    try:
        import playwright

        path = Path(playwright.__file__).parent / "driver" / "package" / "browsers.json"
        browsers = json.loads(path.read_text())["browsers"]
    except (OSError, ValueError, KeyError, ImportError):
        return None
    return next((str(b["revision"]) for b in browsers if b.get("name") == "chromium"), None)
