"""``webdojo tasks ...``: bring task sets in and shape them (import, rubric, decompose, split,
sample, stats). Each group of commands lives in its own ``cli/tasks_*.py`` module and is
registered here."""

from __future__ import annotations

import typer

from webdojo.cli.tasks_import import register as register_import

tasks_app = typer.Typer(
    no_args_is_help=True,
    help="Task sets: import public benchmarks, generate rubrics, decompose, split, sample, stats.",
)
register_import(tasks_app)  # webdojo tasks import
