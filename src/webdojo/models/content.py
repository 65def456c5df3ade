"""Chat message content parts in the OpenAI format (text, and images as data URLs)."""

from __future__ import annotations

import base64
from typing import Any

_MIME = {"jpeg": "image/jpeg", "jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}


def image_data_url(data: bytes, image_format: str = "jpeg") -> str:
    """``data:image/jpeg;base64,...``: how images travel to any OpenAI-compatible server."""
    mime = _MIME.get(str(image_format).lower())
    if mime is None:
        raise ValueError(f"unsupported image format {image_format!r}")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def image_part(data: bytes, image_format: str = "jpeg") -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image_data_url(data, image_format)}}


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def message(role: str, *parts: dict[str, Any] | str) -> dict[str, Any]:
    """A chat message. Plain text stays a string (every server accepts that); anything with an
    image becomes a list of parts, neighbouring texts joined into one part: chat templates
    such as Qwen2-VL's concatenate text parts with nothing between them."""
    items: list[dict[str, Any]] = []
    for part in (text_part(p) if isinstance(p, str) else p for p in parts if p != ""):
        if part["type"] == "text" and items and items[-1]["type"] == "text":
            items[-1] = text_part(items[-1]["text"] + "\n\n" + part["text"])
        else:
            items.append(part)
    if all(p["type"] == "text" for p in items):
        return {"role": role, "content": "".join(p["text"] for p in items)}
    return {"role": role, "content": items}


def count_images(messages: list[dict[str, Any]]) -> int:
    """How many image parts a message list carries (tests and logs use it)."""
    return sum(
        1
        for m in messages
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if p.get("type") == "image_url"
    )
