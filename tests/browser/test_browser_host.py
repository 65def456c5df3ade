"""The host: one browser, fresh isolated contexts, no service workers."""

from __future__ import annotations

import os

import pytest

from webdojo.actions import Click
from webdojo.browser import BrowserHost, BrowserSession, SessionOptions, SessionState
from webdojo.observation import ObservationOptions

pytestmark = pytest.mark.browser


async def test_host_facts(host: BrowserHost) -> None:
    assert host.is_connected() and host.version[0].isdigit()
    assert os.path.isfile(host.executable)


async def test_sessions_are_fresh_and_isolated(host: BrowserHost, base_url: str) -> None:
    first = await host.new_session(SessionOptions().allowing(base_url))
    await first.goto(base_url + "form.html")
    await first.page.evaluate("() => localStorage.setItem('k', '1')")
    second = await host.new_session(SessionOptions().allowing(base_url))
    await second.goto(base_url + "form.html")
    assert (await first.final_state(None)).storage == {"k": 1}
    assert (await second.final_state(None)).storage == {}
    assert first.state is SessionState.OPEN and host.sessions >= 2
    await first.aclose()
    await second.aclose()
    await first.aclose()  # idempotent
    assert second.state is SessionState.CLOSED


async def test_service_workers_are_blocked(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "form.html")
    # Playwright's "block" turns register() into a no-op: nothing gets registered.
    registrations = await session.page.evaluate(
        """async () => {
            await navigator.serviceWorker.register('/sw.js').catch(() => null);
            return (await navigator.serviceWorker.getRegistrations()).length;
        }"""
    )
    assert registrations == 0


async def test_element_ids_follow_the_last_observation(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "nav.html")
    obs = await session.observe(ObservationOptions(elements=True))
    assert obs.elements is not None and session.action_context().element_ids is not None
    obs = await session.step(Click(element=obs.elements[0].id), ObservationOptions())
    assert obs.title == "Page two"
    assert session.action_context().element_ids is None  # screenshot-only: ids unknown
