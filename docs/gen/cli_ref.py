"""The CLI reference page, walked from the Typer app: every command, argument and option.

Typer 0.29 ships its own copy of click, so the walk reads the few attributes every click-like
command has (``commands``, ``params``, ``help``) instead of a click-specific plugin.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
import yaml
from md_text import cell, prose

from webdojo.cli.app import app

EXAMPLES = Path(__file__).with_name("cli_examples.yaml")


@dataclass(frozen=True)
class Command:
    """One command of the tree: its words after ``webdojo`` and the click-like object."""

    path: tuple[str, ...]
    obj: Any

    @property
    def name(self) -> str:
        return " ".join(("webdojo", *self.path))

    @property
    def anchor(self) -> str:
        return "-".join(("webdojo", *self.path))

    @property
    def is_group(self) -> bool:
        return hasattr(self.obj, "commands")


def root() -> Any:
    return typer.main.get_command(app).load_all()  # type: ignore[attr-defined]


def walk(obj: Any | None = None, path: tuple[str, ...] = ()) -> Iterator[Command]:
    """Every visible command and group, depth first, in the order ``--help`` lists them."""
    obj = root() if obj is None else obj
    yield Command(path, obj)
    for name, sub in getattr(obj, "commands", {}).items():
        if not sub.hidden:
            yield from walk(sub, (*path, name))


def examples() -> dict[str, list[str]]:
    """The hand-written example lines of each command (``cli_examples.yaml``)."""
    loaded = yaml.safe_load(EXAMPLES.read_text(encoding="utf-8"))
    return {name: list(lines) for name, lines in loaded.items()}


def _type(param: Any, ctx: Any) -> str:
    try:  # the metavar Typer prints in --help, e.g. <int range> [x>=1]
        return str(param.display_type_rich(ctx)).strip()
    except (AttributeError, TypeError):
        return ""


def _default(param: Any) -> str:
    if param.required or callable(param.default) or param.default in (None, (), []):
        return ""
    if getattr(param, "is_flag", False) and param.default is False:
        return ""
    return f"`{param.default}`"


def _options(command: Command) -> list[str]:
    ctx = typer.Context(command.obj, info_name=command.path[-1] if command.path else "webdojo")
    params = [p for p in command.obj.params if not getattr(p, "hidden", False)]
    if not params:
        return []
    rows = ["| name | type | default | what |", "|---|---|---|---|"]
    for p in params:
        if p.param_type_name == "argument":
            name = f"`{p.name.upper()}`" + (" (required)" if p.required else "")
        else:
            name = " / ".join(f"`{o}`" for o in (*p.opts, *p.secondary_opts))
            name += " (required)" if p.required else ""
        what = getattr(p, "help", None) or ""
        if getattr(p, "envvar", None):
            what += f" (env: `{p.envvar}`)"
        rows.append(f"| {name} | {cell(_type(p, ctx))} | {_default(p)} | {cell(what)} |")
    return rows


def _section(command: Command, lines: list[str]) -> list[str]:
    level = "#" * min(2 + max(len(command.path) - 1, 0), 4)
    out = [f"{level} `{command.name}` {{#{command.anchor}}}", ""]
    out += [prose((command.obj.help or "").strip()), ""]
    if command.is_group:
        subs = [f"`{command.name} {n}`" for n, s in command.obj.commands.items() if not s.hidden]
        out += ["Subcommands: " + ", ".join(subs) + ".", ""]
    out += _options(command)
    if lines:
        out += ["", "Example:", "", "```bash", *lines, "```"]
    return [*out, ""]


def page() -> str:
    """The whole reference page as markdown."""
    known = examples()
    commands = [c for c in walk() if c.path]
    out = [
        "# Command line reference",
        "",
        "Generated from the Typer app (`webdojo.cli.app`) when the site is built, so it lists",
        "exactly the commands and flags of this version. `webdojo COMMAND --help` prints the",
        "same. Every command with `--json` prints a JSON object as its last stdout line.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for c in commands:
        summary = (c.obj.help or "").strip().split("\n\n")[0].replace("\n", " ")
        out.append(f"| [`{c.name}`](#{c.anchor}) | {cell(summary)} |")
    out.append("")
    for c in commands:
        out += _section(c, known.get(c.name, []))
    return "\n".join(out)
