"""The ``webdojo`` command line and the glue that only it needs. ``app``: the Typer app and
most commands (the console script ``webdojo = "webdojo.cli:app"``); ``run``: what ``webdojo
run`` wires together; ``viewer``: the ``view`` and ``report`` commands. Nothing else in
webdojo imports this package.
"""

from webdojo.cli.app import app

__all__ = ["app"]
