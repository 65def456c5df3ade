"""``webdojo wiki serve ZIM``: an offline Wikipedia for people to browse (and agents to use)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from webdojo.errors import WebdojoError

wiki_app = typer.Typer(no_args_is_help=True, help="An offline Wikipedia from a ZIM file.")
console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)


@wiki_app.command("serve")
def serve(
    zim: Annotated[Path, typer.Argument(help="a .zim file (e.g. from download.kiwix.org)")],
    port: Annotated[int, typer.Option(help="port on 127.0.0.1; 0 picks a free one")] = 8800,
    backend: Annotated[
        str,
        typer.Option(help="auto (kiwix-serve if installed and the ZIM is indexed), kiwix, libzim"),
    ] = "auto",
) -> None:
    """Serve a ZIM file on 127.0.0.1 until Ctrl-C; prints the URL and the search page's."""
    from webdojo.envs.wiki_server import WikiServer

    try:
        server = WikiServer(zim, port=port, backend=backend)
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=2) from exc
    try:  # Ctrl-C may come as soon as the URL is out: a clean stop either way
        console.print(f"serving {escape(server.describe())}")
        console.print(f"search page: {server.search_url}")
        console.print(server.url, markup=False, highlight=False)  # the last line: the URL alone
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
