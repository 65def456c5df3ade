"""One training example: the context a policy saw at a step, the reply it gave, and its credit.

Exports and the trainer both consume ``Example``: exports write them in a trainer's format, the
reference trainer tokenizes them. ``prompt`` is exactly what the policy's template built for
that step (``PromptTemplate.context``), in the OpenAI chat format, screenshots as data-URL
image parts; ``reply`` is the model's text for the step, the assistant turn to learn.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from webdojo.training.samples import Sample

Message = dict[str, Any]


@dataclass(frozen=True)
class Example:
    sample: Sample  # where it comes from, its reward, advantage and weight
    prompt: list[Message]  # system + user turns (and earlier assistant turns, if the template
    # keeps them), as sent to the model
    reply: str  # the assistant turn to learn

    @property
    def messages(self) -> list[Message]:
        """The whole conversation: the prompt, then the reply as the assistant's turn."""
        return [*self.prompt, {"role": "assistant", "content": self.reply}]


@dataclass(frozen=True)
class ImageRef:
    """An image part of a prompt, decoded: its bytes and format (``png``, ``jpeg``...)."""

    data: bytes
    format: str


def image_refs(messages: list[Message]) -> list[ImageRef]:
    """The images of ``messages`` in order (data-URL image parts only)."""
    return [decode_image_part(part) for part in image_parts(messages)]


def image_parts(messages: list[Message]) -> list[dict[str, Any]]:
    return [
        part
        for m in messages
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]


def decode_image_part(part: dict[str, Any]) -> ImageRef:
    """``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`` -> bytes."""
    url = part["image_url"]["url"]
    head, _, payload = url.partition(",")
    if not head.startswith("data:image/") or ";base64" not in head:
        raise ValueError(f"not a base64 data URL image: {url[:40]!r}")
    fmt = head.removeprefix("data:image/").split(";", 1)[0]
    return ImageRef(base64.b64decode(payload), "jpeg" if fmt == "jpg" else fmt)
