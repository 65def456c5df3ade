"""The network policy's rules and the proxy's decisions, without a browser.

Nothing here sends traffic anywhere but loopback: names resolve through a fake resolver, and
the one proxy test connects to a server on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import ipaddress

import pytest

from webdojo.browser.netguard import NetGuard, refuse_url
from webdojo.browser.netpolicy import (
    NetworkPolicy,
    canonical_host,
    is_private,
    origin_key,
    parse_ipv4,
    policy_from_flags,
)
from webdojo.browser.options import SessionOptions
from webdojo.errors import ConfigError, NetworkBlocked

POLICY = NetworkPolicy()


@pytest.mark.parametrize(
    ("spelling", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0X7F000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0177.0.0.01", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7f.0.0.0x1", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("0x", "0.0.0.0"),
        ("127.0.0.1.", "127.0.0.1"),
        ("169.254.169.254", "169.254.169.254"),
        ("2852039166", "169.254.169.254"),
        ("0xa9fea9fe", "169.254.169.254"),
        ("0251.0376.0251.0376", "169.254.169.254"),
        ("10.1", "10.0.0.1"),
        ("192.168.257", "192.168.1.1"),
    ],
)
def test_ipv4_spellings_parse_like_a_browser(spelling: str, address: str) -> None:
    assert str(parse_ipv4(spelling)) == address
    assert canonical_host(spelling) == address


@pytest.mark.parametrize(
    "name", ["example.com", "1.2.3.4.5", "256.1.1.1", "08.0.0.1", "0x1g.0.0.1", "1..1", ""]
)
def test_non_numbers_are_host_names(name: str) -> None:
    assert parse_ipv4(name) is None


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1",
        "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1",
        "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
        "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1", "ff02::1",
    ],
)  # fmt: skip
def test_private_addresses(address: str) -> None:
    assert is_private(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "1.1.1.1"])
def test_public_addresses(address: str) -> None:
    assert not is_private(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0", "localhost",
        "LOCALHOST", "localhost.", "api.localhost", "[::1]", "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]", "169.254.169.254", "metadata.google.internal", "metadata",
        "[fd00::1]", "100.100.100.200",
    ],
)  # fmt: skip
def test_local_hosts_are_blocked_on_their_name(host: str) -> None:
    verdict = POLICY.check(host, 80)
    assert not verdict.allowed and verdict.rule in ("private address", "local or metadata name")


def test_names_resolving_to_private_addresses_are_blocked() -> None:
    assert POLICY.check("evil.test", 80).allowed  # the name alone says nothing
    verdict = POLICY.check("evil.test", 80, ["93.184.216.34", "10.0.0.7"])
    assert not verdict.allowed and verdict.detail == "10.0.0.7"  # one bad address is enough
    assert not POLICY.check("evil.test", 80, ["::ffff:169.254.169.254"]).allowed
    assert POLICY.check("good.test", 443, ["93.184.216.34", "2606:4700::1111"]).allowed


def test_allowed_origins_are_exact_host_and_port() -> None:
    policy = NetworkPolicy(allow_origins=("http://127.0.0.1:8000",))
    assert policy.check("127.0.0.1", 8000).allowed
    assert policy.check("2130706433", 8000).allowed  # the same host, spelled otherwise
    assert not policy.check("127.0.0.1", 8001).allowed  # another port is another origin
    assert not policy.check("127.0.0.2", 8000).allowed  # the range is not opened
    assert not policy.check("localhost", 8000).allowed  # another host name
    assert origin_key("https://[::1]/x") == ("::1", 443)


def test_allow_and_deny_lists() -> None:
    policy = NetworkPolicy(allow_hosts=("*.example.com",), deny_hosts=("bad.example.com",))
    assert policy.check("www.example.com", 443, ["93.184.216.34"]).allowed
    assert policy.check("example.com", 443, ["93.184.216.34"]).allowed
    assert policy.check("bad.example.com", 443).rule == "deny list"
    assert policy.check("BAD.example.com.", 443).rule == "deny list"
    assert policy.check("other.org", 443).rule == "not on the allow list"
    assert not policy.check("www.example.com", 443, ["10.0.0.1"]).allowed  # still private
    denied = NetworkPolicy(deny_hosts=("127.0.0.1",), allow_origins=("http://127.0.0.1:80",))
    assert denied.check("127.0.0.1", 80).rule == "deny list"  # deny wins


def test_policy_off_and_private_off() -> None:
    assert NetworkPolicy(enabled=False).check("127.0.0.1", 80).allowed
    assert NetworkPolicy(block_private=False).check("10.0.0.1", 80).allowed
    assert NetworkPolicy(enabled=False).scheme_allowed("file:///etc/passwd")


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd", "FILE:///etc/passwd", "chrome://settings", "view-source:http://a",
        "javascript:alert(1)", "data:text/html,hi", "chrome-extension://x/y", "devtools://x",
    ],
)  # fmt: skip
def test_blocked_schemes(url: str) -> None:
    assert not POLICY.scheme_allowed(url)
    with pytest.raises(NetworkBlocked) as info:
        NetGuard(POLICY).precheck(url)
    assert info.value.code == "blocked_by_policy" and info.value.fault.value == "agent"


def test_web_schemes_are_allowed() -> None:
    assert POLICY.scheme_allowed("https://example.com/")
    assert POLICY.scheme_allowed("http://example.com/")


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(ConfigError):
        NetworkPolicy(allow_origins=("127.0.0.1:8000",))  # no scheme
    with pytest.raises(ConfigError):
        NetworkPolicy(deny_hosts=("a b",))


def test_the_policy_is_part_of_the_context_key() -> None:
    other = SessionOptions(network=NetworkPolicy(allow_hosts=("*.example.com",)))
    assert SessionOptions().context_key() != other.context_key()
    assert SessionOptions().context_key() == SessionOptions().context_key()


def test_allowed_origins_are_not_part_of_the_context_key() -> None:
    """A warm context takes its episode's allowed origins (the env's site server)."""
    own = SessionOptions().allowing("http://127.0.0.1:8000")
    assert own.network.allow_origins == ("http://127.0.0.1:8000",)
    assert own.context_key() == SessionOptions().context_key()


# A start URL in every spelling of a local or private address: refused as an agent's goto is.
START_SPELLINGS = [
    "http://127.0.0.1:8000/", "http://localhost:8000/", "http://2130706433:8000/",
    "http://0x7f000001:8000/", "http://0177.0.0.1:8000/", "http://127.1:8000/",
    "http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/", "http://192.168.1.1/",
]  # fmt: skip


@pytest.mark.parametrize("url", START_SPELLINGS)
def test_start_urls_get_no_exception(url: str) -> None:
    guard = NetGuard(POLICY)
    with pytest.raises(NetworkBlocked) as info:
        guard.precheck(url)
    assert info.value.code == "blocked_by_policy"
    assert guard.blocks[-1].verdict.rule in ("private address", "local or metadata name")
    with pytest.raises(NetworkBlocked):
        refuse_url(POLICY, url)  # the server's check at create, without a proxy


def test_only_the_allowed_origin_passes() -> None:
    policy = NetworkPolicy().with_origins("http://127.0.0.1:8000")
    NetGuard(policy).precheck("http://127.0.0.1:8000/index.html")
    refuse_url(policy, "http://2130706433:8000/")  # the same origin in another spelling
    refuse_url(policy, "about:blank")
    for url in ("http://127.0.0.1:8001/", "http://localhost:8000/", "http://127.0.0.2:8000/"):
        with pytest.raises(NetworkBlocked):
            refuse_url(policy, url)


async def _socks_connect(port: int, host: str, target_port: int) -> int:
    """A minimal SOCKS5 client: the proxy's reply code."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    name = host.encode()
    writer.write(b"\x05\x01\x00" + bytes([5, 1, 0, 3, len(name)]) + name)
    writer.write(target_port.to_bytes(2, "big"))
    await reader.readexactly(2)
    reply = await reader.readexactly(10)
    writer.close()
    return reply[1]


async def test_the_proxy_resolves_and_checks_every_address() -> None:
    """A name resolving to a private address is refused; the allowed origin is reached."""
    hits: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hits.append(await reader.read(100))
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]

    async def fake_resolver(host: str, _port: int) -> list[str]:
        return {"evil.test": ["93.184.216.34", "127.0.0.1"], "site.test": ["127.0.0.1"]}[host]

    policy = NetworkPolicy(allow_origins=(f"http://127.0.0.1:{port}",))
    guard = await NetGuard(policy, fake_resolver).start()
    proxy_port = int(guard.proxy["server"].rsplit(":", 1)[1])
    try:
        assert await _socks_connect(proxy_port, "evil.test", port) == 2
        assert await _socks_connect(proxy_port, "2130706433", port + 1) == 2
        assert await _socks_connect(proxy_port, "127.0.0.1", port) == 0
        await asyncio.sleep(0.05)
        assert len(hits) == 1 and guard.connections == 1
        assert [b.host for b in guard.blocks] == ["evil.test", "2130706433"]
    finally:
        await guard.aclose()
        server.close()


def test_cli_flags_make_a_policy() -> None:
    policy = policy_from_flags(("*.example.com", "http://127.0.0.1:9000"), ("ads.example.com",))
    assert policy.allow_hosts == ("*.example.com",)
    assert policy.allow_origins == ("http://127.0.0.1:9000",)
    assert policy.check("127.0.0.1", 9000).allowed
    assert policy.check("ads.example.com", 443).rule == "deny list"
    assert not policy_from_flags(mode="off").enabled
    with pytest.raises(ConfigError, match="on or off"):
        policy_from_flags(mode="maybe")
