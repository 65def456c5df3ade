"""Level 4: endpoints a page works without (beacons, analytics, ads, error reporting).

A replay that misses one of these answers with an empty response of the kind the page expects
instead of failing: a beacon gets 204, a tracking script an empty script, a pixel a 1x1 GIF.
Anything else that misses is a real miss.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import urlsplit

from webdojo.cache.exchange import CapturedRequest, CapturedResponse

# Hosts whose only job is measuring or advertising (matched on the registrable suffix).
_HOSTS = (
    "google-analytics.com",
    "googletagmanager.com",
    "doubleclick.net",
    "googlesyndication.com",
    "googleadservices.com",
    "facebook.net",
    "connect.facebook.com",
    "segment.io",
    "segment.com",
    "hotjar.com",
    "mixpanel.com",
    "amplitude.com",
    "scorecardresearch.com",
    "sentry.io",
    "newrelic.com",
    "nr-data.net",
    "adsrvr.org",
    "criteo.com",
    "quantserve.com",
    "bat.bing.com",
    "clarity.ms",
)
# Path segments that say "measurement" on any host (first-party beacons).
_PATHS = re.compile(r"(?i)/(beacons?|collect|analytics|track(ing)?|pixel|telemetry|rum)(/|\.|$)")
_GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


def is_nonessential(request: CapturedRequest, resource_type: str = "") -> bool:
    """Known measuring hosts, first-party measuring paths, and whatever the browser itself
    sends as a beacon (``navigator.sendBeacon``, ``<a ping>``: resource type "ping")."""
    if resource_type == "ping":
        return True
    parts = urlsplit(request.url)
    host = (parts.hostname or "").lower()
    if any(host == h or host.endswith("." + h) for h in _HOSTS):
        return True
    return bool(_PATHS.search(parts.path or "/"))


def synthesize(request: CapturedRequest, resource_type: str = "") -> CapturedResponse | None:
    """An empty stand-in response for a non-essential request; None for any other."""
    if not is_nonessential(request, resource_type):
        return None
    path = urlsplit(request.url).path.lower()
    if request.method not in ("GET", "HEAD"):
        return _response(204, "", b"")
    if path.endswith(".js"):
        return _response(200, "application/javascript", b"/* webdojo: stand-in */")
    if path.endswith((".gif", ".png", ".jpg")) or "pixel" in path:
        return _response(200, "image/gif", _GIF)
    return _response(204, "", b"")


def _response(status: int, ctype: str, body: bytes) -> CapturedResponse:
    headers: tuple[tuple[str, str], ...] = (("Content-Type", ctype),) if ctype else ()
    headers += (("X-Webdojo-Synthesized", "L4"), ("Access-Control-Allow-Origin", "*"))
    return CapturedResponse(status, headers, body, "No Content" if status == 204 else "OK")
