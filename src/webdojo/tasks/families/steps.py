"""The pieces families build instances from: reference-solution steps that name their element
by DOM id, and the storage check most verifiers are made of."""

from __future__ import annotations

from typing import Any

STOP: dict[str, Any] = {"type": "stop"}


def click(html_id: str) -> dict[str, Any]:
    return {"type": "click", "target": {"html_id": html_id}}


def type_text(html_id: str, text: str, enter: bool = False) -> dict[str, Any]:
    step = {"type": "type", "target": {"html_id": html_id}, "text": text}
    return {**step, "enter": True} if enter else step


def select(html_id: str, option: str) -> dict[str, Any]:
    return {"type": "select", "target": {"html_id": html_id}, "option": option}


def stored(key: str, path: str, value: Any) -> dict[str, Any]:
    """A check that ``localStorage[key]`` holds ``value`` at ``path``."""
    return {"kind": "storage", "key": key, "path": path, "op": "eq", "value": value}
