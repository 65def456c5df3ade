"""A JSON-schema property as a short, linked type for the reference tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def json_type(prop: dict[str, Any], link: Callable[[str], str]) -> str:
    """A JSON-schema property as a short type, with links (``link(name)``: an anchor) to the
    models it names."""
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{link(name)})"
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return " \\| ".join(json_type(p, link) for p in prop[key])
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    kind = prop.get("type")
    if kind == "array":
        if "prefixItems" in prop:
            return "[" + ", ".join(json_type(p, link) for p in prop["prefixItems"]) + "]"
        return f"list[{json_type(prop.get('items', {}), link)}]"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"dict[string, {json_type(prop['additionalProperties'], link)}]"
    if kind == "null":
        return "null"
    return str(kind) if kind else "any"
