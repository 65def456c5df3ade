"""The HTML of the libzim wiki server: a search page, a bar added to every article, and the
rewriting that keeps an agent inside the offline wiki.

Pages are plain HTML with landmarks (``role="search"``, one ``h1``, an ordered list of result
links) so that an accessibility tree of them is short and says what each part is. The search
box has the id ``kiwixsearchbox``, as kiwix-serve's does, so one reference solution works on
both servers. Links that leave the wiki (``http(s)://``, ``//``) are pointed at ``/external``,
a local page that says the link is not available offline: an episode never reaches the network.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote, urlencode

from webdojo.envs.zim import SearchPage

CONTENT = "/content/"  # articles and their resources live under this prefix
SEARCH_BOX_ID = "kiwixsearchbox"  # the same id as kiwix-serve's search box

_STYLE = (
    "body{font-family:sans-serif;margin:0}"
    "#webdojo-wikibar{background:#eee;padding:.5em 1em;border-bottom:1px solid #ccc}"
    "#webdojo-wikibar input{width:20em}main{padding:1em;max-width:50em}"
)
_BODY_OPEN = re.compile(rb"<body\b[^>]*>", re.I)
_EXTERNAL_HREF = re.compile(rb"""(\bhref\s*=\s*)(["'])((?:https?:)?//[^"']*)\2""", re.I)


def content_url(path: str) -> str:
    """The server path of a ZIM entry (percent-encoded: paths hold ``:``, spaces, Cyrillic)."""
    return CONTENT + quote(path, safe="/")


def search_bar(value: str = "") -> str:
    """The search form shown on every page."""
    return (
        '<form id="webdojo-wikibar" role="search" action="/search" method="get">'
        '<a href="/">Main page</a> '
        f'<input id="{SEARCH_BOX_ID}" type="search" name="pattern" aria-label="Search the wiki" '
        f'placeholder="Search the wiki" value="{html.escape(value)}"> '
        '<button type="submit">Search</button></form>'
    )


def page(title: str, body: str, pattern: str = "") -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body>{search_bar(pattern)}<main>{body}</main></body></html>"
    )


def search_page(book_title: str, result: SearchPage, start: int, count: int) -> str:
    """The search page: the form, and for a pattern its results as links (with paging)."""
    if not result.pattern:
        intro = (
            f"<h1>{html.escape(book_title)}</h1><p>Search the articles of this offline wiki by "
            + ("their text." if result.fulltext else "their titles.")
            + "</p>"
        )
        return page(f"Search - {book_title}", intro)
    kind = "full-text" if result.fulltext else "title"
    head = (
        f"<h1>Search results for “{html.escape(result.pattern)}”</h1>"
        f"<p>About {result.estimated} {kind} matches"
        + (f", showing {start + 1}-{start + len(result.hits)}" if result.hits else "")
        + ".</p>"
    )
    if not result.hits:
        return page(f"Search - {book_title}", head + "<p>No article matches.</p>", result.pattern)
    items = "".join(
        f'<li><a href="{content_url(h.path)}">{html.escape(h.title)}</a></li>' for h in result.hits
    )
    body = f'{head}<ol start="{start + 1}">{items}</ol>{_pager(result, start, count)}'
    return page(f"Search - {book_title}", body, result.pattern)


def _pager(result: SearchPage, start: int, count: int) -> str:
    links = []
    if start > 0:
        query = urlencode({"pattern": result.pattern, "start": max(0, start - count)})
        links.append(f'<a href="/search?{query}">Previous results</a>')
    if start + len(result.hits) < result.estimated and len(result.hits) == count:
        query = urlencode({"pattern": result.pattern, "start": start + count})
        links.append(f'<a href="/search?{query}">Next results</a>')
    return f'<nav aria-label="Result pages">{" ".join(links)}</nav>' if links else ""


def not_found(what: str) -> str:
    return page("Not found", f"<h1>Not found</h1><p>{html.escape(what)}</p>")


def external_page(url: str) -> str:
    return page(
        "Not available offline",
        "<h1>Not available offline</h1><p>This link leads outside the offline wiki and cannot "
        f"be followed here: {html.escape(url)}</p>",
    )


def dress_article(body: bytes) -> bytes:
    """An article's HTML with the search bar at the top of its body and its external links
    pointed at ``/external``."""

    def local(match: re.Match[bytes]) -> bytes:
        target = html.unescape(match.group(3).decode("utf-8", "replace"))
        return match.group(1) + b'"/external?' + urlencode({"url": target}).encode() + b'"'

    body = _EXTERNAL_HREF.sub(local, body)
    bar = search_bar().encode()
    opened = _BODY_OPEN.search(body)
    if opened is None:
        return bar + body
    return body[: opened.end()] + bar + body[opened.end() :]
