"""What a step's action looks like drawn on its screenshot: geometry first, then SVG.

``overlay_spec`` turns a recorded action (plus the element box it aimed at, if recorded) into
geometry in viewport pixels; ``overlay_svg`` draws that geometry as SVG elements for an
``<svg viewBox="0 0 W H">`` laid over the screenshot. The viewer and the report both use these,
so an action looks the same everywhere.
"""

from __future__ import annotations

from html import escape
from typing import Any

from webdojo.actions import Action, PointerAction, describe, scale_point
from webdojo.store.records import Target

POINTER = {"click", "double_click", "hover", "type", "scroll", "select"}
ARROWS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
COLORS = {
    "point": "#e11d48",
    "box": "#2563eb",
    "arrow": "#7c3aed",
    "ok": "#047857",
    "bad": "#b91c1c",
    "label": "#111827",
}


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_action(action: Action | None) -> str:
    """A recorded action on one line, such as ``click(element=5)`` (``actions.describe``)."""
    return describe(action)


def _label(action: Action, target: Target | None) -> str:
    kind = action.type
    what = f" “{_short(target.name, 40)}”" if target is not None and target.name else ""
    element = getattr(action, "element", None)
    if element is not None and not what:
        what = f" #{element}"
    fields = action.model_dump(mode="json")
    if kind == "type":
        enter = " ⏎" if fields.get("enter") else ""
        return f"type “{_short(str(fields.get('text', '')))}”{enter}"
    if kind == "scroll":
        amount = fields.get("amount")
        return f"scroll {fields.get('direction', '?')}" + (f" {amount}px" if amount else "")
    if kind == "select":
        return f"select “{_short(str(fields.get('option', '')))}”{what}"
    if kind == "press":
        return f"press {fields.get('keys', '?')}"
    if kind in ("goto", "new_tab"):
        return f"{kind} {_short(str(fields.get('url') or ''), 80)}".rstrip()
    if kind == "stop":
        answer = fields.get("answer")
        return "stop" + (f": “{_short(str(answer), 80)}”" if answer else "")
    if kind == "tab_focus":
        return f"tab_focus {fields.get('index')}"
    if kind == "wait":
        return f"wait {fields.get('seconds', 1)} s"
    return kind.replace("_", " ") + what


def overlay_spec(
    action: Action | None, target: Target | None, viewport: tuple[int, int]
) -> dict[str, Any]:
    """Geometry of an action in viewport pixels.

    Keys: ``kind`` (the action type, or ``unparsed``), ``point`` ([x, y] or None: where a
    pointer action landed), ``box`` (the target element's box or None), ``arrow``
    ([[x1, y1], [x2, y2]] for scrolls), ``label`` (a short caption), ``tone`` (ok/bad/None).
    """
    if action is None:
        return {
            "kind": "unparsed",
            "point": None,
            "box": None,
            "arrow": None,
            "label": "unparsed model output: no action",
            "tone": "bad",
        }
    kind = action.type
    box = target.box.model_dump() if target is not None and kind in POINTER else None
    point = None
    if isinstance(action, PointerAction) and action.x is not None and action.y is not None:
        point = list(scale_point(action.x, action.y, action.space, *viewport))
    elif box is not None:
        point = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
    arrow = None
    if kind == "scroll":
        dx, dy = ARROWS.get(str(getattr(action, "direction", "down")), (0, 1))
        start = point or [viewport[0] / 2, viewport[1] / 2]
        length = min(viewport) * 0.18
        arrow = [start, [start[0] + dx * length, start[1] + dy * length]]
    tone = "ok" if kind == "stop" else None
    return {
        "kind": kind,
        "point": point,
        "box": box,
        "arrow": arrow,
        "label": _label(action, target),
        "tone": tone,
    }


