"""Which hosts the agent's browser may connect to: pure rules, no browser and no network.

``NetworkPolicy.check(host, port, addresses)`` decides one connection. It runs twice for a
host name: once on the name alone (``addresses=None``: deny and allow lists, names such as
``localhost`` or ``metadata.google.internal``, and IP literals in any spelling), and once more
on every address the name resolved to. A single private address among them blocks the whole
name, and the proxy (``netguard``) then connects to one of the addresses it checked, so a DNS
answer that changes between the check and the connection cannot reach anything else.

Host spellings follow the WHATWG URL parser, which Chromium's canonicalizer agrees with:
``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1`` and ``0`` are all IPv4 addresses.
The environment's own local sites live on loopback, so they are let through per origin (the
exact host and port), never per address range: the env adds its servers' origins to each
session's ``allow_origins`` (``with_origins``), as the operator's ``--allow-host`` adds theirs.
A start URL gets no exception of its own: it is checked as an agent's ``goto`` is.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

from webdojo.errors import ConfigError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# URL schemes a navigation must never reach: local files, the browser's own pages, source
# views, and documents made up by the page itself.
DEFAULT_BLOCKED_SCHEMES = (
    "file",
    "filesystem",
    "chrome",
    "chrome-extension",
    "chrome-untrusted",
    "chrome-search",
    "devtools",
    "view-source",
    "javascript",
    "data",
)
# Names that mean this machine or a cloud metadata service whatever DNS answers for them.
DEFAULT_BLOCKED_NAMES = (
    "localhost",
    "*.localhost",
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "*.internal",
)
# NAT64 prefixes embed an IPv4 address in their last 32 bits (RFC 6052, RFC 8215).
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
_IPV4_COMPAT = ipaddress.IPv6Network("::/96")  # deprecated ::a.b.c.d


@dataclass(frozen=True)
class Verdict:
    """The answer for one connection."""

    allowed: bool
    rule: str  # which rule decided: "allowed origin", "private address", "deny list"...
    detail: str = ""  # what matched, for the error message (an address, a pattern)

    def describe(self) -> str:
        return f"{self.rule} ({self.detail})" if self.detail else self.rule


ALLOW = Verdict(True, "allowed")


@dataclass(frozen=True)
class NetworkPolicy:
    """The rules of one session's network; part of ``SessionOptions.context_key``."""

    enabled: bool = True  # False lets everything through (trusted sites only)
    blocked_schemes: tuple[str, ...] = DEFAULT_BLOCKED_SCHEMES  # lowercase, no colon
    block_private: bool = True  # private, loopback, link-local, CGNAT, multicast, metadata...
    blocked_names: tuple[str, ...] = DEFAULT_BLOCKED_NAMES  # host globs blocked before DNS
    allow_origins: tuple[str, ...] = ()  # "http://127.0.0.1:8000": reachable even if private
    allow_hosts: tuple[str, ...] = ()  # globs ("*.example.com"); non-empty = only these
    deny_hosts: tuple[str, ...] = ()  # globs never reachable; deny wins over every allow

    def __post_init__(self) -> None:
        for origin in self.allow_origins:
            origin_key(origin)  # raises ConfigError early for a malformed origin
        for pattern in (*self.allow_hosts, *self.deny_hosts):
            if not pattern.strip() or any(c.isspace() for c in pattern):
                raise ConfigError(f"host pattern {pattern!r} is empty or has spaces")

    def with_origins(self, *origins: str) -> NetworkPolicy:
        """The same policy with more allowed origins (duplicates dropped)."""
        merged = tuple(dict.fromkeys((*self.allow_origins, *origins)))
        return replace(self, allow_origins=merged)

    def scheme_allowed(self, url: str) -> bool:
        scheme = url.partition(":")[0].strip().lower() if ":" in url else ""
        return not self.enabled or scheme not in self.blocked_schemes

    def check(self, host: str, port: int, addresses: Iterable[str] | None = None) -> Verdict:
        """Decide a connection to ``host:port``. ``addresses`` are what the host resolved to
        (None: decide on the name alone)."""
        if not self.enabled:
            return ALLOW
        name = canonical_host(host)
        if _matches(name, self.deny_hosts):
            return Verdict(False, "deny list", name)
        if (name, port) in self._origin_keys():
            return Verdict(True, "allowed origin")
        if self.allow_hosts and not _matches(name, self.allow_hosts):
            return Verdict(False, "not on the allow list", name)
        if not self.block_private:
            return ALLOW
        literal = parse_ip(name)
        if literal is None and _matches(name, self.blocked_names):
            return Verdict(False, "local or metadata name", name)
        found = [literal] if literal is not None else [parse_ip(a) for a in addresses or ()]
        for address in found:
            if address is None:
                return Verdict(False, "unparsable address")
            if is_private(address):
                return Verdict(False, "private address", str(address))
        return ALLOW

    def _origin_keys(self) -> frozenset[tuple[str, int]]:
        return frozenset(origin_key(o) for o in self.allow_origins)


def url_target(url: str) -> tuple[str, int] | None:
    """The (host, port) an http(s) URL connects to, as the browser asked for it; None when it
    names no host to check (``about:blank``) or a port that Chromium refuses on its own."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def origin_key(origin: str) -> tuple[str, int]:
    """``"http://127.0.0.1:8000/any"`` -> ``("127.0.0.1", 8000)`` (default ports filled in)."""
    parts = urlsplit(origin.strip())
    try:
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"origin {origin!r} has a bad port") from exc
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise ConfigError(f"origin {origin!r} must look like http://host:port")
    default = 443 if parts.scheme in ("https", "wss") else 80
    return canonical_host(parts.hostname), port or default


def canonical_host(host: str) -> str:
    """Lowercase, no trailing dot, brackets off IPv6, any IPv4 spelling as dotted quad."""
    name = host.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name.endswith(".") and not name.endswith(".."):
        name = name[:-1]
    address = parse_ip(name)
    return str(address) if address is not None else name


def parse_ip(host: str) -> IPAddress | None:
    """An IP address in any spelling a browser accepts, else None (a host name)."""
    name = host.strip().lower().strip("[]")
    if ":" in name:
        try:
            return ipaddress.IPv6Address(name.split("%", 1)[0])
        except ValueError:
            return None
    return parse_ipv4(name)


def parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """WHATWG's IPv4 parser: 1 to 4 dot-separated parts, each decimal, 0x-hex or 0-octal;
    the last part fills the remaining bytes. None when the host is not a number."""
    parts = host.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts.pop()  # one trailing dot is allowed
    if not parts or len(parts) > 4:
        return None
    numbers = [_ipv4_number(p) for p in parts]
    if any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    if any(v > 255 for v in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    total = values[-1]
    for index, value in enumerate(values[:-1]):
        total += value << (8 * (3 - index))
    return ipaddress.IPv4Address(total)


def _ipv4_number(part: str) -> int | None:
    if not part:
        return None
    base, digits = 10, part
    if part[:2] in ("0x", "0X"):
        base, digits = 16, part[2:]
    elif len(part) > 1 and part[0] == "0":
        base, digits = 8, part[1:]
    if digits == "":
        return 0  # "0x" alone is zero
    try:
        return int(digits, base) if digits.isalnum() and digits.isascii() else None
    except ValueError:
        return None


def is_private(address: IPAddress) -> bool:
    """Anything but a public unicast address, including IPv4 hidden inside IPv6."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            return is_private(inner)
    return not address.is_global or address.is_multicast or address.is_unspecified


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if any(address in net for net in (*_NAT64, _IPV4_COMPAT)):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _matches(name: str, patterns: Iterable[str]) -> bool:
    """Glob match; ``*.example.com`` also matches ``example.com`` itself."""
    for pattern in patterns:
        pattern = pattern.strip().lower().rstrip(".")
        if fnmatchcase(name, pattern) or (pattern.startswith("*.") and name == pattern[2:]):
            return True
    return False


def policy_from_flags(
    allow: tuple[str, ...] = (), deny: tuple[str, ...] = (), mode: str = "on"
) -> NetworkPolicy:
    """The policy of the ``--allow-host``/``--deny-host``/``--network-policy`` flags. An
    allowed value with ``://`` is an origin (reachable even on loopback), else a host glob."""
    if mode not in ("on", "off"):
        raise ConfigError(f"--network-policy must be on or off, not {mode!r}")
    origins = tuple(a for a in allow if "://" in a)
    hosts = tuple(a for a in allow if "://" not in a)
    return NetworkPolicy(
        enabled=mode == "on", allow_origins=origins, allow_hosts=hosts, deny_hosts=deny
    )
