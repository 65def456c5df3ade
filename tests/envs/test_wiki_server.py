"""The wiki server without a browser: pages, redirects, mimetypes, search, bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from webdojo.envs import kiwix, wiki_server
from webdojo.envs.wiki_server import WikiServer, choose_backend
from webdojo.envs.zim import ZimBook
from webdojo.errors import MissingDependency, ZimError


def client() -> httpx.Client:
    return httpx.Client(trust_env=False, timeout=10)  # loopback only, never a proxy


def test_libzim_serves_pages_redirects_and_mimetypes(indexed_zim: Path) -> None:
    with WikiServer(indexed_zim, backend="libzim") as wiki, client() as http:
        assert wiki.backend == "libzim" and wiki.url.startswith("http://127.0.0.1:")
        home = http.get(wiki.url + "/")
        assert home.status_code == 302 and home.headers["location"] == "/content/Main_Page"
        page = http.get(wiki.url + "/content/Marie_Curie")
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert "born in Warsaw" in page.text and 'id="kiwixsearchbox"' in page.text
        css = http.get(wiki.url + "/content/style.css")
        assert css.headers["content-type"].startswith("text/css") and "color" in css.text
        moved = http.get(wiki.url + "/content/Roentgen")
        assert moved.status_code == 302
        assert moved.headers["location"] == "/content/Wilhelm_R%C3%B6ntgen"
        article = http.get(wiki.url + moved.headers["location"])
        assert "first Nobel Prize in Physics" in article.text
        # a link out of the wiki stays local
        assert "https://en.wikipedia.org" not in article.text.split("/external?")[0]
        assert 'href="/external?url=https%3A%2F%2Fen.wikipedia.org' in article.text
        assert http.get(wiki.url + "/content/No_such_page").status_code == 404


def test_search_is_full_text_when_indexed_else_by_title(
    indexed_zim: Path, titles_zim: Path
) -> None:
    with WikiServer(indexed_zim, backend="libzim") as wiki, client() as http:
        found = http.get(wiki.search_url, params={"pattern": "Warsaw"}).text
        assert '<a href="/content/Marie_Curie">Marie Curie</a>' in found
        assert "full-text" in found
        assert "Search the articles" in http.get(wiki.search_url).text
    with WikiServer(titles_zim, backend="libzim") as wiki, client() as http:
        assert "No article matches" in http.get(wiki.search_url, params={"pattern": "Warsaw"}).text
        found = http.get(wiki.search_url, params={"pattern": "Marie"}).text
        assert '<a href="/content/Marie_Curie">Marie Curie</a>' in found and "title" in found


def test_real_zim_files(wikibooks_zim: Path, small_zim: Path) -> None:
    book = ZimBook(wikibooks_zim)
    assert book.article_count == 66 and not book.has_fulltext_index
    with WikiServer(wikibooks_zim, backend="libzim") as wiki, client() as http:
        main = http.get(wiki.url + "/", follow_redirects=True)
        assert main.status_code == 200 and "Першая старонка" in main.text
        found = http.get(wiki.search_url, params={"pattern": "Кава"}).text
        assert '<a href="/content/%D0%9A%D0%B0%D0%B2%D0%B0.html">Кава</a>' in found
        script = http.get(wiki.url + "/content/j/body.js")
        assert script.headers["content-type"] == "application/javascript; charset=utf-8"
    with WikiServer(small_zim, backend="libzim") as wiki, client() as http:
        main = http.get(wiki.url + "/", follow_redirects=True)
        assert str(main.url).endswith("/content/main.html") and "Test ZIM file" in main.text


def test_bad_zim_files_are_typed_errors(tmp_path: Path, indexed_zim: Path) -> None:
    with pytest.raises(ZimError, match="no such ZIM file") as missing:
        WikiServer(tmp_path / "absent.zim", backend="libzim")
    assert missing.value.code == "bad_zim"
    text = tmp_path / "notes.zim"
    text.write_text("not a zim at all")
    with pytest.raises(ZimError, match="not a ZIM file"):
        WikiServer(text, backend="libzim")
    truncated = tmp_path / "truncated.zim"
    truncated.write_bytes(indexed_zim.read_bytes()[:100])
    with pytest.raises(ZimError, match="libzim cannot open it"):
        ZimBook(truncated)
    with pytest.raises(ZimError, match="not a file"):
        ZimBook(tmp_path)


def test_missing_programs_say_what_to_install(
    indexed_zim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kiwix, "kiwix_serve_path", lambda: None)
    monkeypatch.setattr(wiki_server, "kiwix_serve_path", lambda: None)
    with pytest.raises(MissingDependency, match="apt-get install kiwix-tools") as no_kiwix:
        choose_backend(indexed_zim, "kiwix")
    assert no_kiwix.value.code == "missing_dependency"
    assert choose_backend(indexed_zim, "auto") == "libzim"
    for name in ("libzim", "libzim.reader", "libzim.search", "libzim.suggestion"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it now fails
    with pytest.raises(MissingDependency, match="pip install libzim"):
        choose_backend(indexed_zim, "libzim")
    with pytest.raises(MissingDependency, match="libzim or kiwix-serve"):
        WikiServer(indexed_zim)
    with pytest.raises(MissingDependency, match="pip install libzim"):
        ZimBook(indexed_zim)
