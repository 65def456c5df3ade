"""The libzim wiki server as an ASGI app (Starlette): what kiwix-serve does, in small.

Routes:

* ``/`` redirects to the ZIM's main page (to ``/search`` when it has none);
* ``/content/<path>`` serves the entry at ``path`` with its own mimetype; a redirect entry
  answers 302 to its target; HTML pages get the search bar and local-only links
  (``wiki_pages.dress_article``);
* ``/search?pattern=...&start=N`` is the search page: a form, and for a pattern its results as
  links, full text when the ZIM is indexed, else by title;
* ``/external?url=...`` says that a link leaving the wiki is not available offline.

Handlers are plain functions: Starlette runs them in its thread pool, so a slow full-text
search on a large ZIM does not hold up other sessions' page loads.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from webdojo.envs import wiki_pages
from webdojo.envs.zim import ZimBook

RESULTS_PER_PAGE = 20
_TEXT_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml")


def make_wiki_app(book: ZimBook) -> Starlette:
    def home(request: Request) -> Response:
        main = book.main_path()
        target = wiki_pages.content_url(main) if main else "/search"
        return RedirectResponse(target, status_code=302)

    def content(request: Request) -> Response:
        path = request.path_params["path"]
        target = book.redirect_of(path)
        if target is not None:
            return RedirectResponse(wiki_pages.content_url(target), status_code=302)
        item = book.get(path)
        if item is None:
            return HTMLResponse(wiki_pages.not_found(f"No article at {path!r}."), 404)
        body = item.body
        if item.mimetype.startswith("text/html"):
            body = wiki_pages.dress_article(body)
        return Response(body, media_type=media_type(item.mimetype), headers=_cache(item.mimetype))

    def search(request: Request) -> Response:
        pattern = request.query_params.get("pattern", "")
        start = _non_negative(request.query_params.get("start", "0"))
        result = book.search(pattern, start, RESULTS_PER_PAGE)
        return HTMLResponse(wiki_pages.search_page(book.title, result, start, RESULTS_PER_PAGE))

    def external(request: Request) -> Response:
        return HTMLResponse(wiki_pages.external_page(request.query_params.get("url", "")))

    routes = [
        Route("/", home),
        Route("/content/{path:path}", content),
        Route("/search", search),
        Route("/external", external),
    ]
    return Starlette(routes=routes)


def media_type(mimetype: str) -> str:
    """The ZIM's mimetype, with ``charset=utf-8`` on text that does not name a charset (ZIM
    text is UTF-8)."""
    if mimetype.startswith(_TEXT_TYPES) and "charset" not in mimetype:
        return f"{mimetype}; charset=utf-8"
    return mimetype


def _cache(mimetype: str) -> dict[str, str]:
    # a ZIM never changes while served: assets can be cached; pages are revalidated like a site's
    return {"Cache-Control": "no-cache" if mimetype.startswith("text/html") else "max-age=3600"}


def _non_negative(text: str) -> int:
    try:
        return max(0, int(text))
    except ValueError:
        return 0
