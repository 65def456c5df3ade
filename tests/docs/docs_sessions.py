"""Shell sessions in the docs (```console blocks) as steps to run: a ``$ `` command and the
output shown under it.

Expected output is matched loosely, so that pages stay readable: each shown line must appear
in the real output, in order, with runs of spaces collapsed; ``...`` stands for lines left
out. Only what does not change from run to run may be shown (no timings, no temp paths).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from docs_pages import Block, Snippet, blocks

ELIDED = "..."
# The pages whose console sessions the tests run (test_shell_sessions.py).
RUNNABLE = ("quickstart.md", "tutorials/write-a-site.md")


@dataclass(frozen=True)
class Step:
    command: Snippet
    expected: tuple[str, ...]  # shown output lines, "..." dropped


def steps(page: Path) -> list[Step]:
    """Every console command of the page, in order."""
    out: list[Step] = []
    for block in blocks(page):
        if block.lang == "console":
            out += _block_steps(block)
    return out


def _block_steps(block: Block) -> list[Step]:
    found: list[tuple[Snippet, list[str]]] = []
    for number, text in block.lines:
        if text.startswith("$ "):
            found.append((Snippet(block.page, number, text[2:].strip()), []))
        elif found and text.strip() != ELIDED and text.strip():
            found[-1][1].append(text)
    return [Step(command, tuple(lines)) for command, lines in found]


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def missing_output(expected: tuple[str, ...], output: str) -> str | None:
    """The first expected line not found (in order) in ``output``, or None."""
    real = [_squeeze(line) for line in output.splitlines()]
    at = 0
    for line in expected:
        want = _squeeze(line)
        while at < len(real) and want not in real[at]:
            at += 1
        if at == len(real):
            return line
        at += 1
    return None
