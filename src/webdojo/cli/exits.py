"""Exit codes of the commands that call a model, in one place.

0  done
2  bad input (a WebdojoError: a bad flag, file or spec), nothing done
3  the model endpoint failed (ModelError); what was done is kept, and the same command
   resumes

and the two ways every command reports: ``fail`` (a WebdojoError on stderr, exit 2) and
``emit_json`` (with ``--json``, one JSON object as the last stdout line).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from webdojo.errors import ModelError, WebdojoError


@contextmanager
def model_command_exits(errors: Console) -> Iterator[None]:
    """Print a WebdojoError on ``errors`` and exit 3 (model endpoint) or 2 (anything else)."""
    try:
        yield
    except ModelError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=3) from exc
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=2) from exc


_stderr = Console(stderr=True, soft_wrap=True)


def fail(exc: WebdojoError) -> typer.Exit:
    """Print ``exc`` on stderr; the exit (code 2) for the caller to raise."""
    _stderr.print(f"[red]error[/red] {escape(str(exc))}")
    return typer.Exit(code=2)


def emit_json(data: dict[str, Any]) -> None:
    """The last line on stdout: one JSON object."""
    print(json.dumps(data, sort_keys=False))
