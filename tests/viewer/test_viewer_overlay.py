"""Pure pieces of the viewer: path safety and action overlays (no browser, no run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import TypeAdapter

from webdojo.actions import Action
from webdojo.store.records import Target
from webdojo.viewer.overlay import describe_action, overlay_spec, overlay_svg
from webdojo.viewer.runs import safe_path


@pytest.mark.parametrize(
    "rel",
    ["../x", "/etc/passwd", "screenshots/../../x", "screenshots", "", "a\x00b", "config.json/.."],
)
def test_safe_path_refuses_anything_outside(tmp_path: Path, rel: str) -> None:
    root = tmp_path / "run"
    (root / "screenshots").mkdir(parents=True)
    (tmp_path / "x").write_text("secret")
    (root / "config.json").write_text("{}")
    assert safe_path(root, rel) is None


def test_safe_path_refuses_symlinks_out(tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (tmp_path / "secret").write_text("secret")
    (root / "link").symlink_to(tmp_path / "secret")
    (root / "ok.txt").write_text("fine")
    assert safe_path(root, "link") is None
    assert safe_path(root, "ok.txt") == (root / "ok.txt").resolve()


# --- overlays -----------------------------------------------------------------------------


def act(data: dict) -> Action:
    return TypeAdapter(Action).validate_python(data)


def test_normalized_click_is_scaled_to_the_viewport() -> None:
    spec = overlay_spec(
        act({"type": "click", "x": 500, "y": 250, "space": "norm1000"}), None, (1280, 720)
    )
    assert spec["point"] == [640.0, 180.0]
    assert 'data-x="640.0"' in overlay_svg(spec, (1280, 720))


def test_element_action_draws_its_box_and_centre() -> None:
    target = Target.model_validate(
        {
            "id": 5,
            "role": "button",
            "name": "Add",
            "box": {"x": 100, "y": 50, "width": 40, "height": 20},
        }
    )
    spec = overlay_spec(
        act({"type": "click", "element": 5, "x": None, "y": None}), target, (1280, 720)
    )
    assert spec["box"] == {"x": 100.0, "y": 50.0, "width": 40.0, "height": 20.0}
    assert spec["point"] == [120.0, 60.0]
    assert "“Add”" in spec["label"]


def test_typed_text_and_scrolls_and_unparsed() -> None:
    typed = overlay_spec(act({"type": "type", "text": "<script>", "enter": True}), None, (800, 600))
    assert typed["label"] == "type “<script>” ⏎"
    assert "&lt;script&gt;" in overlay_svg(typed, (800, 600))
    scroll = overlay_spec(act({"type": "scroll", "direction": "up"}), None, (800, 600))
    (x1, y1), (x2, y2) = scroll["arrow"]
    assert x1 == x2 and y2 < y1
    assert overlay_spec(None, None, (800, 600))["kind"] == "unparsed"


def test_describe_action() -> None:
    assert describe_action(act({"type": "click", "element": 5, "x": None, "space": "pixel"})) == (
        "click(element=5)"
    )
    assert "space='norm1000'" in describe_action(
        act({"type": "click", "x": 1, "y": 2, "space": "norm1000"})
    )
    assert "could not be parsed" in describe_action(None)
