"""``webdojo cache lookup``: how one request fares against an archive, for a person to read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webdojo.cache.archive import Archive
from webdojo.cache.exchange import CapturedRequest
from webdojo.cache.matcher import Candidate, Matcher
from webdojo.errors import ConfigError


def parse_header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise ConfigError(f"--header {text!r}: expected NAME: VALUE")
    return name.strip(), value.strip()


def lookup(
    path: Path,
    url: str,
    method: str = "GET",
    body: Path | None = None,
    headers: tuple[str, ...] = (),
    rule_files: tuple[Path, ...] = (),
) -> dict[str, Any]:
    """The level and recorded URL an incoming request matches (without advancing any replay
    sequence), and its nearest recorded candidates with the fields that differ."""
    try:
        data = body.read_bytes() if body else b""
    except OSError as exc:
        raise ConfigError(f"--body {body}: {exc.strerror}") from exc
    request = CapturedRequest(method.upper(), url, tuple(parse_header(h) for h in headers), data)
    with Archive.open(path, rule_files) as archive:
        matcher = Matcher(archive.index, archive.rules)
        match = matcher.match(request, advance=False)
        normal = match.request
        # a miss carries its nearest candidates already; a hit is shown its neighbours too
        nearest = match.candidates or (matcher.nearest(normal) if normal is not None else ())
    return {
        "method": request.method,
        "url": url,
        "level": match.level,
        "match": match.entry.url if match.entry else ("synthesized" if match.synthesized else None),
        "entry": match.entry.id if match.entry else None,
        "nearest": [_candidate(c) for c in nearest],
    }


def _candidate(c: Candidate) -> dict[str, Any]:
    differences = [list(d) for d in c.differences]
    return {"url": c.entry.url, "entry": c.entry.id, "score": c.score, "differences": differences}
