"""Scripted model replies for the site generator's tests: a tiny site whose ten tasks really
pass (each clicks one button that writes localStorage), and ways to break it."""

from __future__ import annotations

import json
from typing import Any

from webdojo.sitegen.validate import ValidationSettings

# The looping page's load deadline is the only one a test waits out, so it stays short; the
# step deadline is never waited out by a good site, and on a loaded 2-core CI machine a click
# replay took past 3 s (a good site was "repaired" three times and rejected).
SETTINGS = ValidationSettings(navigation_timeout_s=4.0, action_timeout_s=30.0)

BUTTONS = 10
STYLE = (
    "body{font:16px sans-serif;margin:24px;background:#f4efe6;color:#222}"
    "button{display:block;margin:6px 0;padding:6px 12px}"
    "svg{display:block}"
)


def page(extra_head: str = "", extra_body: str = "") -> str:
    buttons = "".join(
        f'<button id="b{i}" onclick="pick({i})">Plan {i}</button>' for i in range(BUTTONS)
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Demo</title>"
        f"<link rel='stylesheet' href='style.css'>{extra_head}</head><body>"
        "<svg width='120' height='40' xmlns='http://www.w3.org/2000/svg'>"
        "<rect width='120' height='40' fill='#3a6'/></svg>"
        f"<h1>Demo plans</h1><p id='status'>none</p>{buttons}"
        "<script>function pick(i){localStorage.setItem('demo.last', JSON.stringify(i));"
        "document.getElementById('status').textContent='picked '+i;}</script>"
        f"{extra_body}</body></html>"
    )


def task(i: int, expected: int | None = None) -> dict[str, Any]:
    return {
        "id": f"pick-{i}",
        "instruction": f"Choose plan {i}.",
        "start_url": "index.html",
        "rubric": {"fact_groups": [{"id": 1, "facts": [f"plan {i} is chosen"]}]},
        "verifier": {
            "checks": [
                {
                    "kind": "storage",
                    "key": "demo.last",
                    "op": "eq",
                    "value": i if expected is None else expected,
                }
            ]
        },
        "solution": [{"type": "click", "target": {"html_id": f"b{i}"}}, {"type": "stop"}],
        "wrong_solutions": [
            [{"type": "click", "target": {"html_id": f"b{(i + 1) % BUTTONS}"}}, {"type": "stop"}]
        ],
    }


def site_reply(html: str | None = None, tasks: list[dict[str, Any]] | None = None) -> str:
    data = {
        "title": "Demo plans",
        "description": "Pick one of ten plans.",
        "pages": ["index.html"],
        "files": {"index.html": html or page(), "style.css": STYLE},
        "tasks": tasks if tasks is not None else [task(i) for i in range(BUTTONS)],
    }
    return "```json\n" + json.dumps(data) + "\n```"


GOOD = site_reply()
CONSOLE_ERROR_AND_BAD_REFERENCE = site_reply(
    html=page(extra_body="<script>console.error('boom')</script>"),
    tasks=[task(0, expected=99)] + [task(i) for i in range(1, BUTTONS)],
)
EXTERNAL = site_reply(
    html=page(extra_head="<script src='https://cdn.example.com/lib.js'></script>")
)
LOOPS_FOREVER = site_reply(html=page(extra_body="<script>while(true){}</script>"))

# Three pictures, two of them the same description: drawn twice with an image model.
PICTURES = (
    "<div id='gallery'>"
    "<img data-image-prompt='a red bicycle leaning on a brick wall' alt='Bicycle' width='64' "
    "height='64'>"
    '<img data-image-prompt="a mountain lake at dawn" alt="Lake" width="64" height="64">'
    "<img data-image-prompt='a red  bicycle leaning on a brick wall' alt='Bicycle again' "
    "width='64' height='64'>"
    "</div>"
)
WITH_PICTURES = site_reply(html=page(extra_body=PICTURES))
# A page with this marker is crashed by the crash test's hook (see test_generate.py).
CRASH_MARKER = "<!-- webdojo-test: crash this tab -->"
CRASHES = site_reply(html=page(extra_body=CRASH_MARKER))
