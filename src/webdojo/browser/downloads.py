"""Downloads: each session's land in its own temporary directory, capped, removed at the end.

Chromium writes a download straight into the directory that ``Browser.setDownloadBehavior``
names for the session's browser context, under the download's guid (a page cannot pick the
path). Playwright's own way (``accept_downloads``) puts every context's files in one shared
directory and reports no progress, so an oversized file would be written in full before it
could be refused; hence CDP here.

One browser CDP session per host (``DownloadRoot``) hears the download events of every context
(Chromium sends them to each browser session alike), and one temporary root directory holds a
directory per session. No event says whose a download is: a session knows its own by the files
in its directory, or by a cancel that Chromium accepts only from the download's own context. So
one session never sees, counts or cancels another's downloads.

Caps (``SessionOptions.max_download_mb`` for all files together, ``max_downloads`` for their
number). A download past the count, or announced (Content-Length) larger than what the session
has left, is cancelled at its first event, before its bytes arrive. While any download runs, the
sessions' directories are scanned every few milliseconds (``SCAN_S``; less often while no byte
arrives); one whose bytes pass the cap is cancelled, and Chromium deletes its partial file. A
finished file past a cap (so small that it finished between two scans) is deleted. So a
directory at rest never holds more than the cap; while a download of unknown length runs, it can
briefly hold what arrives between two scans more, until the cancel lands (on loopback, at
hundreds of MB/s, on a busy machine: up to about 11 MiB past a 5 MiB cap). For a hard bound,
put the temporary directory (``TMPDIR``) on a filesystem of limited size.

Removal: ``SessionDownloads.aclose`` (from ``BrowserSession.aclose``, also after the browser
died) removes the session's directory; ``DownloadRoot.aclose`` (from ``BrowserHost.aclose``)
removes the root with anything left; a new root removes the roots of processes that are gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, CDPSession
from playwright.async_api import Error as PlaywrightError

from webdojo.background import Background
from webdojo.browser import stale_dirs
from webdojo.errors import DownloadTooLarge, TooManyDownloads, WebdojoError
from webdojo.observation import DownloadInfo, ErrorInfo

ROOT_PREFIX = "webdojo-downloads-"  # + "<pid>-<random>": one root per host, in the temp dir
SCAN_S = 0.005  # how often directories are scanned while a download's bytes arrive
SCAN_IDLE_S = 0.02  # ... and this long apart once no byte arrived for SCAN_PATIENCE scans
SCAN_PATIENCE = 40
_GUID_LEN = 36  # Chromium names a download's file by its guid (a partial one may get a suffix)


class SessionDownloads:
    """One session's download directory, its caps, and what to report in the next observation."""

    def __init__(
        self, root: DownloadRoot, path: Path, context_id: str, max_bytes: int, max_files: int
    ) -> None:
        self.path = path
        self.context_id = context_id  # Chromium's id of the session's browser context
        self.max_bytes = max_bytes
        self.max_files = max_files
        self._root = root
        self._running: set[str] = set()  # guids of this session's downloads still running
        self._kept: dict[str, int] = {}  # finished downloads kept on disk: guid -> bytes
        self._refused: set[str] = set()
        self._pending: list[DownloadInfo] = []  # finished or refused since the last drain
        self.held = 0  # bytes in the directory at the last scan

    def set_caps(self, max_bytes: int, max_files: int) -> None:
        """A warm session takes its episode's caps (``BrowserSession.adopt``)."""
        self.max_bytes, self.max_files = max_bytes, max_files

    def drain(self) -> list[DownloadInfo]:
        out, self._pending = self._pending, []
        return out

    def files(self) -> dict[str, int]:
        """Bytes on disk per guid, partial files included."""
        sizes: dict[str, int] = {}
        with contextlib.suppress(OSError), os.scandir(self.path) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    guid = entry.name[:_GUID_LEN]
                    sizes[guid] = sizes.get(guid, 0) + entry.stat().st_size
        return sizes

    def scan(self, running: dict[str, dict[str, Any]]) -> list[str]:
        """Adopt running downloads whose files are in this directory; return the guids to
        cancel because they break a cap."""
        sizes = self.files()
        self.held = sum(sizes.values())
        cancel: list[str] = []
        for guid in sizes.keys() & running.keys():
            if guid in self._refused:
                continue
            if guid not in self._running:
                self._running.add(guid)
                if len(self._kept) + len(self._running) > self.max_files:
                    cancel.append(self._refuse(guid, running[guid], TooManyDownloads, 0))
                    continue
            announced = int(running[guid].get("total") or 0)
            held = sum(sizes.values()) - sum(sizes.get(g, 0) for g in self._refused)
            if held > self.max_bytes or sum(self._kept.values()) + announced > self.max_bytes:
                cancel.append(self._refuse(guid, running[guid], DownloadTooLarge, sizes[guid]))
        return cancel

    def finished(self, guid: str, info: dict[str, Any], state: str) -> None:
        """A download of the browser ended (``completed`` or ``canceled``); keep it if it is
        this session's and within the caps."""
        self._running.discard(guid)
        # Refused or cancelled (by the page, the browser, or a refusal not noted yet: its
        # cancel's answer can come after this event): nothing of it stays. _remove touches only
        # this session's directory, so another session's download is left alone.
        if guid in self._refused or state != "completed":
            self._remove(guid)
            return
        size = self.files().get(guid)
        if size is None:
            return  # another session's
        if len(self._kept) + 1 > self.max_files:
            self._refuse(guid, info, TooManyDownloads, size)
        elif sum(self._kept.values()) + size > self.max_bytes:
            self._refuse(guid, info, DownloadTooLarge, size)
        else:
            self._kept[guid] = size
            self._pending.append(_info(info, size, None))
            return
        self._remove(guid)

    def would_break(self, info: dict[str, Any], error: type[WebdojoError]) -> bool:
        """Whether a download of this session (not known yet) would break a cap: its count
        (``TooManyDownloads``) or its announced size (``DownloadTooLarge``)."""
        if error is TooManyDownloads:
            return len(self._kept) + len(self._running) >= self.max_files
        return sum(self._kept.values()) + int(info.get("total") or 0) > self.max_bytes

    def refuse(self, guid: str, info: dict[str, Any], error: type[WebdojoError]) -> None:
        """Note a download cancelled before it reached the directory, and remove whatever of
        it is there: its end (``finished``) may have come before this note, while it still
        looked like no download of this session's."""
        if guid not in self._refused:
            self._refuse(guid, info, error, self.files().get(guid, 0))
        self._remove(guid)

    def _refuse(self, guid: str, info: dict[str, Any], error: type[WebdojoError], size: int) -> str:
        self._refused.add(guid)
        self._running.discard(guid)
        name = info.get("name", "")
        if error is TooManyDownloads:
            message = f"the download {name!r} was refused: a session keeps {self.max_files} at most"
        else:
            limit = f"{self.max_bytes / 2**20:g} MiB"
            message = f"the download {name!r} was cancelled: a session's downloads hold {limit}"
        exc = error(message, name=name, url=info.get("url", ""))
        self._pending.append(_info(info, size, exc.info()))
        return guid

    def _remove(self, guid: str) -> None:
        with contextlib.suppress(OSError), os.scandir(self.path) as entries:
            for entry in entries:
                if entry.name.startswith(guid):
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)

    async def aclose(self) -> None:
        """Cancel what still runs and remove the directory. Never raises."""
        self._root.forget(self)
        for guid in list(self._running):
            await self._root.cancel(self, guid)
        shutil.rmtree(self.path, ignore_errors=True)


