"""Exit codes of the commands that call a model, in one place.

0  done
2  bad input (a WebdojoError: a bad flag, file or spec), nothing done
3  the model endpoint failed (ModelError); what was done is kept, and the same command
   resumes
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

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
