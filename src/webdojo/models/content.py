"""Chat message content parts in the OpenAI format (text, and images as data URLs): written
here, and read back here (``image_parts``, ``decode_image_part``)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
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


def image_parts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The image parts of ``messages``, in order."""
    return [
        part
        for m in messages
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]


def count_images(messages: list[dict[str, Any]]) -> int:
    """How many image parts a message list carries (tests and logs use it)."""
    return len(image_parts(messages))


@dataclass(frozen=True)
class ImageRef:
    """An image part, decoded: its bytes and format (``png``, ``jpeg``...)."""

    data: bytes
    format: str


def decode_image_part(part: dict[str, Any]) -> ImageRef:
    """``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`` -> bytes
    (the inverse of ``image_part``)."""
    url = part["image_url"]["url"]
    head, _, payload = url.partition(",")
    if not head.startswith("data:image/") or ";base64" not in head:
        raise ValueError(f"not a base64 data URL image: {url[:40]!r}")
    fmt = head.removeprefix("data:image/").split(";", 1)[0]
    return ImageRef(base64.b64decode(payload), "jpeg" if fmt == "jpg" else fmt)
