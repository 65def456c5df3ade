"""A Typer group whose sub-groups are imported only when one of their commands runs, or when
help lists them: each command then loads what it needs and no more."""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

import typer
from typer.core import TyperGroup

# Typer ships its own copy of Click: its types, not the `click` package's.
Context = Any
Command = Any


class LazyGroup(TyperGroup):
    """Names mapped to ``module:attribute`` of a ``typer.Typer``, beside the commands the
    group was built with."""

    lazy: ClassVar[dict[str, str]] = {}

    @classmethod
    def of(cls, lazy: dict[str, str]) -> type[LazyGroup]:
        return type("LazyGroup", (cls,), {"lazy": dict(lazy)})

    def load_all(self) -> LazyGroup:
        """Every lazy group imported, so that ``commands`` holds the whole tree: for walkers
        that read it (the docs' CLI reference) instead of asking ``get_command``."""
        for name in self.list_commands(None):
            self.get_command(None, name)
        return self

    def list_commands(self, ctx: Context) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.lazy if n not in self.commands)]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            self.add_command(_load(self.lazy[cmd_name], cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)


def _load(target: str, name: str) -> Command:
    """The group of the Typer app at ``target``, as ``app.add_typer(sub_app, name=name)``
    makes it (a group even when the app has one command: `webdojo wiki serve`)."""
    module, _, attribute = target.partition(":")
    sub_app: typer.Typer = getattr(importlib.import_module(module), attribute)
    group = typer.main.get_group(sub_app)
    group.name = name
    return group
