"""BrowserGym's side of ``webdojo bench compare-browsergym``: run by path with the python of
``.venv-browsergym`` (``make browsergym-venv``), never imported by webdojo.

It imports only BrowserGym, Playwright, psutil and the standard library: BrowserGym pins an
older Playwright (and numpy, gymnasium) that must not meet webdojo's. It serves the benchmark's
pages from its own process on 127.0.0.1 (as webdojo's side does, so that serving a page counts
on the side that loads it), opens BrowserGym's open-ended task on the start page, and times
``--steps`` in-page steps (``mouse_click`` on the page's counter button) and as many navigation
steps (``goto`` the other page), after untimed warm-up steps. Per-step CPU is the process
tree's (this python, Playwright's driver, both of BrowserGym's browsers) over each block of
steps, sampled as webdojo's ``CpuMeter`` samples it. The last stdout line is the JSON result.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import importlib.metadata
import json
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import playwright.sync_api
import psutil

COUNTER_XY = (80, 30)  # the same pixels webdojo's side clicks (webdojo.bench.pages)
WARMUP = 2  # untimed steps of each kind: the first inputs after a load are slow
SETTINGS = {
    "slow_mo": 0,  # the task's default is 1000 ms per Playwright call
    "pre_observation_delay": 0.0,  # the default sleeps 0.5 s before each observation
    "viewport": {"width": 1280, "height": 720},  # the task's own, as webdojo's default
    "headless": True,
    "action_subsets": ["coord", "nav"],
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # every navigation pays for its load
        super().end_headers()


def _serve(directory: str) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _TreeCpu:
    """CPU seconds of this process tree over a block, sampled in a thread every 0.25 s with
    each process's last-seen time kept after it ends (webdojo.bench.cpu_meter's method)."""

    def __init__(self) -> None:
        self._root = psutil.Process(os.getpid())
        self._start: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.cpu_s = 0.0

    def _sample(self) -> dict[int, float]:
        seen: dict[int, float] = {}
        procs = [self._root]
        with contextlib.suppress(psutil.Error):
            procs += self._root.children(recursive=True)
        for proc in procs:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue  # it ended between listing and reading
            seen[proc.pid] = times.user + times.system
        return seen

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            self._last.update(self._sample())

    def __enter__(self) -> _TreeCpu:
        self._start = self._sample()
        self._last = dict(self._start)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._last.update(self._sample())
        self.cpu_s = sum(cpu - self._start.get(pid, 0.0) for pid, cpu in self._last.items())


def _launch_with(executable: str) -> None:
    """Point every Chromium launch at ``executable``. BrowserEnv passes pw_chromium_kwargs to
    its page browser, but its chat window is a second browser launched without them."""
    launch = playwright.sync_api.BrowserType.launch

    @functools.wraps(launch)
    def patched(self: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("executable_path", executable)
        return launch(self, *args, **kwargs)

    playwright.sync_api.BrowserType.launch = patched  # type: ignore[method-assign]


def _make_env(start_url: str, executable: str) -> Any:
    from browsergym.core.action.highlevel import HighLevelActionSet
    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import OpenEndedTask

    actions = HighLevelActionSet(
        subsets=SETTINGS["action_subsets"], multiaction=False, demo_mode="off"
    )
    return BrowserEnv(
        task_entrypoint=OpenEndedTask,
        task_kwargs={"start_url": start_url},
        slow_mo=SETTINGS["slow_mo"],
        headless=SETTINGS["headless"],
        pw_chromium_kwargs={"executable_path": executable},
        action_mapping=actions.to_python_code,
        pre_observation_delay=SETTINGS["pre_observation_delay"],
    )


def _block(env: Any, actions: list[str], expect: Callable[[int, dict[str, Any]], bool]) -> dict:
    """Warm-up steps, then the timed ones under the CPU sampler."""
    for action in actions[:WARMUP]:
        env.step(action)
    times: list[float] = []
    landed = 0
    with _TreeCpu() as cpu:
        for i, action in enumerate(actions[WARMUP:]):
            started = time.perf_counter()
            obs, *_ = env.step(action)
            times.append((time.perf_counter() - started) * 1000)
            if obs["last_action_error"]:
                raise RuntimeError(f"BrowserGym step {action!r} failed: {obs['last_action_error']}")
            landed += expect(i, obs)
    steps = len(times)
    return {"ms": times, "cpu_ms": cpu.cpu_s * 1000 / steps, "ok": landed, "steps": steps}


def run(pages: str, steps: int, executable: str) -> dict[str, Any]:
    _launch_with(executable)
    server = _serve(pages)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    env = _make_env(base + "a.html", executable)
    try:
        env.reset()
        click = f"mouse_click({COUNTER_XY[0]}, {COUNTER_XY[1]})"
        inpage = _block(
            env, [click] * (WARMUP + steps), lambda i, obs: obs["url"] == base + "a.html"
        )
        # a.html -> b.html -> a.html ...; warm-up included, the first timed step opens b.html
        targets = [base + ("b.html" if i % 2 == 0 else "a.html") for i in range(WARMUP + steps)]
        timed = targets[WARMUP:]
        nav = _block(env, [f"goto({t!r})" for t in targets], lambda i, obs: obs["url"] == timed[i])
        version = env.browser.version
    finally:
        env.close()
        server.shutdown()
    return {
        "browsergym": importlib.metadata.version("browsergym-core"),
        "playwright": importlib.metadata.version("playwright"),
        "chromium": version,
        "executable": executable,
        "settings": SETTINGS,
        "inpage": inpage,
        "nav": nav,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", required=True, help="directory holding a.html and b.html")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--chromium", required=True, help="the Chromium binary both sides use")
    args = parser.parse_args()
    print(json.dumps(run(args.pages, args.steps, args.chromium)))


if __name__ == "__main__":
    main()
