"""The network policy in a real Chromium: every way we know to reach a decoy server on
loopback (a port no session allows), in every spelling of its address, must fail.

Cases are address spellings x vectors (agent navigations, redirects, page navigations,
popups, iframes, subresources, fetch, beacons, WebSockets, workers, forms, and documents the
page makes up: data: and srcdoc frames, a javascript: link). One session, whose options
allow the site's origin (as an env allows its own site server), serves all of them. Each case
waits until the proxy has refused the decoy (or Chromium refused it itself). The last tests
check that the decoy saw 0 requests, and that with the policy off the same vectors do reach it
(so the cases would fail if the policy did nothing). The start URL gets no exception of its
own: the decoy as a session's start URL, in the same spellings, is refused too.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from urllib.parse import quote

import pytest
from browser_helpers import TEST_OPTIONS
from netpolicy_site import AGENT_VECTORS, MADE_UP, NAVIGATES, PAGES, TOP_LEVEL, Servers

from start_url_cases import SPELLINGS as START_SPELLINGS
from webdojo.actions import Action, Click, Goto, NewTab
from webdojo.browser import BrowserHost, BrowserSession
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.errors import ActionFailed, BadUrl, NetworkBlocked, WebdojoError

pytestmark = pytest.mark.browser

# How the decoy's address can be spelled; {p} is its port.
SPELLINGS = {
    "dotted": "127.0.0.1:{p}",
    "decimal": "2130706433:{p}",
    "hex": "0x7f000001:{p}",
    "octal": "0177.0.0.1:{p}",
    "short2": "127.1:{p}",
    "short3": "127.0.1:{p}",
    "hex_parts": "0x7f.0.0.0x1:{p}",
    "zero": "0:{p}",
    "all_zero": "0.0.0.0:{p}",
    "trailing_dot": "127.0.0.1.:{p}",
    "localhost": "localhost:{p}",
    "localhost_dot": "localhost.:{p}",
    "localhost_upper": "LOCALHOST:{p}",
    "sub_localhost": "decoy.localhost:{p}",
    "ipv6_loopback": "[::1]:{p}",
    "ipv6_mapped": "[::ffff:127.0.0.1]:{p}",
    "userinfo": "allowed.example@127.0.0.1:{p}",
}
VECTORS = (*AGENT_VECTORS, *PAGES)
# Cases that navigate cost a page load more (the reset): they take a sample of the spellings,
# as do the made-up documents (their fetch reaches the proxy as any fetch does).
NAV_SPELLINGS = ("dotted", "decimal", "hex", "octal", "short2", "zero", "localhost", "ipv6_mapped")
CASES = [
    (spelling, vector)
    for vector in VECTORS
    for spelling in SPELLINGS
    if vector in ("goto", "new_tab")
    or vector not in (*NAVIGATES, *MADE_UP)
    or spelling in NAV_SPELLINGS
]
WAIT_S = 3.0  # how long a case waits for the proxy's refusal before it checks the decoy
# Chromium delays a WebSocket more after each failed one to the same place: they wait longer
WEBSOCKET_WAIT_S = 10.0


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    both = Servers()
    yield both
    both.close()


@pytest.fixture(scope="module")
async def guarded(host: BrowserHost, servers: Servers) -> AsyncIterator[BrowserSession]:
    session = await host.new_session(TEST_OPTIONS.allowing(servers.site_url))
    await session.goto(servers.site_url + "/")  # a start URL at the allowed origin
    yield session
    await session.aclose()


async def _run(session: BrowserSession, site: str, vector: str, target: str) -> WebdojoError | None:
    """Perform one vector towards ``target``; the error the agent would see, if any."""
    actions: list[Action]
    if vector == "goto":
        actions = [Goto(url=target)]
    elif vector == "new_tab":
        actions = [NewTab(url=target)]
    elif vector.startswith("redirect_"):
        actions = [Goto(url=f"{site}/redirect/{vector[9:]}?to={quote(target)}")]
    else:
        actions = [Goto(url=f"{site}/v/{vector}?to={quote(target)}")]
        if vector.endswith("_click") or vector == "form_post":
            actions.append(Click(x=50, y=50))
    try:
        for action in actions:
            await session.execute(action)
    except WebdojoError as exc:
        return exc
    return None


async def _reset(session: BrowserSession, site: str, navigated: bool) -> None:
    """Back to one tab on the allowed site. A refused load that the page started on its own
    commits Chromium's error page late and can interrupt this goto: then it is tried again."""
    page = session.page
    for other in page.context.pages:
        if other is not page:
            await other.close()
    if not navigated and page.url.startswith(site + "/"):
        return  # still on the allowed site: the next case's goto leaves it anyway
    for attempt in range(3):
        try:
            await session.execute(Goto(url=site + "/"))
            return
        except ActionFailed:
            if attempt == 2:
                raise
            await asyncio.sleep(0.2)


async def _refused(session: BrowserSession, mark: int, port: int, wait_s: float) -> bool:
    assert session.netguard is not None
    for _ in range(int(wait_s / 0.05)):
        if any(b.port == port for b in session.netguard.blocks_since(mark)):
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.mark.parametrize(("spelling", "vector"), CASES)
async def test_the_decoy_is_never_reached(
    guarded: BrowserSession, servers: Servers, spelling: str, vector: str
) -> None:
    case = f"/case/{spelling}/{vector}"
    target = "http://" + SPELLINGS[spelling].format(p=servers.decoy_port) + case
    assert guarded.netguard is not None
    mark = guarded.netguard.mark()
    error = await _run(guarded, servers.site_url, vector, target)
    if vector in TOP_LEVEL:
        assert isinstance(error, NetworkBlocked), error
        assert str(servers.decoy_port) in error.message and "network policy" in error.message
    else:
        assert error is None or isinstance(error, NetworkBlocked), error
    if (spelling, vector) not in CHROMIUM_REFUSES:
        wait_s = WEBSOCKET_WAIT_S if vector == "websocket" else WAIT_S
        refused = await _refused(guarded, mark, servers.decoy_port, wait_s)
        assert refused, "the proxy saw no attempt"
    assert not [hit for hit in servers.decoy_hits.seen if case in hit[1]]
    if vector not in ("goto", "new_tab"):  # refused before anything happened: nothing to undo
        await _reset(guarded, servers.site_url, vector in NAVIGATES)


