"""Observations: screenshots, finished transitions, axtree text, element list, set-of-marks."""

from __future__ import annotations

import io

import pytest
from browser_helpers import ids
from PIL import Image, ImageChops

from webdojo.actions import Click
from webdojo.browser import BrowserHost, BrowserSession, SessionOptions
from webdojo.observation import AxTreeMode, ImageFormat, Observation, ObservationOptions

pytestmark = pytest.mark.browser


def image(obs: Observation) -> Image.Image:
    assert obs.screenshot is not None
    return Image.open(io.BytesIO(obs.screenshot)).convert("RGB")


def close_to(pixel: tuple[int, ...], want: tuple[int, int, int], tol: int = 24) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(pixel, want, strict=False))


async def test_jpeg_by_default_png_on_request(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "pointer.html")
    obs = await session.observe(ObservationOptions())
    assert obs.screenshot is not None and obs.screenshot[:2] == b"\xff\xd8"
    assert obs.image_format is ImageFormat.JPEG and image(obs).size == (1280, 720)
    assert obs.title == "Pointer" and obs.url == base_url + "pointer.html"
    assert obs.axtree is None and obs.elements is None
    obs = await session.observe(ObservationOptions(image_format=ImageFormat.PNG))
    assert obs.screenshot is not None and obs.screenshot[:8] == b"\x89PNG\r\n\x1a\n"
    obs = await session.observe(ObservationOptions(screenshot=False))
    assert obs.screenshot is None and obs.title == "Pointer"


async def test_viewport_size_is_configurable(host: BrowserHost, base_url: str) -> None:
    async with await host.new_session(
        SessionOptions(viewport_width=800, viewport_height=600).allowing(base_url)
    ) as s:
        await s.goto(base_url + "pointer.html")
        obs = await s.observe(ObservationOptions())
        assert image(obs).size == (800, 600)
        assert (obs.viewport_width, obs.viewport_height) == (800, 600)
        assert s.action_context().viewport_width == 800


async def test_transitions_and_animations_are_finished(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "modal.html")
    obs = await session.step(Click(element=(await ids(session))["show"]), ObservationOptions())
    shot = image(obs)
    # The 300 ms background/opacity transition is at its end state (red), not mid-way.
    assert close_to(shot.getpixel((600, 350)), (200, 0, 0))  # type: ignore[arg-type]
    # The 2 s keyframe animation is at its last frame (green).
    assert close_to(shot.getpixel((45, 625)), (0, 200, 0))  # type: ignore[arg-type]


async def test_axtree_full_and_viewport(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "axtree.html")
    full = await session.observe(ObservationOptions(axtree=AxTreeMode.FULL, elements=True))
    lines = (full.axtree or "").splitlines()
    assert lines[0] == "RootWebArea 'Tree'"
    assert lines[1] == "heading 'Catalog'"
    # Consecutive static text is merged into one line.
    assert lines[2] == "StaticText 'First text bold part and more. Second paragraph.'"
    assert lines[3] == f"[0] link 'Item one' url: {base_url}two.html"
    assert "img 'Logo picture'" in lines
    assert "[1] button 'Custom widget'" in lines
    assert any(line.startswith("[2] clickable 'Clickable card inner'") for line in lines)
    assert "[3] button 'Labelled by span'" in lines
    assert "heading 'Far heading'" in lines and "Hidden button" not in full.axtree  # type: ignore[operator]
    assert "[5] button 'Frame button'" in lines  # same-origin iframe content
    # Ids in the axtree are exactly the element list's ids, in DOM order.
    assert full.elements is not None
    assert [e.id for e in full.elements] == list(range(len(full.elements)))
    for e in full.elements:
        assert any(line.startswith(f"[{e.id}] {e.role} '{e.name}'") for line in lines)

    view = await session.observe(ObservationOptions(axtree=AxTreeMode.VIEWPORT))
    assert "heading 'Catalog'" in (view.axtree or "")
    assert "Far heading" not in (view.axtree or "") and "Far button" not in (view.axtree or "")
    assert view.elements is None  # the list only comes when asked for
    # Same DOM, same ids: the full tree of a second capture is identical.
    again = await session.observe(ObservationOptions(axtree=AxTreeMode.FULL, elements=True))
    assert again.axtree == full.axtree and again.elements == full.elements


async def test_element_list_names_values_and_options(
    session: BrowserSession, base_url: str
) -> None:
    await session.goto(base_url + "form.html")
    obs = await session.observe(ObservationOptions(elements=True))
    assert obs.elements is not None
    by_html = {e.html_id: e for e in obs.elements}
    assert (by_html["name"].role, by_html["name"].name) == ("textbox", "Full name")
    assert by_html["name"].value == "old"
    assert by_html["email"].name == "Email"  # wrapping label
    assert by_html["q"].name == "Search terms"  # aria-label over placeholder
    assert by_html["bio"].name == "About you"  # placeholder
    assert by_html["color"].role == "combobox" and by_html["color"].options == [
        "Red",
        "Green",
        "Blue",
    ]
    assert by_html["agree"].role == "checkbox" and by_html["agree"].checked is False
    assert by_html["go"].role == "button" and by_html["go"].name == "Submit"
    assert all(e.in_viewport and e.box.width > 0 for e in obs.elements)
    assert session.action_context().element_ids == frozenset(e.id for e in obs.elements)


async def test_set_of_marks(session: BrowserSession, base_url: str) -> None:
    await session.goto(base_url + "pointer.html")
    plain = await session.observe(ObservationOptions(image_format=ImageFormat.PNG))
    marked = await session.observe(ObservationOptions(marks=True, image_format=ImageFormat.PNG))
    assert marked.elements is not None
    assert {e.html_id for e in marked.elements} >= {"count-btn", "hover-box", "dbl-box", "pt"}
    diff = ImageChops.difference(image(plain), image(marked))
    for e in marked.elements:
        # The outline is drawn on the element's edge: pixels there changed.
        left, top = int(e.box.x), int(e.box.y)
        edge = diff.crop((left, top, left + int(e.box.width), top + 3))
        assert edge.getbbox() is not None, f"no mark drawn on [{e.id}]"
    # The overlay is gone afterwards: the next capture equals the plain one.
    after = await session.observe(ObservationOptions(image_format=ImageFormat.PNG))
    assert ImageChops.difference(image(plain), image(after)).getbbox() is None
    # Ids drawn are the element list's ids, which element actions accept.
    count = next(e.id for e in marked.elements if e.html_id == "count-btn")
    obs = await session.step(Click(element=count), ObservationOptions(marks=True))
    assert obs.last_error is None
