"""Realistic run directories for viewer tests, written with ``RunStore``.

Screenshots are real JPEGs of local pages taken with headless Chromium (the built-in shop when
it is there, else a small page of our own), and element boxes are measured on those pages, so
overlays land where they would in a real run. The run holds every case the viewer must show:
element clicks with a recorded target, 0-1000 normalized clicks, typing, scrolls that change
nothing (repeats), an unparsed model output, a verifier failure, an env fault, an infra fault
superseded by a resumed attempt, and an episode that never finished. Records are built with
the typed models of ``webdojo.store.records``, as a rollout writes them.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Page, async_playwright

from webdojo.actions import Action, Click, CoordSpace, Goto, Press, Scroll, Stop, Type
from webdojo.errors import ErrorInfo
from webdojo.observation import Box, FinalState
from webdojo.store.records import (
    EpisodeRecord,
    StepRecord,
    Target,
    repeat_of,
)
from webdojo.store.run_config import RunConfigRecord
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import RunStore
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.verify import VerifyResult

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--no-sandbox"]  # fmt: skip
VIEWPORT = (1280, 720)

TASKS = [
    {"id": "shop.cart-lamp", "site": "shop", "instruction": "Add the brass desk lamp to your cart.",
     "facts": ["the brass desk lamp is in the cart"]},
    {"id": "shop.price-mug", "site": "shop",
     "instruction": "What does the speckled stoneware mug cost? Answer with the price.",
     "facts": ["the mug's product page was opened", "the price is read from it"]},
    {"id": "wiki.capital", "site": "wiki", "instruction": "Find the capital of Eldoria.",
     "facts": ["the Eldoria article was opened", "its capital was read", "answer given"]},
    {"id": "wiki.search", "site": "wiki", "instruction": "Search the wiki for tides.",
     "facts": ["a search for tides was made"]},
]  # fmt: skip

FALLBACK_PAGE = """<html><body style="font-family:sans-serif;margin:0">
<header style="background:#234;color:#fff;padding:16px 24px;font-size:22px">Tiny shop · {title}</header>
<div style="padding:24px"><input id="search-input" placeholder="Search" style="font-size:18px;padding:8px;width:360px">
<button id="search-btn" style="font-size:18px;padding:8px 16px">Search</button>
<div style="display:flex;gap:20px;margin-top:24px">{cards}</div></div></body></html>"""


def task_file(path: Path) -> Path:
    """Write the fixture's tasks as a task file (``--tasks`` accepts one) and return it."""
    rows = []
    for t in TASKS:
        rows.append({
            "id": t["id"], "site": t["site"], "instruction": t["instruction"], "start": "index.html",
            "rubric": {"fact_groups": [{"id": 1, "facts": t["facts"]}]},
            "verifier": {"checks": [{"kind": "url", "op": "contains", "value": "cart"}]},
            "solution": [{"type": "stop"}],
        })  # fmt: skip
    path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return path


@dataclass
class Shots:
    """Screenshots (stored paths) of a few page states, and element boxes measured on them."""

    paths: dict[str, str] = field(default_factory=dict)
    boxes: dict[str, dict[str, float]] = field(default_factory=dict)


async def _capture(page: Page, store: RunStore, name: str, shots: Shots) -> None:
    data = await page.screenshot(type="jpeg", quality=80, animations="disabled")
    shots.paths[name] = store.add_screenshot(data, "jpg")


async def take_shots(store: RunStore) -> Shots:
    from webdojo.tasks.loader import builtin_root

    shop = builtin_root() / "shop"
    shots = Shots()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]})
        for name, title in (("home", "home"), ("results", "results for lamp"), ("cart", "cart")):
            if (shop / "index.html").exists():
                target = {"home": "index.html", "results": "index.html", "cart": "cart.html"}[name]
                await page.goto((shop / target).as_uri())
                if name == "results" and await page.locator("#search-input").count():
                    await page.fill("#search-input", "lamp")
                    await page.locator("#search-input").press("Enter")
            else:
                cards = "".join(f"<div style='border:1px solid #ccc;padding:40px'>item {i}</div>"
                                for i in range(3 if name == "home" else 1))  # fmt: skip
                await page.set_content(FALLBACK_PAGE.format(title=title, cards=cards))
            await _capture(page, store, name, shots)
            for element in ("#search-input", "#search-btn"):
                box = await page.locator(element).first.bounding_box() if await page.locator(
                    element).count() else None  # fmt: skip
                if box and name == "home":
                    shots.boxes[element] = box
        await browser.close()
    return shots


def _target(shots: Shots, element: str, ident: int, role: str, name: str) -> Target:
    box = shots.boxes.get(element, {"x": 100.0, "y": 100.0, "width": 200.0, "height": 40.0})
    return Target(id=ident, role=role, name=name, box=Box(**box))


def _error(code: str, fault: str, message: str) -> ErrorInfo:
    return ErrorInfo(code=code, fault=fault, message=message)


def _step(
    key: str, uid: str, i: int, shot: str, nxt: str, action: Action | None, **extra: Any
) -> StepRecord:
    said = "?" if action is None else action.describe()
    fields: dict[str, Any] = {
        "episode": uid, "key": key, "task_id": key.split("#")[0], "step": i,
        "url": f"http://127.0.0.1:8000/{key.split('.')[0]}/index.html", "title": "Hearth & Hue",
        "viewport": VIEWPORT, "text": f"Thought: step {i} of {key}.\nAction: {said}",
        "action": action, "target": None, "memory": None, "error": None, "dialogs": [],
        "screenshot": shot, "next_screenshot": nxt, "policy_s": round(0.01 + i / 1000, 4),
        "env_s": round(0.05 + i / 100, 4), "usage": {"prompt_tokens": 900 + i, "completion_tokens": 40},
    }  # fmt: skip
    fields.update(extra)
    return StepRecord(**fields)


