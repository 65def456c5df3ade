"""Browser-free parts of the browser layer: finding Chromium, config, axtree formatting."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from webdojo.browser import (
    LAUNCH_ARGS,
    BrowserConfig,
    BrowserHost,
    SessionOptions,
    find_chromium,
)
from webdojo.browser.dom import DomSnapshot, axtree_text, element_line, parse_snapshot
from webdojo.browser.guard import first_line
from webdojo.errors import ChromiumNotFound, ConfigError
from webdojo.observation import AxTreeMode


def test_find_chromium_honours_the_env_var(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("WEBDOJO_CHROMIUM", str(fake))
    assert find_chromium() == str(fake)
    monkeypatch.setenv("WEBDOJO_CHROMIUM", str(tmp_path / "missing"))
    with pytest.raises(ChromiumNotFound) as info:
        find_chromium()
    assert "apt-get install -y chromium" in info.value.message
    assert "python -m playwright install chromium" in info.value.message


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    path.chmod(0o755)
    return path


def test_find_chromium_without_any_browser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("WEBDOJO_CHROMIUM", raising=False)
    monkeypatch.setattr("webdojo.browser.chromium.SYSTEM_CHROMIUM", str(tmp_path / "none"))
    monkeypatch.setattr("webdojo.browser.chromium.SYSTEM_HEADLESS_SHELLS", ())
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    with pytest.raises(ChromiumNotFound):
        find_chromium()
    managed = _executable(tmp_path / "chromium-1" / "chrome-linux64" / "chrome")
    assert find_chromium() == str(managed)
    shell = _executable(tmp_path / "chromium_headless_shell-1" / "chrome-linux" / "headless_shell")
    assert find_chromium() == str(shell)  # headless launches prefer the headless shell
    assert find_chromium(headless=False) == str(managed)


def test_find_chromium_prefers_debians_headless_shell_for_headless_launches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("WEBDOJO_CHROMIUM", raising=False)
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "registry"))
    system = _executable(tmp_path / "usr" / "chromium")
    monkeypatch.setattr("webdojo.browser.chromium.SYSTEM_CHROMIUM", str(system))
    shell = tmp_path / "usr" / "chromium-headless-shell"
    monkeypatch.setattr("webdojo.browser.chromium.SYSTEM_HEADLESS_SHELLS", (str(shell),))
    assert find_chromium() == str(system)
    _executable(shell)
    assert find_chromium() == str(shell)
    assert find_chromium(headless=False) == str(system)


async def test_launch_with_a_missing_executable(tmp_path: Path) -> None:
    with pytest.raises(ChromiumNotFound):
        await BrowserHost.launch(BrowserConfig(executable=str(tmp_path / "nope")))


def test_launch_args() -> None:
    args = BrowserConfig(no_sandbox=True, extra_args=("--foo",)).launch_args()
    assert args[: len(LAUNCH_ARGS)] == list(LAUNCH_ARGS)
    assert "--no-sandbox" in args and args[-1] == "--foo"
    assert "--no-sandbox" not in BrowserConfig(no_sandbox=False).launch_args()
    assert ("--no-sandbox" in BrowserConfig().launch_args()) == (os.geteuid() == 0)


def test_session_options_are_checked() -> None:
    with pytest.raises(ConfigError):
        SessionOptions(viewport_width=10)
    with pytest.raises(ConfigError):
        SessionOptions(action_timeout_s=0)


def test_first_line_strips_the_api_prefix_and_call_log() -> None:
    exc = RuntimeError("Page.goto: net::ERR_CONNECTION_REFUSED at http://x/\nCall log:\n  - ...")
    assert first_line(exc) == "net::ERR_CONNECTION_REFUSED at http://x/"
    assert first_line(RuntimeError("plain message: with colon")) == "plain message: with colon"


def _element(eid: int, role: str, name: str, y: float) -> dict[str, object]:
    box = {"x": 0, "y": y, "width": 10, "height": 10}
    return {"id": eid, "role": role, "name": name, "tag": "x", "box": box, "in_viewport": y < 720}


RAW = {
    "title": "T",
    "doc": "d",
    "elements": [
        _element(0, "link", "Home", 0) | {"html_id": "home"},
        _element(1, "textbox", "Q", 20) | {"value": "abc"},
        _element(2, "checkbox", "Ok", 900) | {"checked": True},
        _element(3, "combobox", "C", 30) | {"value": "B", "options": ["A", "B"]},
    ],
    "extras": [[0, "http://h/", False], [2, None, True]],
    "nodes": [
        ["h", "Title", True],
        ["t", "one", True],
        ["t", "two", True],
        ["e", 0],
        ["t", "three", True],
        ["i", "Logo", True],
        ["e", 1],
        ["t", "far", False],
        ["t", "away", False],
        ["e", 2],
        ["e", 3],
    ],
}


def test_axtree_text_merges_static_text_and_filters_the_viewport() -> None:
    snap = parse_snapshot(json.dumps(RAW))
    assert isinstance(snap, DomSnapshot) and snap.ids() == frozenset({0, 1, 2, 3})
    assert axtree_text(snap, AxTreeMode.FULL).splitlines() == [
        "RootWebArea 'T'",
        "heading 'Title'",
        "StaticText 'one two'",
        "[0] link 'Home' url: http://h/",
        "StaticText 'three'",
        "img 'Logo'",
        "[1] textbox 'Q' value: 'abc'",
        "StaticText 'far away'",
        "[2] checkbox 'Ok' checked: true disabled: true",
        "[3] combobox 'C' value: 'B' options: 'A', 'B'",
    ]
    view = axtree_text(snap, AxTreeMode.VIEWPORT).splitlines()
    assert "StaticText 'far away'" not in view and not any(line.startswith("[2]") for line in view)
    assert "StaticText 'three'" in view and view[-1].startswith("[3]")
    assert axtree_text(snap, AxTreeMode.NONE) == ""
    assert element_line(snap.elements[0]) == "[0] link 'Home'"


def test_hook_readings_with_null_counters_do_not_crash() -> None:
    """A document replaced mid-action may report null counters (its hooks have not run yet):
    seen once in a full demo run as a TypeError that ended an episode as internal_error."""
    from webdojo.browser.tabs import TabState

    tab = TabState(page=None)  # type: ignore[arg-type]  # note() never touches the page
    assert tab.note({"doc": "a", "navs": 0, "popups": 0, "submits": 0, "ready": "complete"}) == (
        False,
        False,
        False,
    )
    navigated, popup, submitted = tab.note(
        {"doc": "b", "navs": None, "popups": None, "submits": None, "ready": "loading"}
    )
    assert navigated and not popup and not submitted
    assert tab.note({"doc": "b", "navs": 1, "popups": 1, "submits": None, "ready": "complete"}) == (
        True,
        True,
        False,
    )
