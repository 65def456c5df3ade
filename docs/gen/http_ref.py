"""The HTTP API page and ``openapi.json``, from the FastAPI app ``webdojo serve`` runs.

The app is built as the server builds it (``create_app``) over a pool that is never started,
so the spec is the served one without a browser.
"""

from __future__ import annotations

import json
from typing import Any

from json_types import json_type
from md_text import cell, prose

from webdojo.server.api.app import create_app
from webdojo.server.pool.inline import InlinePool
from webdojo.tasks.loader import load_spec


def spec() -> dict[str, Any]:
    return create_app(InlinePool(), load_spec("builtin")).openapi()


def _link(name: str) -> str:
    return f"schema-{name}".lower()


def _content_schema(body: dict[str, Any]) -> str:
    schema = body.get("content", {}).get("application/json", {}).get("schema")
    return json_type(schema, _link) if schema else "-"


def _operation(method: str, path: str, op: dict[str, Any]) -> list[str]:
    out = [f"### `{method.upper()} {path}`", "", prose((op.get("description") or "").strip()), ""]
    params = [p for p in op.get("parameters", []) if p["in"] != "header"]
    if params:
        out += ["Path parameters: " + ", ".join(f"`{p['name']}`" for p in params) + ".", ""]
    if "requestBody" in op:
        out += [f"Request body (JSON): {_content_schema(op['requestBody'])}.", ""]
    out += ["| status | meaning | body |", "|---|---|---|"]
    for status, response in op.get("responses", {}).items():
        meaning = cell(response["description"])
        out.append(f"| {status} | {meaning} | {_content_schema(response)} |")
    return [*out, ""]


def _schema(name: str, schema: dict[str, Any]) -> list[str]:
    out = [f"### {name} {{#{_link(name)}}}", ""]
    if schema.get("description"):
        out += [prose(schema["description"].strip()), ""]
    if "enum" in schema:
        return [*out, "One of: " + ", ".join(f"`{v}`" for v in schema["enum"]) + ".", ""]
    required = set(schema.get("required", []))
    out += ["| field | type | required | what |", "|---|---|---|---|"]
    for field, prop in schema.get("properties", {}).items():
        what = cell(prop.get("description") or "")
        yes = "yes" if field in required else ""
        out.append(f"| `{field}` | {json_type(prop, _link)} | {yes} | {what} |")
    return [*out, ""]


def page(api: dict[str, Any]) -> str:
    out = [
        "# HTTP API",
        "",
        f"The routes of `webdojo serve` ({api['info']['title']}, version",
        f"{api['info']['version']}), generated from its OpenAPI spec when the site is built.",
        "A running server publishes the same spec at `/openapi.json`; this build's copy is",
        "[openapi.json](openapi.json). Error bodies are always JSON (`ErrorBody`); the codes",
        "are listed in [Error codes](errors.md). Observations come as msgpack when the",
        "request's `Accept` header asks for `application/msgpack` (what `HttpEnv` does).",
        "",
        "## Routes",
        "",
    ]
    for path, ops in api["paths"].items():
        for method, op in ops.items():
            out += _operation(method, path, op)
    out += ["## Schemas", ""]
    for name, schema in sorted(api["components"]["schemas"].items()):
        out += _schema(name, schema)
    return "\n".join(out)


def spec_json(api: dict[str, Any]) -> str:
    return json.dumps(api, indent=2) + "\n"
