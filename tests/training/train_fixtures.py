"""Examples for the trainer's tests: built directly, each prompt a system turn and a user turn
with a small PNG screenshot, as ``PromptTemplate.context`` lays them out."""

from __future__ import annotations

import base64
import io

from PIL import Image

from webdojo.training.examples import Example
from webdojo.training.samples import Sample

REPLIES = ("click [12]", "type [3] blue shirt", "scroll down", "stop [42 dollars]", "go_back")


def png_url(color: tuple[int, int, int] = (200, 40, 40), size: tuple[int, int] = (128, 72)) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def example(
    i: int,
    reply: str | None = None,
    *,
    rule: str = "bc",
    reward: float = 1.0,
    advantage: float | None = None,
    image: bool = True,
) -> Example:
    sample = Sample(
        rule=rule, run="runs/r0", iteration=0, key=f"task{i}#0", episode=f"task{i}#0-e",
        task_id=f"task{i}", step=i, reward=reward, advantage=advantage,
    )  # fmt: skip
    parts: list[dict[str, object]] = [{"type": "text", "text": f"Task {i}: buy the blue shirt."}]
    if image:
        parts.append({"type": "image_url", "image_url": {"url": png_url((40 * i % 255, 90, 200))}})
    prompt = [
        {"role": "system", "content": "You are a web agent. Answer with one action."},
        {"role": "user", "content": parts},
    ]
    return Example(sample, prompt, reply if reply is not None else REPLIES[i % len(REPLIES)])


def examples(n: int = 5, **kw: object) -> list[Example]:
    return [example(i, **kw) for i in range(n)]  # type: ignore[arg-type]
