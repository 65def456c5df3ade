"""Our prompts for site generation: the rules and the reply format (system message), the site
to write (user message), and the repair request that carries validation problems back.

``PROMPT_VERSION`` is recorded with every generated site; bump it when the wording changes.
"""

from __future__ import annotations

from typing import Any

from webdojo.sitegen.catalogs import Triple
from webdojo.sitegen.images import ImageSettings
from webdojo.sitegen.reply import MIN_TASKS

PROMPT_VERSION = "sitegen-1"

SYSTEM = f"""\
You build small, self-contained websites that web-browsing agents are trained on, and the tasks \
that test them. Each site is static HTML, CSS and JavaScript served from a local folder.

# The site
- Every file is served from the same folder: link pages with relative URLs only ("book.html", \
never "/book.html" or "http://...").
- No network at all: no CDNs, web fonts, external scripts, stylesheets, images, iframes or \
fetch() to other hosts. Anything outside the folder is blocked and fails validation.
{{images}}
- Keep state in localStorage under keys that start with the site name given below plus a dot, \
so that verifiers can read it. Seed data from constants in the JavaScript. Be deterministic: no \
Math.random() without a fixed seed, and a fixed "today" instead of the real date.
- No console errors, no failed requests, no horizontal scrolling at 1280x720, no overlapping \
text, no interactive element that is invisible (zero size, transparent or off the page) while \
displayed.
- Give every element a task's solution uses a stable, unique id attribute.
- The site must look like a real {{category}} website in the style asked for, and make real use \
of the navigation capability asked for.

# The tasks
Write at least {MIN_TASKS} tasks that a person could do on the site, several of them using the \
capability. Each task has:
- "id": a short slug (lowercase letters, digits, dashes), unique in the site;
- "instruction": what the user asks, as a user would say it;
- "start_url": the page where it starts (default "index.html");
- "rubric": {{"fact_groups": [{{"id": 1, "description": "...", "facts": ["one checkable fact", \
...]}}]}} - the facts a reviewer must see established;
- "verifier": {{"checks": [...]}}, all of which must pass. A check is one of
  {{"kind": "answer", "match": "exact"|"contains"|"regex"|"number"|"any_of", "value": ..., \
"values": [...]}} (the final answer),
  {{"kind": "storage", "key": "<site>.key", "path": "items.0.id", "op": "eq"|"ne"|"contains"|\
"not_contains"|"in"|"gte"|"lte"|"exists"|"missing"|"len_eq"|"len_gte", "value": ...}} \
(a localStorage value, parsed as JSON),
  {{"kind": "url", "op": "contains"|"endswith"|"equals"|"regex", "value": "..."}},
  {{"kind": "text", "op": "contains"|"not_contains", "value": "..."}} (the final page's text);
- "solution": the reference solution, a list of actions that really completes the task;
- "wrong_solutions": at least one near miss (a list of actions) that the verifier must reject.

Actions: {{"type": "click"|"double_click"|"hover", "target": T}}, {{"type": "type", "target": T, \
"text": "...", "enter": false}}, {{"type": "select", "target": T, "option": "label"}}, \
{{"type": "press", "keys": "Enter"}}, {{"type": "scroll", "direction": "down"}}, \
{{"type": "goto", "url": "page.html"}}, {{"type": "go_back"}}, {{"type": "wait", "seconds": 1}}, \
and last {{"type": "stop", "answer": "..."}} (the answer when the task asks for information, \
else no answer). A target T is {{"html_id": "the-id"}} or {{"role": "button", "name": "the \
accessible name"}}.

# The reply
Reply with ONE JSON object and nothing else:
{{"title": "...", "description": "one paragraph on what the site offers",
  "pages": ["index.html", "other.html?x=1"],
  "files": {{"index.html": "<!doctype html>...", "style.css": "...", "app.js": "..."}},
  "tasks": [ ... ]}}
"pages" lists every page to check (the first is the home page). Do not include site.json or \
tasks.json: they are written from your reply.
"""

SVG_ONLY = """\
- Images are procedural: draw them as inline <svg> (or .svg files in the folder). No raster \
images (png, jpg, gif, webp), no data: URLs of raster images."""

# With an image model: {cap} and {size} are filled in. Our wording; pipeline.py and images.py
# implement what it promises.
WITH_IMAGE_MODEL = """\
- Images: draw icons, logos, charts and decorations as inline <svg>. An image model can also \
paint up to {cap} pictures (photos, illustrations) for the site: to get one, write in an HTML \
file an img tag with NO src and a data-image-prompt attribute holding a short description of \
the picture, for example <img data-image-prompt="a bowl of ramen on a dark wooden table, seen \
from above" alt="Ramen bowl" width="240" height="240">. Each distinct description becomes one \
{size} PNG file in images/ and the tag's src is filled in for you; the same description twice \
shows the same picture. Always give alt, width and height (or size it with CSS). Such tags must \
be written in the HTML, not built by JavaScript. No other raster images: no png, jpg, gif or \
webp files or URLs of your own, no data: URLs of raster images."""

USER = """\
Site name (prefix of every localStorage key): {name}
Website category: {category}
Navigation capability to feature: {capability}
Visual style: {style}

Write the site and its tasks."""

REPAIR = """\
Your site was checked in a real browser and did not pass. Problems:
{problems}

Fix every problem and reply again with the complete JSON object (all files and all tasks), in \
the same format."""

MAX_PROBLEMS_SHOWN = 30


def first_messages(
    name: str, triple: Triple, images: ImageSettings | None = None
) -> list[dict[str, Any]]:
    """The system and user messages for a site; ``images``: an image model is plugged in."""
    rule = SVG_ONLY
    if images is not None:
        rule = WITH_IMAGE_MODEL.replace("{cap}", str(images.cap)).replace("{size}", images.size)
    system = SYSTEM.replace("{category}", triple.category).replace("{images}", rule)
    user = USER.format(
        name=name, category=triple.category, capability=triple.capability, style=triple.style
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def repair_messages(
    first: list[dict[str, Any]], reply: str, problems: list[str]
) -> list[dict[str, Any]]:
    """The first messages, the last reply and what was wrong with it (older rounds are left
    out: each reply is a whole site, so the conversation would grow by a site per round)."""
    shown = problems[:MAX_PROBLEMS_SHOWN]
    if len(problems) > len(shown):
        shown.append(f"... and {len(problems) - len(shown)} more")
    text = REPAIR.format(problems="\n".join(f"- {p}" for p in shown))
    return [*first, {"role": "assistant", "content": reply}, {"role": "user", "content": text}]