# Chromium itself refuses subresources with credentials in their URL: no connection at all.
CHROMIUM_REFUSES = {
    ("userinfo", v)
    for v in (
        "iframe", "fetch", "fetch_no_cors", "img", "script", "stylesheet", "beacon",
        "event_source", "worker", "prefetch",
    )
}  # fmt: skip


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "chrome://version",
        "view-source:{site}/",
        "data:text/html,<title>made-up</title>",
        "javascript:document.title='js-url'",
    ],
)
async def test_the_page_cannot_open_blocked_schemes(
    guarded: BrowserSession, servers: Servers, url: str
) -> None:
    """Navigations the page itself makes to a blocked scheme go nowhere."""
    url = url.format(site=servers.site_url)
    with pytest.raises(BadUrl):  # the agent cannot even ask for them
        Goto(url=url)
    await guarded.execute(Goto(url=servers.site_url + "/"))
    await guarded.page.evaluate("u => { location.href = u; }", url)
    await asyncio.sleep(0.3)
    assert guarded.page.url.startswith(servers.site_url)
    await _reset(guarded, servers.site_url, True)


async def test_control_the_allowed_site_is_reached(
    guarded: BrowserSession, servers: Servers
) -> None:
    before = len(servers.site_hits.seen)
    await guarded.execute(Goto(url=servers.site_url + "/control/allowed"))
    assert len(servers.site_hits.seen) > before
    assert guarded.page.url == servers.site_url + "/control/allowed"


async def test_deny_list_beats_an_allowed_origin(host: BrowserHost, servers: Servers) -> None:
    policy = NetworkPolicy(deny_hosts=("127.0.0.1",)).with_origins(servers.site_url)
    session = await host.new_session(TEST_OPTIONS.__class__(network=policy))
    try:
        with pytest.raises(NetworkBlocked, match="deny list"):
            await session.goto(servers.site_url + "/")
        with pytest.raises(NetworkBlocked, match="deny list"):
            await session.execute(Goto(url=servers.site_url + "/"))
    finally:
        await session.aclose()


@pytest.mark.parametrize("spelling", START_SPELLINGS)
async def test_a_start_url_gets_no_exception(
    host: BrowserHost, servers: Servers, spelling: str
) -> None:
    """The env allows its own site; a start URL elsewhere on loopback or a private network is
    refused as an agent's goto is, and the session goes on at its own site."""
    case = f"/start/{spelling}"
    target = "http://" + START_SPELLINGS[spelling].format(p=servers.decoy_port) + case
    async with await host.new_session(TEST_OPTIONS.allowing(servers.site_url)) as session:
        assert session.netguard is not None
        with pytest.raises(NetworkBlocked) as info:
            await session.goto(target)
        assert info.value.code == "blocked_by_policy" and info.value.details["port"] == (
            servers.decoy_port
        )
        assert session.netguard.connections == 0  # nothing went through the proxy
        await session.goto(servers.site_url + "/control/start")  # the env's own site: fine
        assert session.page.url == servers.site_url + "/control/start"
    assert not [hit for hit in servers.decoy_hits.seen if case in hit[1]]


async def test_an_allowed_origin_lets_the_operators_loopback_server_through(
    host: BrowserHost, servers: Servers
) -> None:
    """``--allow-host http://127.0.0.1:PORT``: the operator's own server, that origin only."""
    decoy = f"http://127.0.0.1:{servers.decoy_port}"
    async with await host.new_session(TEST_OPTIONS.allowing(decoy)) as session:
        await session.goto(decoy + "/control/operator")
        assert session.page.url == decoy + "/control/operator"
        with pytest.raises(NetworkBlocked):
            await session.goto(servers.site_url + "/")  # not allowed in this session
    assert any(hit[1] == "/control/operator" for hit in servers.decoy_hits.seen)


@pytest.mark.parametrize(
    "vector",
    ["goto", "redirect_302", "iframe", "fetch", "websocket", "worker", *MADE_UP],
)
async def test_control_with_the_policy_off_the_vectors_reach_the_decoy(
    host: BrowserHost, servers: Servers, vector: str
) -> None:
    """The same vectors do reach the decoy without a policy: the cases above can fail."""
    options = TEST_OPTIONS.__class__(network=NetworkPolicy(enabled=False))
    session = await host.new_session(options)
    try:
        await session.goto(servers.site_url + "/")
        path = f"/control/{vector}"
        target = f"http://127.0.0.1:{servers.decoy_port}{path}"
        await _run(session, servers.site_url, vector, target)
        for _ in range(60):
            if any(path in hit[1] for hit in servers.decoy_hits.seen):
                break
            await asyncio.sleep(0.05)
        assert any(path in hit[1] for hit in servers.decoy_hits.seen)
    finally:
        await session.aclose()


def test_zz_the_decoy_got_no_request(servers: Servers) -> None:
    """Run last (file order): nothing but the policy-off controls ever reached the decoy."""
    leaked = [hit for hit in servers.decoy_hits.seen if not hit[1].startswith("/control/")]
    assert leaked == []