def _episode(
    key: str,
    uid: str | None,
    site: str,
    difficulty: int,
    steps: int,
    *reasons: str,
    **extra: Any,
) -> EpisodeRecord:
    """A verified episode when ``reasons`` are given (it passes when all are ``ok``), else
    a fault (``error`` in ``extra``)."""
    error: ErrorInfo | None = extra.pop("error", None)
    passed = all(r.startswith("ok") for r in reasons) if reasons else None
    url = "http://127.0.0.1:8000/shop/cart.html"
    answer = extra.pop("answer", None)
    fields: dict[str, Any] = {
        "key": key, "repeat": repeat_of(key), "episode": uid, "task_id": key.split("#")[0],
        "site": site,
        "difficulty": difficulty, "level": "easy" if difficulty <= 3 else "medium",
        "policy": "scripted", "outcome": EndReason.FAULT if passed is None else EndReason.STOPPED,
        "steps": steps, "answer": answer, "final_url": url,
        "verifier": None if passed is None else VerifyResult(passed=passed, reasons=list(reasons)),
        "success": passed, "reward": None if passed is None else float(passed),
        "fault": None if error is None else error.fault, "error": error,
        "final_state": None if passed is None else FinalState(
            url=url, title="Cart", storage={"cart": ["lamp"]}, text="Your cart", answer=answer),
        "started_at": time.time(), "wall_s": 1.5,
    }  # fmt: skip
    fields.update(extra)
    return EpisodeRecord(**fields)


def uid() -> str:
    return uuid.uuid4().hex[:12]


OK_CART, FAIL_CART = "ok: url contains 'cart'", "fail: url does not contain 'cart'"


async def build_run(root: Path, tasks: Path, policy: str = "scripted") -> Path:
    """Write a run directory at ``root``; ``policy`` changes outcomes (for comparisons)."""
    with RunStore(root) as store:
        store.write_config(RunConfigRecord.model_validate({"tasks": str(tasks), "policy": policy, "limit": None, "concurrency": 2,
                            "repeats": 1, "seed": 0, "out": str(root),
                            "viewport": list(VIEWPORT), "extra": {}}))  # fmt: skip
        s = await take_shots(store)
        home, results, cart = s.paths["home"], s.paths["results"], s.paths["cart"]
        key = "shop.cart-lamp#0"
        store.append_episode(_episode(key, None, "shop", 1, 0, wall_s=0.0,
                                      error=_error("browser_closed", "infra",
                                                   "the browser went away")))  # fmt: skip
        a = uid()
        if policy == "scripted":
            store.append_step(_step(key, a, 0, home, results, Type(element=3, text="lamp",
                enter=True), target=_target(s, "#search-input", 3, "searchbox",
                                            "Search products")))  # fmt: skip
            store.append_step(_step(key, a, 1, results, cart, Click(x=500, y=300,
                space=CoordSpace.NORM1000), memory={"progress": "searched"}))  # fmt: skip
            store.append_step(_step(key, a, 2, cart, cart, Stop(answer="")))
            store.append_episode(_episode(key, a, "shop", 1, 3, OK_CART))
        else:
            store.append_step(_step(key, a, 0, home, home, Scroll(direction="down")))
            store.append_step(_step(key, a, 1, home, home, Stop(answer="done")))
            store.append_episode(_episode(key, a, "shop", 1, 2, FAIL_CART, answer="done"))
        key, b = "shop.price-mug#0", uid()
        early = uid()  # an attempt cut short by a crash, then run again on resume
        store.append_step(_step(key, early, 0, home, results, Stop(answer="?")))
        store.append_step(_step(key, b, 0, home, home, Scroll(direction="down")))
        store.append_step(_step(key, b, 1, home, home, None, text="I think I will <b>click</b>",
            error=_error("parse_error", "agent", "no action found")))  # fmt: skip
        store.append_step(_step(key, b, 2, home, results, Click(element=4),
            target=_target(s, "#search-btn", 4, "button", "Search")))  # fmt: skip
        store.append_step(_step(key, b, 3, results, results, Stop(answer="$12")))
        store.append_episode(_episode(key, b, "shop", 2, 4, "fail: answer '$12' != '$18'",
                                      OK_CART, answer="$12", wall_s=2.25))  # fmt: skip
        key, c = "wiki.capital#0", uid()
        timeout = _error("navigation_timeout", "env", "took too long")
        store.append_step(_step(key, c, 0, home, home, Goto(url="http://127.0.0.1:9/x"),
                                error=timeout))  # fmt: skip
        store.append_episode(_episode(key, c, "wiki", 3, 1, wall_s=30.1, error=timeout))
        key, d = "wiki.search#0", uid()
        store.append_step(_step(key, d, 0, home, results, Click(x=640, y=360)))
        store.append_step(_step(key, d, 1, results, "screenshots/zz/missing.jpg",
                                Press(keys="Enter")))  # fmt: skip
    return root


def latest_episodes(root: Path) -> dict[str, dict[str, Any]]:
    """The latest record of each episode, as the viewer's API shows it (JSON)."""
    return {
        key: json.loads(json.dumps(record.model_dump(exclude={"final_state"})))
        for key, record in read_run(root).episodes.items()
    }


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The lines of a JSONL file as written, skipping a line cut short by a crash."""
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue
