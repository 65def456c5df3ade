"""``python -m webdojo.cli``: the same as the ``webdojo`` console script."""

from webdojo.cli import app

app()