def _info(info: dict[str, Any], size: int, error: ErrorInfo | None) -> DownloadInfo:
    return DownloadInfo(
        name=str(info.get("name", "")), url=str(info.get("url", "")), bytes=size, error=error
    )


class DownloadRoot:
    """A host's download events and directories; ``attach`` gives each session its own."""

    def __init__(self, browser: Browser) -> None:
        self._browser = browser
        self._cdp: CDPSession | None = None
        self._lock = asyncio.Lock()
        self._path: Path | None = None
        self._sessions: set[SessionDownloads] = set()
        self._running: dict[str, dict[str, Any]] = {}  # every context's: guid -> name, url, total
        self._scanner: asyncio.Task[None] | None = None
        self._tasks = Background()  # early refusals under way

    @property
    def path(self) -> Path | None:
        """The root directory (None until the first session)."""
        return self._path

    async def attach(
        self, page_cdp: CDPSession, max_bytes: int, max_files: int
    ) -> SessionDownloads:
        """Send the downloads of the context of the page (``page_cdp``: a CDP session of one
        of its pages) to a fresh directory. Raises PlaywrightError."""
        cdp = await self._ensure()
        assert self._path is not None
        target = await page_cdp.send("Target.getTargetInfo")
        context_id = target["targetInfo"]["browserContextId"]
        path = Path(tempfile.mkdtemp(prefix="s-", dir=self._path))
        downloads = SessionDownloads(self, path, context_id, max_bytes, max_files)
        self._sessions.add(downloads)
        behavior = {"behavior": "allowAndName", "downloadPath": str(path), "eventsEnabled": True}
        try:
            await cdp.send(
                "Browser.setDownloadBehavior", {**behavior, "browserContextId": context_id}
            )
        except BaseException:
            await downloads.aclose()
            raise
        return downloads

    async def _ensure(self) -> CDPSession:
        async with self._lock:
            if self._cdp is None:
                sweep_stale_roots()
                if self._path is None:
                    self._path = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-"))
                cdp = await self._browser.new_browser_cdp_session()
                cdp.on("Browser.downloadWillBegin", self._on_begin)
                cdp.on("Browser.downloadProgress", self._on_progress)
                self._cdp = cdp
            return self._cdp

    def forget(self, downloads: SessionDownloads) -> None:
        self._sessions.discard(downloads)

    def _on_begin(self, event: dict[str, Any]) -> None:
        name = event.get("suggestedFilename", "")
        info = {"name": name, "url": event.get("url", ""), "total": 0, "checked": False}
        self._running[event["guid"]] = info
        self._tasks.spawn(self._refuse_early(event["guid"], info, TooManyDownloads))
        if self._scanner is None or self._scanner.done():
            self._scanner = asyncio.get_running_loop().create_task(self._scan())

    def _on_progress(self, event: dict[str, Any]) -> None:
        guid, state = event["guid"], event.get("state")
        info = self._running.get(guid)
        if info is None:
            return
        info["total"] = event.get("totalBytes") or 0
        if info["total"] and not info["checked"]:  # the size the server announced
            info["checked"] = True
            self._tasks.spawn(self._refuse_early(guid, info, DownloadTooLarge))
        if state in ("completed", "canceled"):
            del self._running[guid]
            for downloads in list(self._sessions):
                downloads.finished(guid, info, str(state))

    async def _scan(self) -> None:
        """Check every session's caps while any download runs."""
        still, before = 0, -1  # scans in a row that found no new byte
        while self._running:
            held = 0
            for downloads in list(self._sessions):
                for guid in downloads.scan(self._running):
                    await self.cancel(downloads, guid)
                held += downloads.held
            # Bytes that do not move cannot pass a cap: a stalled download is looked at less
            # often (a worker with many sessions would spend a core on it otherwise).
            still, before = (still + 1 if held == before else 0), held
            await asyncio.sleep(SCAN_IDLE_S if still > SCAN_PATIENCE else SCAN_S)

    async def _refuse_early(
        self, guid: str, info: dict[str, Any], error: type[WebdojoError]
    ) -> None:
        """Refuse a download before its bytes arrive: one past a session's count, or announced
        larger than what the session has left. Whose it is, no event says; but Chromium
        cancels a download only for the context it belongs to, so the cancel tells."""
        for downloads in list(self._sessions):
            if downloads.would_break(info, error) and await self.cancel(downloads, guid):
                downloads.refuse(guid, info, error)
                return

    async def cancel(self, downloads: SessionDownloads, guid: str) -> bool:
        """Cancel the session's download; False if it is not the session's (or is over)."""
        if self._cdp is None:
            return False
        try:
            await self._cdp.send(
                "Browser.cancelDownload", {"guid": guid, "browserContextId": downloads.context_id}
            )
        except PlaywrightError:
            return False
        return True

    async def aclose(self) -> None:
        """Remove the root directory with whatever is left in it. Never raises."""
        if self._scanner is not None:
            self._scanner.cancel()
        await self._tasks.cancel()
        if self._cdp is not None:
            with contextlib.suppress(PlaywrightError):
                await asyncio.wait_for(self._cdp.detach(), 5)
        if self._path is not None:
            shutil.rmtree(self._path, ignore_errors=True)


def sweep_stale_roots() -> int:
    """Remove the download roots of processes that are gone (a host killed before it could
    close). Returns how many were removed."""
    return stale_dirs.sweep(Path(tempfile.gettempdir()), ROOT_PREFIX)
