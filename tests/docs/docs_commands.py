"""Checks a documented command against the code: a ``webdojo`` line against the Typer app (its
subcommands exist, every ``--flag`` is one of the command's options), a ``make`` line against
the Makefile's targets, a ``python -m`` line against the installed modules.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import typer
from docs_pages import ROOT, Block, Snippet

from webdojo.cli.app import app

# `webdojo judge RUN_DIR` is `webdojo judge run RUN_DIR`: the group sends arguments that name
# no subcommand to `run` (webdojo/cli/judge.py)
DEFAULT_SUBCOMMAND = {"judge": "run"}
ANY_SUBCOMMAND = "..."  # "webdojo tasks ...": some subcommand, on an overview page
SHELL_LANGS = {"", "bash", "sh", "shell", "console"}
PROGRAM = re.compile(r"^(?:\$\s+)?(?:\S*/)?(webdojo|make|python3?)\s+(.*)$")
FLAG = re.compile(r"--[a-z0-9][a-z0-9-]*")
TARGET = re.compile(r"^([a-z][a-z0-9-]*):", re.M)


@cache
def _root() -> Any:
    root: Any = typer.main.get_command(app)
    return root.load_all()  # the lazy groups too: the walk below reads .commands


@cache
def make_targets() -> frozenset[str]:
    return frozenset(TARGET.findall((ROOT / "Makefile").read_text(encoding="utf-8")))


def _strip_comment(text: str) -> str:
    return re.split(r"\s#\s", f" {text} ", maxsplit=1)[0].strip()


def command_lines(block: Block) -> Iterator[Snippet]:
    """The command lines of a shell block, continuation lines joined. In a ``console`` block
    only ``$ `` lines are commands; the rest is output."""
    if block.lang not in SHELL_LANGS:
        return
    pending: Snippet | None = None
    for number, raw in block.lines:
        text = raw.strip()
        if pending is not None:
            joined = f"{pending.text} {text}"
            pending = Snippet(block.page, pending.line, joined.rstrip("\\").strip())
            if not text.endswith("\\"):
                yield pending
                pending = None
            continue
        if block.lang == "console" and not text.startswith("$ "):
            continue
        snippet = Snippet(block.page, number, text.rstrip("\\").strip())
        if text.endswith("\\"):
            pending = snippet
        else:
            yield snippet


def _webdojo_problem(words: list[str]) -> str | None:
    command, path = _root(), ["webdojo"]
    rest = list(words)
    while hasattr(command, "commands") and rest:
        word = rest[0]
        if word == ANY_SUBCOMMAND:
            return None
        choices = word.replace("\\", "").split("|")  # "sft|rl": each must exist
        if all(choice in command.commands for choice in choices):
            rest.pop(0)
            command, path = command.commands[choices[0]], [*path, choices[0]]
        elif word.startswith("-") or getattr(command, "invoke_without_command", False):
            break
        elif path[-1] in DEFAULT_SUBCOMMAND:
            name = DEFAULT_SUBCOMMAND[path[-1]]
            command, path = command.commands[name], [*path, name]
        else:
            return f"no command {word!r} in `{' '.join(path)}`"
    known = {"--help"}
    for param in command.params:
        known.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    for word in rest:
        flag = FLAG.match(word.lstrip("[\"'("))  # "[--template" in a usage line
        if flag and flag.group(0) not in known:
            return f"`{' '.join(path)}` has no option {flag.group(0)}"
    return None


def problem(text: str) -> str | None:
    """Why a documented command line would not run, or None when it names real things."""
    match = PROGRAM.match(_strip_comment(text))
    if not match:
        return None
    program, args = match.groups()
    words = args.split()
    if program == "webdojo":
        return None if words[:1] == ["="] else _webdojo_problem(words)  # pyproject's script line
    if program == "make":
        targets = [w for w in words if re.fullmatch(r"[a-z][a-z0-9-]*", w)]
        missing = [t for t in targets if t not in make_targets()]
        return f"no make target {missing[0]!r}" if missing else None
    module = words[1] if words[:1] == ["-m"] and len(words) > 1 else ""
    if module.startswith("webdojo") and importlib.util.find_spec(module) is None:
        return f"no module {module}"
    return None


def inline_command(snippet: Snippet) -> bool:
    """Inline code that is a command line (``webdojo run --tasks X``), not a module name."""
    return bool(re.match(r"^(webdojo|make)\s", snippet.text))
