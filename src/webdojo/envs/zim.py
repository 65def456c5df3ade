"""Reading a ZIM file (the archive format of offline Wikipedias) through PyPI's ``libzim``.

``ZimBook`` answers the three questions a wiki server asks: what is at this path (content and
mimetype, or where a redirect leads), which page is the main one, and which articles match a
search. Search is full text (libzim's ``Searcher``) when the ZIM carries a full-text index,
else title suggestions (``SuggestionSearcher``), which every ZIM with a title index supports.

libzim is optional (``pip install 'webdojo[envs]'``); without it, and for a missing file or one
that is not a ZIM, opening raises ``MissingDependency`` / ``ZimError`` naming the fix.
libzim's ``Archive`` is safe to read from several threads, so one book serves a threaded server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webdojo.errors import MissingDependency, ZimError

INSTALL_LIBZIM = "pip install libzim  (or: pip install 'webdojo[envs]')"
MAX_REDIRECTS = 10  # a redirect chain longer than this is a broken ZIM, not a page
ZIM_MAGIC = b"ZIM\x04"  # the first four bytes of every ZIM file (magic number 72173914, LE)


@dataclass(frozen=True)
class Content:
    """One stored item: its bytes and mimetype."""

    path: str
    title: str
    mimetype: str
    body: bytes


@dataclass(frozen=True)
class Hit:
    """One search result: the entry's path and title."""

    path: str
    title: str


@dataclass(frozen=True)
class SearchPage:
    """A page of search results; ``fulltext`` says which search gave them."""

    pattern: str
    hits: list[Hit]
    estimated: int  # libzim's estimate of all matches (not only this page)
    fulltext: bool


def libzim_module() -> Any:
    """The ``libzim`` package, or ``MissingDependency`` saying how to install it."""
    try:
        import libzim.reader  # the submodules used below
        import libzim.search
        import libzim.suggestion
    except ImportError as exc:
        raise MissingDependency(
            f"reading ZIM files needs the libzim package: {INSTALL_LIBZIM}"
        ) from exc
    import libzim

    return libzim


def check_zim_file(path: Path) -> Path:
    """``path`` resolved, after checking that it exists and starts like a ZIM file."""
    if not path.exists():
        raise ZimError(f"{path}: no such ZIM file", path=str(path))
    if not path.is_file():
        raise ZimError(f"{path}: not a file (expected a .zim file)", path=str(path))
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise ZimError(f"{path}: cannot read: {exc.strerror}", path=str(path)) from exc
    if head != ZIM_MAGIC:
        raise ZimError(
            f"{path}: not a ZIM file (it does not start with the ZIM magic number); download "
            "ZIM files from https://download.kiwix.org/zim/",
            path=str(path),
        )
    return path.resolve()


class ZimBook:
    """An opened ZIM file (read-only)."""

    def __init__(self, path: str | Path) -> None:
        self.path = check_zim_file(Path(path))
        libzim = libzim_module()
        try:
            self._archive = libzim.reader.Archive(self.path)
        except RuntimeError as exc:  # libzim's error for a corrupt or truncated file
            raise ZimError(
                f"{self.path}: libzim cannot open it: {exc}", path=str(self.path)
            ) from exc
        self._libzim = libzim

    @property
    def title(self) -> str:
        """The ZIM's ``Title`` metadata, else the file name."""
        try:
            return bytes(self._archive.get_metadata("Title")).decode("utf-8").strip()
        except (KeyError, RuntimeError, UnicodeDecodeError):
            return self.path.stem

    @property
    def has_fulltext_index(self) -> bool:
        return bool(self._archive.has_fulltext_index)

    @property
    def article_count(self) -> int:
        return int(self._archive.article_count)

    def main_path(self) -> str | None:
        """The path of the main page (redirects followed), or None when the ZIM has none."""
        if not self._archive.has_main_entry:
            return None
        return str(self._follow(self._archive.main_entry).path)

    def redirect_of(self, path: str) -> str | None:
        """Where the entry at ``path`` leads when it is a redirect (to the end of the chain)."""
        entry = self._entry(path)
        if entry is None or not entry.is_redirect:
            return None
        return str(self._follow(entry).path)

    def get(self, path: str) -> Content | None:
        """The item at ``path`` (redirects followed), or None when there is none."""
        entry = self._entry(path)
        if entry is None:
            return None
        entry = self._follow(entry)
        item = entry.get_item()
        return Content(str(entry.path), str(entry.title), str(item.mimetype), bytes(item.content))

    def search(self, pattern: str, start: int = 0, count: int = 20) -> SearchPage:
        """Articles matching ``pattern``: full text when indexed, else by title."""
        pattern = pattern.strip()
        if not pattern:
            return SearchPage(pattern, [], 0, self.has_fulltext_index)
        if self.has_fulltext_index:
            searcher = self._libzim.search.Searcher(self._archive)
            found = searcher.search(self._libzim.search.Query().set_query(pattern))
        else:
            found = self._libzim.suggestion.SuggestionSearcher(self._archive).suggest(pattern)
        paths = [str(p) for p in found.getResults(start, count)]
        hits = [Hit(p, self._title_of(p)) for p in paths]
        estimated = int(found.getEstimatedMatches())
        if len(hits) < count:  # the last page: the count is known exactly
            estimated = start + len(hits)
        return SearchPage(pattern, hits, max(estimated, start + len(hits)), self.has_fulltext_index)

    # --- internals ------------------------------------------------------------------------

    def _entry(self, path: str) -> Any:
        if not path or not self._archive.has_entry_by_path(path):
            return None
        return self._archive.get_entry_by_path(path)

    def _follow(self, entry: Any) -> Any:
        for _ in range(MAX_REDIRECTS):
            if not entry.is_redirect:
                return entry
            entry = entry.get_redirect_entry()
        raise ZimError(f"{self.path}: a redirect chain longer than {MAX_REDIRECTS} entries")

    def _title_of(self, path: str) -> str:
        entry = self._entry(path)
        return path if entry is None else str(entry.title or path)
