"""Finding a Chromium binary and the flags every webdojo browser is launched with."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from webdojo.errors import ChromiumNotFound

ENV_VAR = "WEBDOJO_CHROMIUM"
# Chromium's headless shell (the old headless mode, no browser UI) costs well under half the
# CPU per episode of the full browser run headless: `webdojo sites check` on the shop site took
# 12 s instead of 33 s on 2 cores. So headless launches prefer it wherever it is installed.
# Debian's /usr/bin/chromium-headless-shell is a shell script that runs the binary as its child
# (no exec): Playwright would hold the script, not the browser. So the binary comes first.
SYSTEM_HEADLESS_SHELLS = (
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium-headless-shell",
)
SYSTEM_CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = (
    "install one with `sudo apt-get install -y chromium chromium-headless-shell` "
    "(Debian/Ubuntu) or "
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
    # Re-raster a changed tile whole: with partial raster, the anti-aliased edges at the border
    # of a repainted rectangle came out a shade apart from run to run, so identical episodes
    # gave different screenshot bytes (docs/evaluation.md, "Determinism").
    "--disable-partial-raster",
    # The network policy is a SOCKS proxy, which carries TCP only: no QUIC, and WebRTC may not
    # send UDP around the proxy.
    "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)


@dataclass(frozen=True)
class BrowserConfig:
    """How the one browser of a process is launched."""

    executable: str | None = None  # Chromium binary; None = find_chromium(headless)
    headless: bool = True  # False shows windows (debugging only; needs a display)
    extra_args: tuple[str, ...] = ()  # appended after LAUNCH_ARGS
    no_sandbox: bool | None = None  # None = only when running as root (Chromium refuses else)
    launch_timeout_s: float = 30.0  # give up starting Chromium after this long

    def launch_args(self) -> list[str]:
        args = list(LAUNCH_ARGS)
        no_sandbox = self.no_sandbox if self.no_sandbox is not None else is_root()
        if no_sandbox:
            args.append("--no-sandbox")
        return args + list(self.extra_args)


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def find_chromium(headless: bool = True) -> str:
    """The Chromium to launch: $WEBDOJO_CHROMIUM; then, for a headless launch, Debian's
    chromium-headless-shell; then /usr/bin/chromium; then what ``python -m playwright install
    chromium`` downloaded (its headless shell first, when headless). Raises
    ``ChromiumNotFound``."""
    override = os.environ.get(ENV_VAR)
    if override:
        if _is_executable(override):
            return override
        raise ChromiumNotFound(f"${ENV_VAR}={override!r} is not an executable file; {INSTALL_HINT}")
    candidates: list[str | Path] = [
        *(SYSTEM_HEADLESS_SHELLS if headless else ()),
        SYSTEM_CHROMIUM,
        *(_playwright_candidates(HEADLESS_SHELLS) if headless else ()),
        *_playwright_candidates(BROWSERS),
    ]
    for candidate in candidates:
        if _is_executable(candidate):
            return str(candidate)
    raise ChromiumNotFound(f"no Chromium found; {INSTALL_HINT}")


def _is_executable(path: str | Path) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


@dataclass(frozen=True)
class _Managed:
    """One kind of browser in Playwright's registry: its directory prefix and binaries."""

    prefix: str
    binaries: tuple[str, ...]


BROWSERS = _Managed(
    "chromium-",
    (
        "chrome-linux64/chrome",
        "chrome-linux/chrome",
        "chrome-linux-arm64/chrome",
        "chrome-mac/Chromium.app/Contents/MacOS/Chromium",
        "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
        "chrome-win64/chrome.exe",
        "chrome-win/chrome.exe",
    ),
)
HEADLESS_SHELLS = _Managed(
    "chromium_headless_shell-",
    (
        "chrome-headless-shell-linux64/chrome-headless-shell",
        "chrome-linux/headless_shell",
        "chrome-headless-shell-linux-arm64/chrome-headless-shell",
        "chrome-headless-shell-mac-arm64/chrome-headless-shell",
        "chrome-headless-shell-mac-x64/chrome-headless-shell",
        "chrome-headless-shell-win64/chrome-headless-shell.exe",
    ),
)


def _playwright_candidates(kind: _Managed) -> list[Path]:
    """Where Playwright's registry puts its managed browsers of one kind. Computed from the
    driver's browsers.json instead of asking Playwright: its sync API cannot run inside an
    event loop and its async API needs a started driver."""
    root = _registry_root()
    revision = _chromium_revision()
    if root is None or not root.is_dir():
        return []
    dirs = [root / f"{kind.prefix}{revision}"] if revision else []
    dirs += sorted(root.glob(f"{kind.prefix}*"), reverse=True)  # any other installed revision
    return [d / b for d in dirs for b in kind.binaries]


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
