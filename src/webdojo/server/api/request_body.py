"""How the server reads request bodies: JSON, parsed and validated in one pass, strictly.

FastAPI would parse a body with ``json.loads`` and validate the Python objects in pydantic's lax
mode: ``"marks": 0`` passed as a boolean, ``"step_index": "0"`` as an integer, and a body that
is not UTF-8, or nested a thousand levels deep, answered an undocumented 400 with FastAPI's
message. So the routes take the raw request and call ``read``: pydantic's own JSON parser reads
and validates the bytes at once, in strict mode (JSON types must be what the schema says: no
``0`` for ``false``, no ``"3"`` for ``3``; enum values still come as strings; ``3.0`` is the
integer 3, as JSON Schema has it), with a bounded nesting depth and no lone surrogates (which
could not be written back as UTF-8 in a response). Every failure is a
``RequestValidationError``, which ``http_errors`` answers as a 422 with a stable code like any
other refused request.

FastAPI knows nothing of these bodies, so ``doc`` describes one for a route's OpenAPI entry and
``publish`` adds the models' schemas to the spec's components.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from email.message import Message
from typing import Any, TypeVar

import pydantic_core
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema
from pydantic_core import ErrorDetails

M = TypeVar("M", bound=BaseModel)
REF = "#/components/schemas/{model}"


async def read(request: Request, cls: type[M], *, required: bool = True) -> M | None:
    """The body as a ``cls``; None for an empty optional body."""
    body = await request.body()
    return parse(cls, body, request.headers.get("content-type"), required=required)


def parse(cls: type[M], body: bytes, content_type: str | None, *, required: bool) -> M | None:
    """``read`` without the request: a ``cls``, None, or a ``RequestValidationError``."""
    if not body:
        if required:
            raise _invalid("missing", "Field required")
        return None
    if not is_json(content_type):
        raise _invalid("content_type", "send the body as JSON (Content-Type: application/json)")
    try:
        return cls.model_validate_json(body, strict=True)
    except ValidationError as exc:
        if not any(_integral_float(err) for err in exc.errors()):
            raise _refused(exc) from exc
    # JSON Schema counts 2.0 as an integer; pydantic's strict mode does not: read such numbers
    # as integers and validate again (rare: JSON encoders write 2 for an integer)
    data = _integral_floats_as_ints(pydantic_core.from_json(body))
    try:
        return cls.model_validate_json(json.dumps(data), strict=True)
    except ValidationError as exc:
        raise _refused(exc) from exc


def _refused(exc: ValidationError) -> RequestValidationError:
    errors = exc.errors(include_url=False, include_input=False)
    return RequestValidationError([{**err, "loc": ("body", *err["loc"])} for err in errors])


def _integral_float(err: ErrorDetails) -> bool:
    value = err.get("input")
    return err["type"] == "int_type" and isinstance(value, float) and value.is_integer()


def _integral_floats_as_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _integral_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral_floats_as_ints(v) for v in value]
    return value


def is_json(content_type: str | None) -> bool:
    """``application/json`` or ``application/<anything>+json``, parameters aside."""
    if not content_type:
        return False
    if content_type == "application/json":  # what HttpEnv sends: no header parsing
        return True
    message = Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


def _invalid(kind: str, msg: str) -> RequestValidationError:
    return RequestValidationError([{"type": kind, "loc": ("body",), "msg": msg}])


def doc(cls: type[BaseModel], *, required: bool = True) -> dict[str, Any]:
    """A route's ``openapi_extra``: its JSON body is a ``cls`` (published by ``publish``)."""
    schema = {"$ref": REF.format(model=cls.__name__)}
    return {
        "requestBody": {"required": required, "content": {"application/json": {"schema": schema}}}
    }


def publish(app: FastAPI, models: Iterable[type[BaseModel]]) -> None:
    """Add the request models (and the models they use) to ``app``'s OpenAPI components.
    A name FastAPI published too (an action: requests take one, ``StepInfo`` reports one)
    gets the request's schema: FastAPI's, from the responses, leaves out null defaults.

    FastAPI also documents a 422 ``HTTPValidationError`` for every route with a parameter;
    webdojo never answers one (its 422s are ``ErrorBody``, declared where a route can give
    them), so those entries go. And the tag of a tagged union (an action's ``type``) is
    required in the spec, as it is by the server, even where the model has a default for it."""
    refs, defs = models_json_schema([(m, "validation") for m in models], ref_template=REF)
    for (model, _), ref in refs.items():
        assert ref["$ref"] == REF.format(model=model.__name__), ref  # what ``doc`` points at
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = build()  # FastAPI's, cached by FastAPI in app.openapi_schema
            schemas = spec.setdefault("components", {}).setdefault("schemas", {})
            schemas.update(defs.get("$defs", {}))
            _drop_fastapi_422(spec)
            _require_tags(schemas)
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]


def _drop_fastapi_422(spec: dict[str, Any]) -> None:
    fastapi_422 = {"$ref": REF.format(model="HTTPValidationError")}
    for operations in spec.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            content = responses.get("422", {}).get("content", {})
            if content.get("application/json", {}).get("schema") == fastapi_422:
                del responses["422"]
    schemas = spec.get("components", {}).get("schemas", {})
    if fastapi_422 not in [{"$ref": r["$ref"]} for r in _refs(spec.get("paths", {}))]:
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)


def _refs(node: Any, key: str = "$ref") -> list[Any]:
    """Every object under ``node`` that has ``key`` (by default: every reference)."""
    if isinstance(node, dict):
        found = [node] if key in node else []
        return found + [r for value in node.values() for r in _refs(value, key)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value, key)]
    return []


def _require_tags(schemas: dict[str, Any]) -> None:
    """Each member of a discriminated union requires the discriminator property."""
    for node in _refs(schemas, key="discriminator"):
        tag = node["discriminator"]["propertyName"]
        for ref in node["discriminator"].get("mapping", {}).values():
            member = schemas[ref.removeprefix(REF.format(model=""))]
            if tag not in member.setdefault("required", []):
                member["required"].append(tag)
