"""``webdojo tasks ...``: bring task sets in and shape them (import, rubric, decompose, split,
sample, stats). Each group of commands lives in its own ``cli/tasks_*.py`` module and is
registered here."""

from __future__ import annotations

import typer

from webdojo.cli.tasks_families import register as register_families
from webdojo.cli.tasks_generate import register as register_generate
from webdojo.cli.tasks_import import register as register_import
from webdojo.cli.tasks_shape import register as register_shape_commands

tasks_app = typer.Typer(
    no_args_is_help=True,
    help="Task sets: import public benchmarks, generate rubrics, decompose, split, sample, stats; task families.",
)

register_import(tasks_app)  # import
register_generate(tasks_app)  # rubric, decompose
register_shape_commands(tasks_app)  # split, sample, block, stats
register_families(tasks_app)  # families
