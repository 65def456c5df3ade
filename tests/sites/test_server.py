"""The static site server serves files inside site roots only, on loopback."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from webdojo.sites.server import FileCache, SiteServer, resolve_path
from webdojo.tasks.loader import Site
from webdojo.tasks.schema import SiteInfo

INFO = SiteInfo(
    name="mini", title="t", description="d", style="s", capabilities=["c"], pages=["index.html"]
)


def make_site(tmp_path: Path) -> dict[str, Site]:
    root = tmp_path / "mini"
    (root / "sub").mkdir(parents=True)
    (root / "index.html").write_text("<p>home</p>")
    (root / "sub" / "page.html").write_text("<p>page</p>")
    (tmp_path / "secret.txt").write_text("top secret")
    return {"mini": Site(info=INFO, path=root.resolve())}


def test_serves_files_and_refuses_traversal(tmp_path: Path) -> None:
    sites = make_site(tmp_path)
    with SiteServer(sites) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        with httpx.Client(base_url=server.base_url) as client:
            home = client.get("/mini/")
            assert home.status_code == 200 and home.text == "<p>home</p>"
            assert home.headers["content-type"].startswith("text/html")
            assert client.get("/mini/sub/page.html?x=1#frag").text == "<p>page</p>"
            for bad in [
                "/mini/../secret.txt",
                "/mini/%2e%2e/secret.txt",
                "/other/index.html",
                "/",
                "/mini/nope.html",
            ]:
                assert client.get(bad).status_code == 404, bad
    roots = {"mini": sites["mini"].path}
    assert resolve_path(roots, "/mini/..%2f..%2fsecret.txt") is None


def test_pages_revalidate_and_assets_are_cached(tmp_path: Path) -> None:
    sites = make_site(tmp_path)
    (sites["mini"].path / "app.js").write_text("var x = 1;")
    with SiteServer(sites) as server, httpx.Client(base_url=server.base_url) as client:
        page = client.get("/mini/index.html")
        assert page.headers["cache-control"] == "no-cache" and page.headers["etag"]
        again = client.get("/mini/index.html", headers={"If-None-Match": page.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        (sites["mini"].path / "index.html").write_text("<p>changed</p>")
        changed = client.get("/mini/index.html", headers={"If-None-Match": page.headers["etag"]})
        assert changed.status_code == 200 and changed.text == "<p>changed</p>"
        script = client.get("/mini/app.js")
        assert script.headers["cache-control"] == "max-age=3600"
        assert client.get("/mini/nope.js").headers["cache-control"] == "no-cache"


def test_a_rewritten_file_is_served_anew_and_the_cache_keeps_to_its_size(tmp_path: Path) -> None:
    sites = make_site(tmp_path)
    page = sites["mini"].path / "index.html"
    with SiteServer(sites) as server, httpx.Client(base_url=server.base_url) as client:
        first = client.get("/mini/index.html")
        page.write_text("<p>HOME</p>")  # the same size: the modification time tells
        os.utime(page, ns=(1, 1))
        second = client.get("/mini/index.html")
        assert second.text == "<p>HOME</p>" and second.headers["etag"] != first.headers["etag"]
        fresh = tmp_path / "fresh.html"  # replaced by a rename, as atomic writers do
        fresh.write_text("<p>NEW!</p>")
        os.utime(fresh, ns=(1, 1))
        fresh.replace(page)
        assert client.get("/mini/index.html").text == "<p>NEW!</p>"

    cache = FileCache(max_bytes=40)
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"f{i}.txt")
        paths[-1].write_bytes(bytes([65 + i]) * 20)
    assert cache.get(paths[0], None)[0] == b"A" * 20
    cache.get(paths[1], None)
    cache.get(paths[0], None)  # the most recently served: kept
    cache.get(paths[2], None)  # 60 bytes: the least recently served (f1) goes
    assert set(cache.cached()) == {(paths[0], None), (paths[2], None)}


def test_each_sites_snippet_is_cached_apart(tmp_path: Path) -> None:
    cache = FileCache()
    page = tmp_path / "p.html"
    page.write_text("<body><p>x</p></body>")
    plain, ctype, _ = cache.get(page, None)
    injected = cache.get(page, "<script>1</script>")[0]
    assert ctype == "text/html; charset=utf-8" and plain == b"<body><p>x</p></body>"
    assert injected == b"<body><p>x</p><script>1</script></body>"
