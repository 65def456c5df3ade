"""What a start page's load says about the environment, not the agent.

An episode that starts on a page that is down is not the agent's failure: a start page that
answers an HTTP error raises ``StartPageFailed``, and one that cannot be reached at all
(Chromium's network errors) raises ``SiteUnreachable``. Both are environment faults, so the
episode is never scored as a 0.
"""

from __future__ import annotations

import re

from playwright.async_api import Response

from webdojo.errors import ActionFailed, SiteUnreachable, StartPageFailed

# Chromium's net errors that mean the website or the network is unreachable (not a bad page).
# SOCKS_CONNECTION_FAILED: the policy's proxy could not resolve or connect to the site (a
# refusal by the policy itself has become NetworkBlocked before this is read).
_NETWORK_ERROR = re.compile(
    r"net::ERR_(NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|CONNECTION_\w+|ADDRESS_\w+|"
    r"INTERNET_DISCONNECTED|NETWORK_\w+|TIMED_OUT|PROXY_\w+|TUNNEL_\w+|SSL_\w+|CERT_\w+|"
    r"EMPTY_RESPONSE|SOCKET_NOT_CONNECTED|SOCKS_CONNECTION_FAILED)"
)


def unreachable(url: str, exc: ActionFailed) -> SiteUnreachable | None:
    """``SiteUnreachable`` when a failed load of ``url`` was a network error; None when the
    page itself failed (the original error stands)."""
    network = _NETWORK_ERROR.search(str(exc))
    if network is None:
        return None
    return SiteUnreachable(f"{url} cannot be reached ({network.group(0)})")


def check_status(url: str, response: Response | None) -> None:
    """Raise ``StartPageFailed`` for a start page that answered an HTTP error: an episode
    there would be scored 0 for a site that is down. ``about:blank``, ``data:`` and ``file:``
    pages have no response."""
    if response is not None and response.status >= 400:
        status = response.status
        raise StartPageFailed(
            f"the start page {url} answered HTTP {status} {response.status_text}".rstrip(),
            url=url,
            status=status,
        )
