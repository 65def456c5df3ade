"""Run directories with real screenshots, and a scripted judge model, for the model-judge tests.

``write_trajectory`` writes a run directory (config, steps, episodes, PNG/JPEG screenshots drawn
with Pillow, one colour per page) and returns the ``Trajectory`` a judge reads. ``Script``
answers the fake endpoint per prompt (it tells the prompts apart by their system message), so
a test says "facts fail, keypoints are relevant" instead of queueing replies in order.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from PIL import Image, ImageDraw

from fakes.openai_server import Reply, message_text
from store import record_builders as rb
from webdojo.actions import Click, Stop
from webdojo.judges.judge_prompts import PROMPTS
from webdojo.judges.trajectory import Trajectory
from webdojo.store.records import to_line
from webdojo.store.run_store import CONFIG, EPISODES, STEPS
from webdojo.tasks.schema import Task

TASK = Task.model_validate(
    {
        "id": "shop.cart-lamp",
        "instruction": "Add the brass desk lamp to the cart and tell me its price.",
        "website": "shop",
        "start_url": "index.html",
        "rubric": {
            "fact_groups": [
                {"id": 1, "description": "the lamp", "facts": ["the brass desk lamp page is open",
                                                              "the lamp is in the cart"]},
                {"id": 2, "description": "the price", "facts": ["the price is shown"]},
            ]
        },
    }
)  # fmt: skip
COLOURS = ["#d33", "#3a3", "#33d", "#dd3", "#3dd", "#d3d", "#888", "#a52", "#2a5", "#52a", "#000"]


def task(**changes: Any) -> Task:
    return Task.model_validate({**TASK.model_dump(), **changes})


def _image(index: int, size: tuple[int, int], fmt: str) -> bytes:
    image = Image.new("RGB", size, COLOURS[index % len(COLOURS)])
    ImageDraw.Draw(image).text((10, 10), f"page {index}", fill="#fff")
    out = io.BytesIO()
    image.save(out, format="PNG" if fmt == "png" else "JPEG", quality=90)
    return out.getvalue()


def write_trajectory(
    root: Path,
    the_task: Task | None = TASK,
    *,
    steps: int = 3,
    answer: str | None = "The brass desk lamp costs $39.",
    size: tuple[int, int] = (640, 400),
    fmt: str = "png",
    key: str | None = None,
    tasks_file: bool = True,
) -> Trajectory:
    """A run directory under ``root`` with one episode of ``steps`` steps (``steps + 1``
    distinct screenshots), and its trajectory."""
    root.mkdir(parents=True, exist_ok=True)
    task_id = the_task.id if the_task is not None else "gone.task"
    key = key or f"{task_id}#0"
    uid = key + "-e"
    if tasks_file and the_task is not None:
        (root / "tasks.json").write_text(json.dumps([the_task.model_dump(mode="json")]))
    (root / CONFIG).write_text(json.dumps({"tasks": str(root / "tasks.json")}), encoding="utf-8")
    (root / "screenshots").mkdir(exist_ok=True)
    ext = "png" if fmt == "png" else "jpg"
    records = []
    for index in range(steps):
        action = Stop(answer=answer or "") if index == steps - 1 else Click(x=10 * index, y=20)
        record = rb.step(uid, index, key=key, action=action,
                         screenshot=f"screenshots/{uid}-{index}.{ext}",
                         next_screenshot=f"screenshots/{uid}-{index + 1}.{ext}")  # fmt: skip
        records.append(record)
        for n in (index, index + 1):
            (root / f"screenshots/{uid}-{n}.{ext}").write_bytes(_image(n, size, fmt))
    with open(root / STEPS, "a") as handle:
        handle.writelines(to_line(r) + "\n" for r in records)
    episode = rb.episode(key, None, steps=steps, answer=answer)
    with open(root / EPISODES, "a") as handle:
        handle.write(to_line(episode) + "\n")
    return Trajectory(root, episode, records, the_task)


# --- the scripted model ----------------------------------------------------------------------


def prompt_of(body: dict[str, Any]) -> str:
    """Which of our prompts a request asks (by its system message)."""
    system = message_text(body["messages"][0])
    for name, prompt in PROMPTS.items():
        if system == prompt.system:
            return name
    raise AssertionError(f"not one of the judge prompts: {system[:80]!r}")


def user_text(body: dict[str, Any]) -> str:
    return message_text(body["messages"][1])


def images_of(body: dict[str, Any]) -> list[bytes]:
    """The decoded images of a request, in order."""
    found = []
    for msg in body["messages"]:
        if isinstance(msg.get("content"), list):
            for part in msg["content"]:
                if part.get("type") == "image_url":
                    found.append(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))
    return found


def sides_of(body: dict[str, Any]) -> list[int]:
    """The longest side of each image of a request, in pixels."""
    return [max(Image.open(io.BytesIO(data)).size) for data in images_of(body)]


def fact_of(body: dict[str, Any]) -> str:
    match = re.search(r"FACT TO CHECK: (.*)", user_text(body))
    assert match is not None
    return match.group(1).strip()


Answer: TypeAlias = str | Reply | Callable[[dict[str, Any]], str | Reply]

DEFAULTS: dict[str, str] = {
    "keypoint": "Reason: the page shows the lamp.\nRelevant: YES",
    "fact": "1. Analysis: step 2 shows it.\n2. Verdict: SUCCESS",
    "answer": "1. Claims: $39, seen at step 3.\n3. Verdict: SUCCESS",
    "blocking": "Reason: normal pages.\nBlocked: NO",
    "reference": "Reason: same price.\nAgrees: YES",
    "task": "Analysis: done, see step 3.\nVerdict: SUCCESS",
    "website_failure": "The cart shows the lamp (step 3).\nVerdict: SUCCESS",
}


@dataclass
class Script:
    """Replies per prompt name (``DEFAULTS`` unless overridden); ``facts`` overrides per fact
    text. Use as ``fake_openai.respond_with(script)``."""

    replies: dict[str, Answer] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)  # prompt names, in order

    def __call__(self, body: dict[str, Any]) -> str | Reply:
        name = prompt_of(body)
        self.asked.append(name)
        if name == "fact" and fact_of(body) in self.facts:
            return self.facts[fact_of(body)]
        answer = self.replies.get(name, DEFAULTS[name])
        return answer(body) if callable(answer) else answer

    def count(self, name: str) -> int:
        return self.asked.count(name)


def context_error() -> Reply:
    """What vLLM answers to a prompt longer than the model's context."""
    message = (
        "This model's maximum context length is 8192 tokens. However, you requested 12000 "
        "tokens (11000 in the messages, 1000 in the completion). Please reduce the length."
    )
    body = {"object": "error", "message": message, "type": "BadRequestError", "code": 400}
    return Reply(status=400, raw_body=json.dumps(body))
