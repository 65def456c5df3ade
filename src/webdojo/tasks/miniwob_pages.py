"""MiniWoB++ hosted by webdojo: the task pages of the installed ``miniwob`` package.

MiniWoB++ (PyPI ``miniwob``, MIT) is about 130 small web tasks whose pages compute their own
reward in JavaScript: ``core.endEpisode(reward)`` sets ``WOB_REWARD_GLOBAL`` (time-discounted),
``WOB_RAW_REWARD_GLOBAL`` and ``WOB_DONE_GLOBAL``. Only the package's HTML tree is used (its
Python side drives Selenium, which webdojo does not need), so it installs with ``--no-deps``.

The package's ``html/`` directory is served as the local site ``miniwob``; every HTML page it
serves gets ``page_script()`` appended, which, inside the page:

* seeds the task generator with ``Math.seedrandom(seed)``, ``seed`` from the ``?seed=`` query
  (the task's start URL carries ``{seed}``, which the env replaces with the episode's seed);
* starts the episode as the package's environment does (``core.startEpisodeReal()``), so the
  agent never clicks the START cover; it does so at DOMContentLoaded, after the page's own
  ``onload``, so that the images the episode draws hold the load event that reset waits for
  (otherwise two resets with one seed could show different icons);
* lifts the page's own time limit (``core.EPISODE_MAX_TIME``, 7-30 s) to ``TIME_LIMIT_MS``,
  so that a slow agent (a model taking seconds per step) is ended by the step cap, not by
  wall time; the time-discounted reward is then practically the raw one;
* records the first end of the episode as JSON under ``STORAGE_KEY`` in localStorage:
  ``{reward, raw_reward, done, reason, success, seed}`` with ``success = raw_reward > 0``,
  and sets ``window.__webdojo_done``, which the observation reports as ``page_done``.

Nothing here imports the package: it is found with ``importlib.util.find_spec``, which does
not run its ``__init__`` (that would import gymnasium).
"""

from __future__ import annotations

import importlib.util
from functools import cache
from importlib import resources
from pathlib import Path

from webdojo.errors import MissingDependency
from webdojo.observation import PAGE_DONE_GLOBAL

SITE = "miniwob"  # the local site name; task pages are served at /miniwob/miniwob/<name>.html
STORAGE_KEY = "webdojo.miniwob"  # localStorage key of the episode's result (JSON)
TIME_LIMIT_MS = 24 * 3600 * 1000  # replaces the page's limit; under setTimeout's 2**31 ms cap
INSTALL_HINT = "pip install --no-deps miniwob  (or: pip install 'webdojo[envs]')"


def html_dir() -> Path:
    """The installed package's ``html/`` directory; ``MissingDependency`` when not installed."""
    try:
        spec = importlib.util.find_spec("miniwob")
    except (ImportError, ValueError) as exc:
        raise MissingDependency(f"MiniWoB++ is not installed: {INSTALL_HINT}") from exc
    locations = [] if spec is None else list(spec.submodule_search_locations or [])
    for location in locations:
        candidate = Path(location) / "html"
        if (candidate / "core" / "core.js").is_file() and (candidate / SITE).is_dir():
            return candidate.resolve()
    if spec is None:
        raise MissingDependency(f"MiniWoB++ is not installed: {INSTALL_HINT}")
    raise MissingDependency(
        f"the installed miniwob package ({', '.join(locations) or spec.origin}) has no "
        f"html/core/core.js: reinstall it ({INSTALL_HINT})"
    )


def task_names(root: Path | None = None) -> list[str]:
    """Every MiniWoB++ task the package has (its ``html/miniwob/<name>.html`` pages)."""
    pages = (root or html_dir()) / SITE
    return sorted(p.stem for p in pages.glob("*.html"))


def page_path(name: str) -> str:
    """A task's start page within the site, with the seed placeholder."""
    return f"{SITE}/{name}.html?seed={{seed}}"


@cache
def page_script() -> str:
    """The ``<script>`` element appended to every HTML page of the site (module docstring)."""
    source = resources.files("webdojo.tasks").joinpath("miniwob_page.js").read_text("utf-8")
    source = (
        source.replace("__STORAGE_KEY__", STORAGE_KEY)
        .replace("__TIME_LIMIT_MS__", str(TIME_LIMIT_MS))
        .replace("__DONE_GLOBAL__", PAGE_DONE_GLOBAL)
    )
    return f"<script>\n{source}</script>\n"
