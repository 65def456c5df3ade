"""A cancelled download leaves nothing in its session's directory, whichever comes first:
Chromium's end event or webdojo's note of the refusal. An early refusal is noted when
Chromium answers the ``Browser.cancelDownload``, and the cancelled download's ``canceled``
progress event can come before that answer; a 0-byte file left in that order once failed
``test_the_download_count_is_capped`` (CI, 2026-11-30). These orders are replayed here without a
browser, so they run the same every time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webdojo.browser.downloads import SessionDownloads
from webdojo.errors import TooManyDownloads

GUID = "0f8fad5b-d9cb-469f-a165-70867728950e"
INFO: dict[str, Any] = {"name": "big.bin", "url": "http://127.0.0.1:1/big/200", "total": 0}


class _Root:
    def forget(self, downloads: SessionDownloads) -> None:
        pass


def _session(tmp_path: Path) -> SessionDownloads:
    return SessionDownloads(_Root(), tmp_path, "ctx", max_bytes=10**6, max_files=1)  # type: ignore[arg-type]


def test_a_cancelled_download_s_file_is_removed_at_its_end(tmp_path: Path) -> None:
    downloads = _session(tmp_path)
    (tmp_path / GUID).write_bytes(b"")
    downloads.finished(GUID, INFO, "canceled")
    assert downloads.files() == {}
    assert downloads.drain() == []  # cancelled by the page: nothing to report


def test_a_refusal_noted_after_the_end_removes_what_appeared_meanwhile(tmp_path: Path) -> None:
    downloads = _session(tmp_path)
    downloads.finished(GUID, INFO, "canceled")  # the end event, before the file was there
    (tmp_path / GUID).write_bytes(b"")
    downloads.refuse(GUID, INFO, TooManyDownloads)
    assert downloads.files() == {}
    [refused] = downloads.drain()
    assert refused.error is not None and refused.error.code == "too_many_downloads"


def test_a_completed_download_within_the_caps_is_kept(tmp_path: Path) -> None:
    downloads = _session(tmp_path)
    (tmp_path / GUID).write_bytes(b"x" * 100)
    downloads.finished(GUID, INFO, "completed")
    assert downloads.files() == {GUID: 100}
    [kept] = downloads.drain()
    assert kept.error is None and kept.bytes == 100
