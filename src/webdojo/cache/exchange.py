"""One recorded HTTP exchange: the request as the browser sent it, the response it got.

These are the units every part of the cache passes around: the recorder and the importers
make them, the archive stores them in WARC, the index keys their requests, replay serves
their responses. Headers keep their order and repeats (``Set-Cookie``), as sent on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

Headers = tuple[tuple[str, str], ...]


def header(headers: Headers, name: str) -> str | None:
    """The first value of a header, by case-insensitive name."""
    lower = name.lower()
    return next((v for k, v in headers if k.lower() == lower), None)


@dataclass(frozen=True)
class CapturedRequest:
    method: str  # upper case
    url: str  # absolute, with the fragment removed
    headers: Headers = ()
    body: bytes = b""

    @property
    def host(self) -> str:
        return (urlsplit(self.url).hostname or "").lower()


@dataclass(frozen=True)
class CapturedResponse:
    status: int
    headers: Headers = ()
    body: bytes = b""  # decoded: no Content-Encoding applies to it any more
    reason: str = ""


@dataclass(frozen=True)
class Exchange:
    request: CapturedRequest
    response: CapturedResponse
    visit: int = 0  # which recording of the same session (``--visits N``), from 0
    seq: int = 0  # order of the request within its visit
    started: float = 0.0  # when the request was sent, Unix seconds
    notes: tuple[str, ...] = field(default=())  # what an importer had to repair, if anything
