"""How responses travel: JSON (screenshots as base64) or msgpack (screenshots as raw bytes).

The server answers in the media type the request's ``Accept`` header prefers: msgpack for
``application/msgpack`` (or ``application/x-msgpack``), JSON otherwise, so curl and OpenAPI
users see plain JSON and need nothing else. Requests are always JSON (a few hundred bytes).
Errors are always JSON (see ``server/api/http_errors.py``).

Why ``HttpEnv`` asks for msgpack by default: the note below, with the figures of
``webdojo.bench.transport_bench``.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgpack
from pydantic import BaseModel
from starlette.responses import Response

from webdojo.errors import InternalError

JSON = "application/json"
MSGPACK = "application/msgpack"
_MSGPACK_TYPES = (MSGPACK, "application/x-msgpack")

M = TypeVar("M", bound=BaseModel)

# msgpack's integers stop at 64 bits; a larger one (a page's value in a verifier's info, say)
# travels as this extension type, its two's-complement bytes, so it reads back as the same int
# (JSON carries it as it is). NaN and infinities stay floats here; JSON writes them as null.
BIG_INT_EXT = 1

# Why msgpack is HttpEnv's default (``python -m webdojo.bench.transport_bench``, 2-core box,
# busy with other jobs; StepResponse of the six built-in sites' start pages at 1280x720):
#
#                 screenshot  body     server encode  client decode
#   JPEG q80 JSON    73.7 KB   98.9 KB   0.118 ms       0.045 ms
#   JPEG msgpack     73.7 KB   74.2 KB   0.008 ms       0.009 ms
#   PNG JSON        101.8 KB  136.3 KB   0.156 ms       0.060 ms
#   PNG msgpack     101.8 KB  102.2 KB   0.009 ms       0.010 ms
#
# base64 costs a third more bytes and ~0.15 ms of CPU per step; msgpack sends the image as it
# is. On loopback the end-to-end difference is lost in the noise (click + JPEG step through
# ``webdojo serve --workers 0``: p50 51.6 ms JSON vs 50.7 ms msgpack; the server's own share
# of a step, HTTP included, p50 4.4 vs 4.3 ms), because a step is browser work. Across a real
# network the bytes do count: 99 vs 74 KB is 7.9 vs 5.9 ms per step at 100 Mbit/s. msgpack is
# never worse, so HttpEnv asks for it; JSON stays the default for everyone else (curl, the
# OpenAPI docs, other languages), since it needs no library and shows in a terminal.


def negotiate(accept: str | None) -> str:
    """The media type to answer with. Any msgpack mention wins: clients that ask for it
    by name can read it; browsers and curl never send it."""
    if accept and any(t in accept for t in _MSGPACK_TYPES):
        return MSGPACK
    return JSON


def encode(model: BaseModel, media: str) -> bytes:
    if media == MSGPACK:
        # python mode keeps bytes as bytes (JSON mode would base64 them); enums are str
        return msgpack.packb(model.model_dump(mode="python"), default=_fallback)
    return model.model_dump_json().encode()


def respond(model: BaseModel, accept: str | None, status: int = 200) -> Response:
    media = negotiate(accept)
    return Response(encode(model, media), status_code=status, media_type=media)


def decode(cls: type[M], content: bytes, content_type: str | None) -> M:
    """Read a response body in whichever of the two media types it came. A body that is not
    a ``cls`` (a server bug, or something between client and server) is an InternalError."""
    try:
        if content_type and content_type.split(";")[0].strip() in _MSGPACK_TYPES:
            return cls.model_validate(msgpack.unpackb(content, ext_hook=_ext))
        return cls.model_validate_json(content)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:  # ValidationError is one
        raise InternalError(
            f"a {cls.__name__} response could not be read ({type(exc).__name__}: {str(exc)[:200]})"
        ) from exc


def _fallback(value: Any) -> Any:
    """Values msgpack has no type for: integers past 64 bits (``BIG_INT_EXT``); sets as lists;
    the rest (datetimes in free-form dicts) as text."""
    if isinstance(value, int):
        size = value.bit_length() // 8 + 1  # room for the sign bit
        return msgpack.ExtType(BIG_INT_EXT, value.to_bytes(size, "big", signed=True))
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _ext(code: int, data: bytes) -> Any:
    if code == BIG_INT_EXT:
        return int.from_bytes(data, "big", signed=True)
    return msgpack.ExtType(code, data)
