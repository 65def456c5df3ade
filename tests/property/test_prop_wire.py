"""Properties of the wire protocol (``wire/protocol.py``, ``wire/transport.py``,
``request_body.py``).

* every response model survives JSON and msgpack alike, and both give the same model;
* every request a client builds (``HttpEnv`` sends ``model_dump_json(exclude_none=True)``) is
  read back to itself by the server's strict body reader;
* arbitrary bytes given to either reader raise its typed error, never anything else;
* an integer of any size in a free-form value reads back the same on both transports.
"""

from __future__ import annotations

import math
from typing import Any

import msgpack
from _prop_strategies import REQUESTS, RESPONSES, json_values
from fastapi.exceptions import RequestValidationError
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from webdojo.errors import InternalError
from webdojo.server.api import request_body
from webdojo.wire.protocol import StepResponse
from webdojo.wire.transport import JSON, MSGPACK, decode, encode

MODELS = st.sampled_from(sorted(RESPONSES, key=lambda cls: cls.__name__))
REQUEST_MODELS = st.sampled_from(sorted(REQUESTS, key=lambda cls: cls.__name__))


@given(st.data())
def test_responses_round_trip_through_json_and_msgpack(data: st.DataObject) -> None:
    cls = data.draw(MODELS)
    model = data.draw(RESPONSES[cls])
    as_json = decode(cls, encode(model, JSON), JSON)
    as_msgpack = decode(cls, encode(model, MSGPACK), f"{MSGPACK}; charset=binary")
    assert as_json == model
    assert as_msgpack == model


@given(st.data())
def test_what_a_client_sends_the_server_reads_back(data: st.DataObject) -> None:
    cls = data.draw(REQUEST_MODELS)
    request = data.draw(REQUESTS[cls])
    body = request.model_dump_json(exclude_none=True).encode()
    assert request_body.parse(cls, body, "application/json", required=True) == request
    full = request.model_dump_json().encode()  # with its nulls, where the schema allows them
    try:
        read = request_body.parse(cls, full, "application/json", required=True)
    except RequestValidationError as exc:  # only the fields of a oneOf refuse null
        assert {err["msg"] for err in exc.errors()} <= {
            "Value error, leave the field out instead of sending null"
        }
    else:
        assert read == request


def _garbage() -> st.SearchStrategy[bytes]:
    packed = json_values.map(lambda v: msgpack.packb({"observation": v, "step_index": v}))
    return st.one_of(
        st.binary(max_size=200),
        packed,
        packed.map(lambda b: b[: len(b) // 2]),  # cut short
        st.builds(lambda v: msgpack.packb(v), json_values),
        st.sampled_from([b"\x91" * 5000, b"[" * 5000, b'{"a": 1e999}', b"\xc1", b"\xd4\x01\x00"]),
    )


@given(_garbage(), st.sampled_from([JSON, MSGPACK, None]), MODELS)
def test_the_client_reader_raises_internal_error_on_garbage(
    raw: bytes, media: str | None, cls: type[BaseModel]
) -> None:
    try:
        decode(cls, raw, media)
    except InternalError as exc:
        assert exc.code == "internal_error" and cls.__name__ in exc.message


@given(_garbage(), st.sampled_from(sorted(REQUESTS, key=lambda cls: cls.__name__)))
def test_the_server_reader_raises_a_validation_error_on_garbage(
    raw: bytes, cls: type[BaseModel]
) -> None:
    for content_type in ("application/json", "application/msgpack", None):
        try:
            request_body.parse(cls, raw, content_type, required=False)
        except RequestValidationError as exc:
            assert all(err["loc"][0] == "body" for err in exc.errors())


@given(st.integers() | st.integers(min_value=2**63 - 2, max_value=2**64 + 1).map(lambda i: -i))
def test_a_page_integer_of_any_size_reads_the_same_on_both_transports(value: int) -> None:
    """msgpack stops at 64 bits: a larger integer travels as an extension type. The one
    difference left: JSON writes NaN and infinities as null, msgpack keeps them."""
    response = _storage_response({"n": value, "big": 7**400, "nan": math.nan})
    packed = decode(StepResponse, encode(response, MSGPACK), MSGPACK).info.final_state
    sent = decode(StepResponse, encode(response, JSON), JSON).info.final_state
    assert packed is not None and sent is not None
    assert packed.storage["n"] == sent.storage["n"] == value
    assert packed.storage["big"] == sent.storage["big"] == 7**400
    assert math.isnan(packed.storage["nan"]) and sent.storage["nan"] is None


def _storage_response(storage: dict[str, Any]) -> StepResponse:
    """A final step whose page's localStorage holds ``storage`` (free-form page JSON)."""
    return StepResponse.model_validate(
        {
            "step_index": 0,
            "observation": {"url": "u", "title": "t", "tabs": [], "viewport_width": 100,
                            "viewport_height": 100},
            "done": True,
            "info": {"final_state": {"url": "u", "storage": storage}},
        }
    )  # fmt: skip
