"""Helpers shared by the browser tests (a plain module: conftest files are not importable)."""

from __future__ import annotations

from webdojo.browser import BrowserSession, SessionOptions
from webdojo.observation import ObservationOptions

# Deadlines for tests that are not about deadlines: short enough that a hang fails fast,
# long enough for a machine shared with other test runs.
TEST_OPTIONS = SessionOptions(action_timeout_s=10.0, navigation_timeout_s=10.0, popup_wait_s=5.0)


async def ids(session: BrowserSession) -> dict[str, int]:
    """Element ids of the current page by their DOM id (observes with the element list)."""
    obs = await session.observe(ObservationOptions(elements=True))
    assert obs.elements is not None
    return {e.html_id: e.id for e in obs.elements if e.html_id}


async def text(session: BrowserSession, selector: str) -> str:
    """Read the page directly (test-only use of the ``page`` escape hatch)."""
    return (await session.page.text_content(selector)) or ""
