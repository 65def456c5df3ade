"""The viewer's HTTP API on a real uvicorn server: JSON views, files, and path safety."""

from __future__ import annotations

import gc
import socket
import sys
import warnings
from pathlib import Path

import httpx
import pytest
from viewer_runs import latest_episodes

from webdojo.viewer.app import create_app
from webdojo.viewer.server import DEFAULT_HOST, ViewerServer

pytestmark = pytest.mark.browser  # the run fixtures drive Chromium
TIMEOUT = 60  # the first plot imports matplotlib, slow on a loaded machine


def get(url: str) -> httpx.Response:
    return httpx.get(url, timeout=TIMEOUT)


def get_json(url: str, params: dict[str, str]) -> dict:
    response = httpx.get(url, params=params, timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    return response.json()


def raw_status(port: int, path: str) -> int:
    """GET a path exactly as written (no client-side normalization of ``..`` or ``%2e``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        head = sock.recv(64).decode("latin-1")
    return int(head.split()[1])


def test_binds_loopback_by_default(scripted_run: Path) -> None:
    assert DEFAULT_HOST == "127.0.0.1"
    with ViewerServer(create_app([scripted_run])) as server:
        assert server.socket.getsockname()[0] == "127.0.0.1"
        assert get(server.url + "api/runs").json()[0]["id"] == "a"
        assert get(server.url + "api/compare").status_code == 404  # one run only


def test_overview_and_episode(viewer: ViewerServer, scripted_run: Path) -> None:
    with httpx.Client(base_url=viewer.url, timeout=TIMEOUT) as client:
        data = client.get("api/runs/a/overview").json()
        records = latest_episodes(scripted_run)
        assert data["totals"]["all_episodes"] == len(records)
        key = next(iter(records))
        episode = client.get("api/runs/a/episode", params={"key": key}).json()
        assert episode["key"] == key and episode["record"] == records[key]
        shot = episode["steps"][0]["screenshot_url"]
        image = client.get(shot)
        assert image.status_code == 200 and image.content[:2] == b"\xff\xd8"  # a JPEG
        assert client.get("api/runs/a/episode", params={"key": "nope#0"}).status_code == 404
        assert client.get("api/runs/c/overview").status_code == 404


def test_steps_are_json_as_the_front_end_reads_them(edge_viewer: ViewerServer) -> None:
    """Free-form JSON (memory) arrives as JSON, actions and targets as objects, the outcome as
    its name: the fields ``static/episode.js`` reads."""
    params = {"key": "shop.cart-lamp#0"}
    episode = get_json(edge_viewer.url + "api/runs/a/episode", params)
    typed, clicked, stop = episode["steps"]
    assert clicked["memory"] == {"progress": "searched"} and typed["memory"] is None
    assert typed["action"]["type"] == "type" and typed["action"]["text"] == "lamp"
    assert typed["target"]["role"] == "searchbox" and set(typed["target"]["box"]) == {
        "x",
        "y",
        "width",
        "height",
    }
    assert clicked["action"]["space"] == "norm1000" and stop["overlay"]["kind"] == "stop"
    assert episode["record"]["outcome"] == "stopped" and "final_state" not in episode["record"]
    assert episode["record"]["verifier"]["passed"] is True
    params = {"key": "shop.price-mug#0"}
    unparsed = get_json(edge_viewer.url + "api/runs/a/episode", params)["steps"][1]
    assert unparsed["action"] is None and unparsed["error"]["code"] == "parse_error"
    assert unparsed["overlay"]["kind"] == "unparsed"


def test_plots_are_svg(viewer: ViewerServer) -> None:
    for name in ("success_by_difficulty", "episode_lengths"):
        response = get(f"{viewer.url}api/runs/a/plots/{name}.svg")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("image/svg+xml")
        assert response.text.startswith("<svg")
    assert get(f"{viewer.url}api/runs/a/plots/other.svg").status_code == 404


def test_the_api_is_documented(viewer: ViewerServer) -> None:
    schema = get(viewer.url + "openapi.json").json()
    assert {
        "/api/runs",
        "/api/runs/{rid}/overview",
        "/api/runs/{rid}/episode",
        "/api/compare",
    } <= set(schema["paths"])


def test_front_end_is_served(viewer: ViewerServer) -> None:
    index = get(viewer.url)
    assert index.status_code == 200 and "static/app.js" in index.text
    for name in ("app.js", "episode.js", "dom.js", "sort.js", "style.css"):
        assert get(f"{viewer.url}static/{name}").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/runs/a/files/../config.json",
        "/runs/a/files/..%2fconfig.json",
        "/runs/a/files/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/runs/a/files/..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/runs/a/files//etc/passwd",
        "/runs/a/files/%2fetc%2fpasswd",
        "/runs/a/files/screenshots",
        "/runs/a/files/screenshots/../../random/config.json",
        "/runs/a/files/nope.jpg",
        "/runs/a/files/a%00b",
        "/static/../runs/a/files/config.json/..",
        "/static/..%2f..%2fviewer%2fapp.py",
        "/static/%2e%2e/app.py",
    ],
)
def test_path_traversal_gets_404(viewer: ViewerServer, path: str) -> None:
    assert raw_status(viewer.port, path) == 404


def test_symlink_out_of_the_run_gets_404(scripted_run: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text('{"format_version": 1}')
    (run / "leak.txt").symlink_to(secret)
    with ViewerServer(create_app([run])) as server:
        assert raw_status(server.port, "/runs/a/files/config.json") == 200
        assert raw_status(server.port, "/runs/a/files/leak.txt") == 404


def test_a_stop_mid_download_leaves_nothing_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client still downloading when the viewer stops (it stopped reading): its connection
    and the file being sent are closed with the server, not later by the garbage collector."""
    (tmp_path / "config.json").write_text('{"format_version": 2}')
    (tmp_path / "big.bin").write_bytes(b"x" * 32_000_000)  # more than the socket buffers
    leaks: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: leaks.append(repr(u.exc_value)))
    server = ViewerServer(create_app([tmp_path])).start()
    with socket.socket() as client:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(("127.0.0.1", server.port))
        client.sendall(b"GET /runs/a/files/big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        assert client.recv(12) == b"HTTP/1.1 200"  # the download has begun; it stalls here
        server.stop()
        del server
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            gc.collect()
    assert not leaks
