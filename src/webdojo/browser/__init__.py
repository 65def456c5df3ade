"""The browser layer: one Chromium per process, a fresh context per episode (async Playwright).

host = await BrowserHost.launch()
session = await host.new_session(SessionOptions(viewport_width=1280, viewport_height=720))
await session.goto("http://127.0.0.1:8000/index.html")
obs = await session.observe(ObservationOptions(axtree=AxTreeMode.VIEWPORT))
obs = await session.step(Click(element=3), ObservationOptions())
final = await session.final_state(answer=None)
await session.aclose(); await host.aclose()

Each session's connections go through a loopback SOCKS5 proxy enforcing
``SessionOptions.network`` (a ``NetworkPolicy``: private addresses blocked, except the origins
it allows, such as the env's own site server: ``SessionOptions.allowing``); the start URL is
checked like any navigation. See ``netpolicy`` and ``netguard``.
"""

from webdojo.browser.chromium import LAUNCH_ARGS, BrowserConfig, find_chromium
from webdojo.browser.host import BrowserHost
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.session import BrowserSession, SessionOptions, SessionState

__all__ = [
    "LAUNCH_ARGS",
    "BrowserConfig",
    "BrowserHost",
    "BrowserSession",
    "NetworkPolicy",
    "SessionOptions",
    "SessionState",
    "find_chromium",
]
