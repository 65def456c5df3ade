"""Which website a task is on: its *site key*, the unit that splits, stats and the blocklist
count by.

* A real website is its registrable domain under the public-suffix list (the copy bundled with
  PyPI ``publicsuffixlist``, no network): ``https://www.bbc.co.uk/news`` and ``bbc.co.uk`` are
  both ``bbc.co.uk``. The list's private section counts too, so ``alice.github.io`` and
  ``bob.github.io`` are two sites (they have two owners).
* A host that has no registrable domain (``localhost``, an IP address, a bare public suffix)
  is its own key, lower-cased, without the port.
* A built-in or user-written local site (``website: "shop"`` with a relative ``start_url``), or
  any website written as a bare name without a dot, is keyed by that name: ``shop``.
* A task with neither a website nor an absolute start URL has the key ``(none)``.
"""

from __future__ import annotations

import functools
import ipaddress
from urllib.parse import urlsplit

from webdojo.tasks.schema import Task, is_absolute_url

NO_WEBSITE = "(none)"


@functools.cache
def _psl() -> object:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()  # the bundled list; this never fetches


def host_of(text: str) -> str:
    """The lower-cased host of a URL, or of a bare ``host[:port][/path]``; "" if none."""
    text = text.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:  # e.g. an unbalanced "[" in what was meant as an IPv6 literal
        return ""
    return host.rstrip(".")


@functools.lru_cache(maxsize=1 << 18)
def registrable_domain(website: str) -> str:
    """The site key of a website given as a URL, a host or a local site's name."""
    text = website.strip()
    if not text:
        return NO_WEBSITE
    if "." not in text and "/" not in text and ":" not in text:
        return text.lower()  # a local site's name ("shop"), or a single-label host
    host = host_of(text)
    if not host:
        return text.lower()
    if (host[-1].isdigit() or ":" in host) and _is_ip(host):  # cheap test first: it is hot
        return host
    private = _psl().privatesuffix(host)  # type: ignore[attr-defined]
    return private or host


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def site_key(task: Task) -> str:
    """The key of the website ``task`` is on (see the module docstring)."""
    return site_key_of(task.website, task.start_url)


def site_key_of(website: str | None, start_url: str | None) -> str:
    """``site_key`` from the two fields, for callers that hold columns rather than tasks."""
    if website:
        return registrable_domain(website)
    if start_url and is_absolute_url(start_url) and not start_url.startswith("about:"):
        return registrable_domain(start_url)
    return NO_WEBSITE
