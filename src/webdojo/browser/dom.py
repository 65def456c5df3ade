"""The DOM snapshot (``dom.js``) and the accessibility-tree text built from it.

``dom.js`` does the page-side work in one ``evaluate``: ids, roles, names, boxes, values and
the raw node sequence. Everything else is plain Python here (``parse_snapshot``,
``axtree_text``), testable without a browser.

Axtree format (BrowserAgent's): one ``[id] role 'name'`` line per interactive node, plus
``heading``, ``img`` and ``StaticText`` lines without ids (only interactive nodes have ids, and
they are exactly the ids of the element list, which element actions accept). Consecutive static
text is merged into one line. Extra facts follow the name: ``value: '...'``, ``checked: true``,
``options: 'a', 'b'``, ``disabled: true``, ``url: ...`` (links).

Limitations: cross-origin iframes and closed shadow roots are invisible to the walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import CDPSession
from pydantic import BaseModel

from webdojo.browser import page_scripts
from webdojo.observation import AxTreeMode, Element


@dataclass(frozen=True)
class Extra:
    """Per-element facts that the axtree shows but ``Element`` has no field for."""

    url: str | None = None
    disabled: bool = False


@dataclass(frozen=True)
class DomSnapshot:
    title: str
    hooks: dict[str, Any]  # hooks.js counters and document token, as act.js ``check`` gives
    elements: list[Element]
    nodes: list[list[Any]] = field(default_factory=list)  # raw axtree nodes, see dom.js
    extras: dict[int, Extra] = field(default_factory=dict)

    def ids(self) -> frozenset[int]:
        return frozenset(e.id for e in self.elements)


class _Raw(BaseModel):
    """dom.js's JSON. Validated in one pass from the JSON text (pydantic's Rust core), which
    is several times faster than building thousands of models from Python lists."""

    title: str = ""
    doc: str | None = None
    navs: int = 0
    popups: int = 0
    done: bool = False  # window.__webdojo_done (observation.PAGE_DONE_GLOBAL)
    elements: list[Element]
    extras: list[tuple[int, str | None, bool]] = []
    nodes: list[list[Any]] = []


async def take_snapshot(
    cdp: CDPSession, *, lines: bool, marks: bool, ready: bool = False
) -> tuple[DomSnapshot, int | None]:
    """Run dom.js once. With ``marks`` the overlay stays up until ``remove_marks``. With
    ``ready`` the same evaluate readies the page for a screenshot (shot.js ``prepare_now``):
    the second item is what that paused (None: nothing was readied)."""
    args = {"lines": lines, "marks": marks, "ready": ready}
    raw = await page_scripts.read(cdp, "snap", args)
    shot = raw.get("shot")
    return parse_snapshot(raw["text"]), None if shot is None else int(shot)


async def remove_marks(cdp: CDPSession) -> None:
    await page_scripts.read(cdp, "act", {"op": "unmark"})


def parse_snapshot(text: str | bytes) -> DomSnapshot:
    raw = _Raw.model_validate_json(text)
    return DomSnapshot(
        title=raw.title,
        hooks={
            "doc": raw.doc,
            "navs": raw.navs,
            "popups": raw.popups,
            "ready": "complete",
            "done": raw.done,
        },
        elements=raw.elements,
        nodes=raw.nodes,
        extras={eid: Extra(url=url, disabled=disabled) for eid, url, disabled in raw.extras},
    )


def element_line(element: Element, extra: Extra | None = None) -> str:
    parts = [f"[{element.id}] {element.role} '{element.name}'"]
    if element.value:
        parts.append(f"value: '{element.value}'")
    if element.checked is not None:
        parts.append(f"checked: {str(element.checked).lower()}")
    if element.options:
        parts.append("options: " + ", ".join(f"'{o}'" for o in element.options))
    if extra is not None and extra.disabled:
        parts.append("disabled: true")
    if extra is not None and extra.url:
        parts.append(f"url: {extra.url}")
    return " ".join(parts)


def axtree_text(snapshot: DomSnapshot, mode: AxTreeMode) -> str:
    """The axtree text for ``mode`` (viewport: only nodes on screen; full: all)."""
    if mode is AxTreeMode.NONE:
        return ""
    by_id = {e.id: e for e in snapshot.elements}
    lines = [f"RootWebArea '{snapshot.title}'"]
    text_run: list[str] = []

    def flush() -> None:
        if text_run:
            lines.append(f"StaticText '{' '.join(text_run)}'")
            text_run.clear()

    for node in snapshot.nodes:
        kind = node[0]
        if kind == "e":
            element = by_id[node[1]]
            if mode is AxTreeMode.VIEWPORT and not element.in_viewport:
                continue
            flush()
            lines.append(element_line(element, snapshot.extras.get(element.id)))
            continue
        if mode is AxTreeMode.VIEWPORT and not node[2]:
            continue
        if kind == "t":
            text_run.append(node[1])
            continue
        flush()
        lines.append(f"{'heading' if kind == 'h' else 'img'} '{node[1]}'")
    flush()
    return "\n".join(lines)
