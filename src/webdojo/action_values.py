"""What some action arguments must be, beyond their types: key names (``press``) and URLs
(``goto``, ``new_tab``). ``webdojo.actions`` validates with these two readers.

* ``normalize_keys``: the key names Playwright accepts, and the aliases models use for them
  (``ctrl``, ``cmd``, ``esc``, ``pgdn``...);
* ``check_url``: absolute http(s) URLs and ``about:blank``; a bare host gets ``https://``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from webdojo.errors import BadKey, BadUrl

MAX_URL_CHARS = 2_048

# --- keys ---------------------------------------------------------------------------------

_NAMED_KEYS = {
    "Backspace",
    "Tab",
    "Enter",
    "Shift",
    "Control",
    "Alt",
    "Meta",
    "Escape",
    "Space",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "PageUp",
    "PageDown",
    "Home",
    "End",
    "Delete",
    "Insert",
    "CapsLock",
    "ContextMenu",
    "ControlOrMeta",
    *(f"F{i}" for i in range(1, 13)),
}
_KEY_ALIASES = {
    "ctrl": "Control",
    "control": "Control",
    "cmd": "Meta",
    "command": "Meta",
    "meta": "Meta",
    "win": "Meta",
    "super": "Meta",
    "alt": "Alt",
    "option": "Alt",
    "shift": "Shift",
    "esc": "Escape",
    "escape": "Escape",
    "return": "Enter",
    "enter": "Enter",
    "del": "Delete",
    "delete": "Delete",
    "backspace": "Backspace",
    "tab": "Tab",
    "space": "Space",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "pgup": "PageUp",
    "pgdn": "PageDown",
    "home": "Home",
    "end": "End",
    "insert": "Insert",
}
_KEY_BY_LOWER = {k.lower(): k for k in _NAMED_KEYS} | _KEY_ALIASES


def normalize_keys(keys: str) -> str:
    """``"ctrl+A"`` -> ``"Control+a"``. Raises ``BadKey`` for anything Playwright would reject."""
    stripped = keys.strip()
    if not stripped:
        raise BadKey("no key given")
    parts = ["+"] if stripped == "+" else [p.strip() for p in stripped.split("+")]
    out = []
    for part in parts:
        if len(part) == 1 and part.isprintable():
            out.append(part.lower() if len(parts) > 1 else part)
        elif part.lower() in _KEY_BY_LOWER:
            out.append(_KEY_BY_LOWER[part.lower()])
        else:
            raise BadKey(f"unknown key {part!r} in {keys!r}; use names like Enter, Control+a")
    return "+".join(out)


# --- URLs ---------------------------------------------------------------------------------

_ALLOWED_SCHEMES = {"http", "https"}
_HOST_RE = re.compile(r"^[A-Za-z0-9.\-\[\]:]+$")


def check_url(url: str) -> str:
    """Accept absolute http(s) URLs and ``about:blank``; add ``https://`` to a bare host."""
    value = url.strip()
    if len(value) > MAX_URL_CHARS:
        raise BadUrl(f"URL is {len(value)} characters; the limit is {MAX_URL_CHARS}")
    if value == "about:blank":
        return value
    if "://" not in value and re.match(r"^[\w.-]+\.[a-z]{2,}(/|$)", value, re.I):
        value = "https://" + value
    parts = urlsplit(value)
    if parts.scheme.lower() not in _ALLOWED_SCHEMES:
        raise BadUrl(f"URL {url!r} must start with http:// or https://")
    if not parts.hostname or not _HOST_RE.match(parts.netloc.rsplit("@", 1)[-1]):
        raise BadUrl(f"URL {url!r} has no valid host")
    if any(ch.isspace() for ch in value):
        raise BadUrl(f"URL {url!r} contains whitespace")
    return value
