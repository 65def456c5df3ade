"""Determinism aids: seeded chance, a virtual clock and still motion make replays repeatable.

One Chromium (launched with DETERMINISTIC_LAUNCH_ARGS) serves every test; each load gets a fresh
context, as each replay does. The test page draws a canvas from Math.random, prints the time,
performance.now, a UUID and random bytes, runs a CSS animation, a transition, a Web Animation,
and holds an iframe that prints its own random number and time.
"""

from __future__ import annotations

import hashlib
import http.server
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from playwright.async_api import BrowserContext

from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.cache.determinism import (
    DETERMINISTIC_LAUNCH_ARGS,
    Determinism,
    apply,
    screenshot_hash,
    seed_for,
)
from webdojo.errors import ConfigError
from webdojo.local_http import LoopbackHTTPServer

VIEWPORT = {"width": 480, "height": 320}
LOADS = 10
DET = Determinism(seed=seed_for("archive-1"), epoch_ms=1_700_000_000_000)

PAGE = b"""<!doctype html><html><head><title>chance</title><style>
  body { margin: 8px; font: 14px sans-serif; }
  @keyframes spin { to { transform: rotate(360deg); } }
  #spin { width: 40px; height: 40px; background: teal; animation: spin 1s linear infinite; }
  #bar { width: 10px; height: 10px; background: crimson; transition: width 3s linear; }
  #bar.wide { width: 300px; }
  #wa { width: 20px; height: 20px; background: orange; }
</style></head><body>
<canvas id="c" width="200" height="60"></canvas>
<pre id="out"></pre>
<div id="spin"></div><div id="bar"></div><div id="wa"></div>
<iframe src="/frame" width="300" height="40"></iframe>
<script>
  const ctx = document.getElementById("c").getContext("2d");
  for (let i = 0; i < 40; i++) {
    ctx.fillStyle = `hsl(${Math.floor(Math.random() * 360)}, 80%, 50%)`;
    ctx.fillRect(Math.random() * 190, Math.random() * 50, 10, 10);
  }
  window.values = {
    date: new Date().toISOString(),
    perf: performance.now(),
    uuid: crypto.randomUUID(),
    bytes: Array.from(crypto.getRandomValues(new Uint8Array(8))),
  };
  document.getElementById("out").textContent = JSON.stringify(window.values);
  const bar = document.getElementById("bar");
  bar.offsetWidth;  // lay out at the start width, so the class change starts a transition
  bar.classList.add("wide");
  document.getElementById("wa").animate(
    [{ transform: "translateX(0)" }, { transform: "translateX(200px)" }], 5000);
</script></body></html>"""

