"""The documentation as the docs tests read it: the pages, their fenced blocks, inline code and
links, each with the line it starts on (so a failure names the page and the line).

A plain module (not conftest) so test files import it by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GENERATED = DOCS / "gen"  # the generators; their pages exist only in a build
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language tag and its lines, numbered as in the file."""

    page: Path
    lang: str
    lines: tuple[tuple[int, str], ...]  # (line number, text without the fence's indent)


@dataclass(frozen=True)
class Snippet:
    """One line of text or code on a page, with where it is."""

    page: Path
    line: int
    text: str

    @property
    def where(self) -> str:
        """``page:line``, the page relative to the repository when it is in it."""
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"


def pages() -> list[Path]:
    """Every hand-written markdown page, and the README."""
    found = [p for p in sorted(DOCS.rglob("*.md")) if GENERATED not in p.parents]
    return [ROOT / "README.md", *found]


def blocks(page: Path) -> Iterator[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        start = FENCE.match(lines[i])
        i += 1
        if not start:
            continue
        indent, fence, lang = start.groups()
        body: list[tuple[int, str]] = []
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append((i + 1, lines[i][len(indent) :]))
            i += 1
        i += 1
        yield Block(page, lang, tuple(body))


def prose(page: Path) -> Iterator[Snippet]:
    """The lines outside fenced blocks."""
    in_fence: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        start = FENCE.match(line)
        if in_fence is None and start:
            in_fence = start.group(2)
        elif in_fence is not None and line.strip().startswith(in_fence):
            in_fence = None
        elif in_fence is None:
            yield Snippet(page, number, line)


def inline_code(page: Path) -> Iterator[Snippet]:
    for snippet in prose(page):
        for match in INLINE_CODE.finditer(snippet.text):
            yield Snippet(page, snippet.line, match.group(1))


def links(page: Path) -> Iterator[Snippet]:
    for snippet in prose(page):
        for match in LINK.finditer(snippet.text):
            yield Snippet(page, snippet.line, match.group(1))