def overlay_svg(spec: dict[str, Any], viewport: tuple[int, int], scale: float = 1.0) -> str:
    """SVG elements (no outer <svg>) drawing ``spec`` in a 0 0 W H view box; ``scale`` > 1
    draws thicker marks and larger text, for small thumbnails."""
    w, h = viewport
    unit = scale * max(w, h) / 1280  # stroke widths and fonts scale with the viewport
    parts: list[str] = []
    box = spec.get("box")
    if box:
        parts.append(
            f'<rect class="ov-box" x="{box["x"]:.1f}" y="{box["y"]:.1f}" '
            f'width="{box["width"]:.1f}" height="{box["height"]:.1f}" fill="{COLORS["box"]}" '
            f'fill-opacity="0.12" stroke="{COLORS["box"]}" stroke-width="{3 * unit:.1f}"/>'
        )
    arrow = spec.get("arrow")
    if arrow:
        (x1, y1), (x2, y2) = arrow
        parts.append(_arrow(x1, y1, x2, y2, unit))
    point = spec.get("point")
    if point and spec.get("kind") != "scroll":
        parts.append(_target_mark(point[0], point[1], unit))
    parts.append(_caption(spec, point, viewport, unit))
    kind = escape(str(spec.get("kind")))
    return f'<g class="overlay" data-kind="{kind}">{"".join(parts)}</g>'


def _target_mark(x: float, y: float, unit: float) -> str:
    c = COLORS["point"]
    r = 14 * unit
    return (
        f'<g class="ov-point" data-x="{x:.1f}" data-y="{y:.1f}">'
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * 1.8:.1f}" fill="{c}" fill-opacity="0.18"/>'
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="none" stroke="{c}" '
        f'stroke-width="{3 * unit:.1f}"/>'
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{3.5 * unit:.1f}" fill="{c}"/></g>'
    )


def _arrow(x1: float, y1: float, x2: float, y2: float, unit: float) -> str:
    c = COLORS["arrow"]
    dx, dy = x2 - x1, y2 - y1
    length = max((dx * dx + dy * dy) ** 0.5, 1e-6)
    ux, uy = dx / length, dy / length
    head = 22 * unit
    left = (x2 - ux * head - uy * head * 0.6, y2 - uy * head + ux * head * 0.6)
    right = (x2 - ux * head + uy * head * 0.6, y2 - uy * head - ux * head * 0.6)
    return (
        f'<g class="ov-arrow"><line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2 - ux * head * 0.5:.1f}" '
        f'y2="{y2 - uy * head * 0.5:.1f}" stroke="{c}" stroke-width="{8 * unit:.1f}" '
        f'stroke-linecap="round"/><polygon points="{x2:.1f},{y2:.1f} {left[0]:.1f},{left[1]:.1f} '
        f'{right[0]:.1f},{right[1]:.1f}" fill="{c}"/></g>'
    )


def _caption(
    spec: dict[str, Any], point: list[float] | None, viewport: tuple[int, int], unit: float
) -> str:
    """The label: next to the point if there is one, else a banner at the top left."""
    w, h = viewport
    text = str(spec.get("label", ""))
    size = 18 * unit
    pad = 6 * unit
    width = len(text) * size * 0.58 + 2 * pad
    height = size + 2 * pad
    if point:
        x = min(max(point[0] + 24 * unit, 4 * unit), max(w - width - 4 * unit, 0))
        y = point[1] + 24 * unit
        if y + height > h - 4 * unit:
            y = point[1] - 24 * unit - height
        y = min(max(y, 4 * unit), h - height)
    else:
        x, y = 10 * unit, 10 * unit
    fill = COLORS.get(str(spec.get("tone")), COLORS["label"])
    return (
        f'<g class="ov-label"><rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
        f'height="{height:.1f}" rx="{4 * unit:.1f}" fill="{fill}" fill-opacity="0.88"/>'
        f'<text x="{x + pad:.1f}" y="{y + pad + size * 0.8:.1f}" fill="#fff" '
        f'font-size="{size:.1f}" font-family="system-ui, sans-serif">{escape(text)}</text></g>'
    )
