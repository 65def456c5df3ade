"""Deterministic pages for replay: the same archived page, loaded twice, paints the same pixels.

A replayed site serves the same bytes every time, but a page still draws on chance and time:
``Math.random``, ``crypto.getRandomValues``/``randomUUID``, ``Date``, ``performance.now``, and
CSS motion caught mid-way by a screenshot. ``determinism.js``, installed as an init script
(it runs first in every document and iframe of the context), replaces each with a seeded,
repeatable stand-in and stills animations, transitions and the caret. The seed comes from the
archive (``seed_for(archive_id)``) and the clock starts at the time of recording, so a page
replays as if it were loaded once more at that moment.

Fonts are pinned by ``DETERMINISTIC_LAUNCH_ARGS`` at browser launch (rendering flags). The
font *families* are whatever the machine's fontconfig resolves (on our Debian images: DejaVu for
sans-serif, serif and monospace); pages give the same pixels only on machines with the same font
packages. We do not force a family for the generic names: that would make replays differ from
the recorded page's look, and Chromium's per-script font preferences cannot be set through
Playwright.

Not covered (see determinism.js): timers and ``requestAnimationFrame`` run on real time (a
JS-driven animation, or a ``setTimeout`` that changes the page, can still land before or after a
screenshot); ``event.timeStamp`` and ``document.timeline``; workers (init scripts do not run in
them); ``crypto.subtle`` key generation; media playback.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources

from playwright.async_api import BrowserContext, Page

from webdojo.errors import ConfigError

_UINT32 = 2**32

# Chromium switches that make text rasterize the same way everywhere. Each was checked to be a
# real switch by finding its name in the Chromium 156 binaries (`strings | grep -x`):
#   --font-render-hinting=none          headless switch (headless/public/switches.h): no
#                                       hinting; the headless shell reads it, the full
#                                       browser ignores it.
#   --disable-font-subpixel-positioning glyphs on whole pixels (ui/gfx switch).
#   --disable-lcd-text                  grayscale anti-aliasing, no per-subpixel colour (cc).
#   --force-color-profile=srgb          colours do not depend on the display profile.
#   --disable-skia-runtime-opts         no CPU-specific Skia code paths, which can round
#                                       differently on another machine.
DETERMINISTIC_LAUNCH_ARGS: tuple[str, ...] = (
    "--font-render-hinting=none",
    "--disable-font-subpixel-positioning",
    "--disable-lcd-text",
    "--force-color-profile=srgb",
    "--disable-skia-runtime-opts",
)


def _source() -> str:
    return resources.files("webdojo.cache").joinpath("determinism.js").read_text(encoding="utf-8")


_SOURCE = _source()


@dataclass(frozen=True)
class Determinism:
    """How one replay context makes its pages repeatable."""

    seed: int  # uint32 that seeds Math.random and crypto (seed_for(archive id))
    epoch_ms: int  # what Date.now() reads at document start, in ms since 1970 (the recording's)
    enabled: bool = True  # False: apply() installs nothing (to measure the aids' effect)

    def __post_init__(self) -> None:
        if not 0 <= self.seed < _UINT32:
            raise ConfigError(f"determinism seed must be a uint32, got {self.seed}")
        if not 0 <= self.epoch_ms < 2**53:  # a JS number holds integers exactly up to 2**53
            raise ConfigError(f"determinism epoch_ms must be in [0, 2**53), got {self.epoch_ms}")

    def script(self) -> str:
        """The init script: determinism.js called with this seed and start time."""
        config = json.dumps({"seed": self.seed, "epochMs": self.epoch_ms})
        return f"{_SOURCE.rstrip().rstrip(';')}({config});\n"


def seed_for(text: str) -> int:
    """A stable uint32 seed for a name (an archive id, a URL): the first 4 bytes of its SHA-256,
    the same in every process and on every machine (unlike ``hash()``)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


async def apply(context: BrowserContext, det: Determinism) -> None:
    """Install the determinism script in ``context`` (nothing if ``det.enabled`` is false).

    Call it before the context opens pages: a page being set up while the script is added can
    miss it. Install it after webdojo's own hooks (``BrowserHost.new_session`` adds those first),
    which take a random document token that must stay random."""
    if det.enabled:
        await context.add_init_script(script=det.script())


async def screenshot_hash(page: Page) -> str:
    """SHA-256 (hex) of a PNG of the viewport, with CSS animations stopped and the caret
    hidden by Playwright at capture time as well."""
    png = await page.screenshot(type="png", animations="disabled", caret="hide")
    return hashlib.sha256(png).hexdigest()