FRAME = b"""<!doctype html><body style="margin:0;font:12px monospace"><script>
  document.body.textContent = Math.random() + " " + Date.now();
</script></body>"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = FRAME if self.path.startswith("/frame") else PAGE
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with LoopbackHTTPServer(_Handler) as server:
        yield server.base_url + "/"


@pytest.fixture(scope="module")
async def det_host() -> AsyncIterator[BrowserHost]:
    host = await BrowserHost.launch(BrowserConfig(extra_args=DETERMINISTIC_LAUNCH_ARGS))
    yield host
    await host.aclose()


async def _context(host: BrowserHost, det: Determinism | None) -> BrowserContext:
    context = await host.browser.new_context(viewport=VIEWPORT, device_scale_factor=1)  # type: ignore[arg-type]
    if det is not None:
        await apply(context, det)
    return context


async def _load(host: BrowserHost, url: str, det: Determinism | None) -> tuple[str, str, Any]:
    """One replay: (hash with Playwright's capture aids, hash of a raw capture, page values)."""
    context = await _context(host, det)
    try:
        page = await context.new_page()
        await page.goto(url, wait_until="load")
        still = await screenshot_hash(page)
        raw = await page.screenshot(type="png", animations="allow", caret="initial")
        frame = page.frames[1]
        values = await page.evaluate("window.values")
        values["frame"] = await frame.evaluate("document.body.textContent")
        return still, hashlib.sha256(raw).hexdigest(), values
    finally:
        await context.close()


@pytest.mark.browser
async def test_ten_replays_identical_with_aids(det_host: BrowserHost, url: str) -> None:
    loads = [await _load(det_host, url, DET) for _ in range(LOADS)]
    assert len({still for still, _, _ in loads}) == 1
    # Our CSS alone stills the motion: a capture without Playwright's aids matches too.
    assert len({raw for _, raw, _ in loads}) == 1
    values = [v for _, _, v in loads]
    assert all(v == values[0] for v in values)
    assert values[0]["date"] == "2023-11-14T22:13:20.000Z"  # epoch_ms, the first clock read


@pytest.mark.browser
async def test_replays_differ_without_aids(det_host: BrowserHost, url: str) -> None:
    loads = [await _load(det_host, url, None) for _ in range(LOADS)]
    assert len({still for still, _, _ in loads}) > 1
    assert len({v["uuid"] for _, _, v in loads}) == LOADS


async def _evaluate(host: BrowserHost, url: str, det: Determinism | None, js: str) -> Any:
    context = await _context(host, det)
    try:
        page = await context.new_page()
        await page.goto(url + "frame", wait_until="load")
        return await page.evaluate(js)
    finally:
        await context.close()


RANDOMS = "Array.from({length: 5}, () => Math.random())"


@pytest.mark.browser
async def test_seed_decides_the_random_sequence(det_host: BrowserHost, url: str) -> None:
    other = Determinism(seed=DET.seed ^ 1, epoch_ms=DET.epoch_ms)
    first = await _evaluate(det_host, url, DET, RANDOMS)
    again = await _evaluate(det_host, url, DET, RANDOMS)
    different = await _evaluate(det_host, url, other, RANDOMS)
    assert first == again
    assert first != different
    assert all(0 <= x < 1 for x in first + different)
    assert len(set(first)) == 5


DATES = """() => {
  class Later extends Date {}
  const reads = [Date.now(), Date.now(), new Date().getTime(), performance.now()];
  return {
    reads,
    args: new Date(2020, 0, 1).getFullYear(),
    iso: new Date("2021-02-03T04:05:06Z").getTime(),
    utc: Date.UTC(2020, 0, 1),
    parse: Date.parse("2020-01-01T00:00:00Z"),
    isDate: new Date() instanceof Date && new Later(0) instanceof Date,
    sameCtor: new Date().constructor === Date,
    asString: typeof Date(),
    origin: performance.timeOrigin,
  };
}"""


@pytest.mark.browser
async def test_date_keeps_working_on_the_virtual_clock(det_host: BrowserHost, url: str) -> None:
    got = await _evaluate(det_host, url, DET, DATES)
    # The frame page read the clock once; each read since advances it by 1 ms.
    start = DET.epoch_ms + 1
    assert got["reads"] == [start, start + 1, start + 2, 4]
    assert got["args"] == 2020
    assert got["iso"] == 1612325106000
    assert got["utc"] == got["parse"] == 1577836800000
    assert got["isDate"] and got["sameCtor"]
    assert got["asString"] == "string"
    assert got["origin"] == DET.epoch_ms


STILL = """() => [
  document.querySelectorAll("style[data-webdojo]").length,
  document.getAnimations().filter((a) => a.playState === "running").length,
  crypto.getRandomValues(new Uint32Array(2)).length,
  (() => { try { crypto.getRandomValues(new Float64Array(1)); } catch (e) { return e.name; } })(),
]"""


@pytest.mark.browser
async def test_install_is_idempotent_and_motion_is_still(det_host: BrowserHost, url: str) -> None:
    context = await _context(det_host, DET)
    try:
        await apply(context, DET)  # a second install must change nothing
        page = await context.new_page()
        await page.goto(url, wait_until="load")
        still = await page.evaluate(STILL)
        await page.goto(url + "frame", wait_until="load")
        randoms = await page.evaluate(RANDOMS)
    finally:
        await context.close()
    # One style, no running animation (CSS, transition and Web Animation alike), and
    # getRandomValues still rejects what the browser rejects.
    assert still == [1, 0, 2, "TypeMismatchError"]
    assert randoms == await _evaluate(det_host, url, DET, RANDOMS)


async def test_disabled_installs_nothing() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.scripts: list[str] = []

        async def add_init_script(self, script: str) -> None:
            self.scripts.append(script)

    recorder = Recorder()
    await apply(recorder, Determinism(seed=1, epoch_ms=0, enabled=False))  # type: ignore[arg-type]
    assert recorder.scripts == []


def test_seed_for_is_stable_uint32() -> None:
    assert seed_for("archive-1") == seed_for("archive-1")
    assert seed_for("archive-1") != seed_for("archive-2")
    assert seed_for("") == 0xE3B0C442  # the first 4 bytes of SHA-256 of nothing
    assert all(0 <= seed_for(str(i)) < 2**32 for i in range(100))


def test_script_carries_the_parameters() -> None:
    script = Determinism(seed=7, epoch_ms=123).script()
    assert script.rstrip().endswith('({"seed": 7, "epochMs": 123});')
    assert "installDeterminism" in script


@pytest.mark.parametrize(("seed", "epoch_ms"), [(-1, 0), (2**32, 0), (0, -5), (0, 2**53)], ids=str)
def test_bad_parameters_are_config_errors(seed: int, epoch_ms: int) -> None:
    with pytest.raises(ConfigError):
        Determinism(seed=seed, epoch_ms=epoch_ms)


WRITTEN = """<html><head><style>
  @keyframes spin { to { transform: rotate(360deg); } }
  .spin { animation: spin 1s linear infinite; }
  #bar { width: 10px; transition: width 3s linear; } #bar.wide { width: 300px; }
</style></head><body><input id="in" autofocus><div id="bar"></div><div id="host"></div>
<script>
  const bar = document.getElementById("bar");
  bar.offsetWidth;
  bar.classList.add("wide");
  const root = document.getElementById("host").attachShadow({ mode: "open" });
  root.innerHTML = "<style>@keyframes s{to{opacity:0}} p{animation:s 1s infinite}</style><p>x</p>";
</script></body></html>"""

MOTION = """() => [
  document.getAnimations().length,
  document.getElementById("host").shadowRoot.getAnimations().length,
  getComputedStyle(document.getElementById("bar")).width,
  getComputedStyle(document.getElementById("in")).caretColor,
]"""


@pytest.mark.browser
async def test_motion_is_still_in_a_written_document(det_host: BrowserHost) -> None:
    # setContent writes the page from a script, before any <html> exists for the <style>: the
    # adopted sheet must already apply. Shadow roots get their own copy of the rules.
    context = await _context(det_host, DET)
    try:
        page = await context.new_page()
        await page.set_content(WRITTEN)
        got = await page.evaluate(MOTION)
    finally:
        await context.close()
    assert got == [0, 0, "300px", "rgba(0, 0, 0, 0)"]


DOC_TOKEN = "window[Symbol.for('webdojo')].doc"


@pytest.mark.browser
async def test_applies_to_a_session_and_keeps_its_document_tokens(
    det_host: BrowserHost, url: str
) -> None:
    # A session's hooks.js (installed first, by new_session) takes a random token per document
    # to notice navigations: it must keep the real Math.random, while the page gets the seeded
    # one. The session's page exists already; the script still applies from its next load.
    session = await det_host.new_session(SessionOptions().allowing(url))
    try:
        await apply(session.page.context, DET)
        tokens, randoms = [], []
        for _ in range(2):
            await session.goto(url + "frame")
            tokens.append(await session.page.evaluate(DOC_TOKEN))
            randoms.append(await session.page.evaluate(RANDOMS))
    finally:
        await session.aclose()
    assert tokens[0] != tokens[1]
    assert randoms[0] == randoms[1] == await _evaluate(det_host, url, DET, RANDOMS)
