"""Builders for policy tests: observations, tasks and steps made directly (no browser)."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from webdojo.actions import Action
from webdojo.history import Decision, Step
from webdojo.observation import Box, Element, ErrorInfo, Observation, Tab
from webdojo.tasks.schema import Task

AXTREE = "[1] link 'Home'\n[2] searchbox 'Search products'\n[3] button 'Go'"


def jpeg(shade: int) -> bytes:
    """A tiny JPEG whose bytes differ by ``shade`` (to tell screenshots apart)."""
    out = io.BytesIO()
    Image.new("RGB", (16, 9), (shade, 255 - shade, 40)).save(out, format="JPEG")
    return out.getvalue()


def element(id: int, role: str, name: str, **kw: Any) -> Element:
    kw.setdefault("tag", {"button": "button", "link": "a", "combobox": "select"}.get(role, "input"))
    box = Box(x=10.0 * id, y=20.0, width=80.0, height=24.0)
    return Element(id=id, role=role, name=name, box=box, in_viewport=True, **kw)


ELEMENTS = [
    element(1, "link", "Home", html_id="nav-home"),
    element(2, "searchbox", "Search products", html_id="q"),
    element(3, "button", "Go"),
    element(4, "button", "Add to Cart", html_id="add-lamp"),
    element(5, "combobox", "Size", options=["Small", "Large"]),
]


def make_obs(
    shade: int = 0,
    url: str = "http://127.0.0.1:9/index.html",
    *,
    elements: list[Element] | None = ELEMENTS,
    axtree: str | None = AXTREE,
    screenshot: bool = True,
    last_error: ErrorInfo | None = None,
) -> Observation:
    return Observation(
        url=url,
        title="Shop",
        tabs=[Tab(index=0, url=url, title="Shop", active=True)],
        viewport_width=1280,
        viewport_height=720,
        screenshot=jpeg(shade) if screenshot else None,
        axtree=axtree,
        elements=elements,
        last_error=last_error,
    )


def make_task(**kw: Any) -> Task:
    data: dict[str, Any] = {
        "id": "shop.cart-lamp",
        "website": "shop",
        "instruction": "Add the brass desk lamp to your cart.",
        "start_url": "index.html",
        "rubric": {"fact_groups": [{"id": 1, "facts": ["the lamp is in the cart"]}]},
        "verifier": {"checks": [{"kind": "answer", "value": "done"}]},
        "solution": [{"type": "click", "target": {"html_id": "add-lamp"}}, {"type": "stop"}],
        "wrong_solutions": [[{"type": "click", "target": {"role": "link", "name": "home"}}]],
    }
    return Task.model_validate({**data, **kw})


def make_step(index: int, text: str, action: Action | None, memory: Any = None, **obs: Any) -> Step:
    decision = Decision(text=text, action=action, memory=memory)
    return Step(index=index, observation=make_obs(shade=10 * (index + 1), **obs), decision=decision)
