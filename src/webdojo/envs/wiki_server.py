"""An offline Wikipedia: one ZIM file served over HTTP on 127.0.0.1.

Two backends, one interface (``url``, ``search_url``, ``main_url``, ``close``):

* ``kiwix``: Debian's kiwix-serve as a child process (``envs/kiwix.py``), what BrowserAgent
  used. Its search page is full-text only, so it needs a ZIM with a full-text index.
* ``libzim``: our small server on PyPI's libzim (``envs/wiki_app.py``) under uvicorn in a
  thread; full-text search when the ZIM is indexed, else title search. This is the path CI
  takes (``make setup`` installs libzim, not kiwix-tools, which needs root).

``auto`` (the default) takes kiwix-serve when it is installed and the ZIM has a full-text
index, else libzim. ``search_url`` is where QA episodes start.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Literal, get_args

from webdojo.asgi import ThreadServer
from webdojo.envs.kiwix import INSTALL_KIWIX, KiwixServer, kiwix_serve_path
from webdojo.envs.wiki_app import make_wiki_app
from webdojo.envs.zim import INSTALL_LIBZIM, ZimBook, check_zim_file, libzim_module
from webdojo.errors import ConfigError, MissingDependency
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.qa_tasks import on_wiki

Backend = Literal["auto", "kiwix", "libzim"]
BACKENDS: tuple[str, ...] = get_args(Backend)


def choose_backend(zim: Path, requested: str = "auto") -> Literal["kiwix", "libzim"]:
    """The backend that will serve ``zim`` (see the module docstring)."""
    if requested not in BACKENDS:
        raise ConfigError(f"unknown wiki backend {requested!r}; use one of {', '.join(BACKENDS)}")
    if requested == "libzim":
        libzim_module()
        return "libzim"
    has_kiwix = kiwix_serve_path() is not None
    if requested == "kiwix":
        if not has_kiwix:
            raise MissingDependency(f"kiwix-serve is not installed: {INSTALL_KIWIX}")
        return "kiwix"
    try:
        libzim_module()
    except MissingDependency:
        if has_kiwix:
            return "kiwix"
        raise MissingDependency(
            "serving a ZIM file needs libzim or kiwix-serve; install one: "
            f"{INSTALL_LIBZIM}, or {INSTALL_KIWIX}"
        ) from None
    if has_kiwix and ZimBook(zim).has_fulltext_index:
        return "kiwix"
    return "libzim"


class WikiServer:
    """Serves one ZIM from construction until ``close()``; also a context manager."""

    def __init__(self, zim: str | Path, *, port: int = 0, backend: str = "auto") -> None:
        self.zim = check_zim_file(Path(zim))
        self.backend = choose_backend(self.zim, backend)
        self._kiwix: KiwixServer | None = None
        self._thread: ThreadServer | None = None
        if self.backend == "kiwix":
            self._kiwix = KiwixServer(self.zim, port)
            self.url = self._kiwix.url
            self.search_url = self._kiwix.search_url
            self.main_url = self._kiwix.main_url
            self.title = self.zim.stem
        else:
            book = ZimBook(self.zim)
            app = make_wiki_app(book)
            # short graceful shutdown: browsers keep connections open between page loads
            self._thread = ThreadServer(app, port=port, lifespan="off", timeout_graceful_shutdown=1)
            self._thread.start()
            self.url = self._thread.url
            self.search_url = f"{self.url}/search"
            self.main_url = f"{self.url}/"
            self.title = book.title

    def describe(self) -> str:
        return f"{self.zim.name} ({self.title}) served by {self.backend} at {self.url}"

    def serve_forever(self) -> None:
        """Block until Ctrl-C (KeyboardInterrupt, for the caller to catch), then close."""
        try:
            while True:
                time.sleep(0.5)
        finally:
            self.close()

    def close(self) -> None:
        if self._kiwix is not None:
            self._kiwix.close()
            self._kiwix = None
        if self._thread is not None:
            self._thread.stop()
            self._thread = None

    def __enter__(self) -> WikiServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_qa(
    task_set: TaskSet, zim: str | Path, stack: contextlib.ExitStack, *, backend: str = "auto"
) -> tuple[TaskSet, str]:
    """QA on an offline Wikipedia: serve ``zim`` until ``stack`` closes. Returns the tasks,
    each starting at the wiki's search page, and the wiki's origin, which sessions must allow
    (the env's own server). How `run --wiki`, `serve --wiki` and ``webdojo.make`` serve it."""
    wiki = stack.enter_context(WikiServer(zim, backend=backend))
    return on_wiki(task_set, wiki.search_url), wiki.url
