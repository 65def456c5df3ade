"""The ``view`` and ``report`` commands, registered on the main Typer app by ``cli/app.py``."""

from __future__ import annotations

import contextlib
import json
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from webdojo.errors import WebdojoError
from webdojo.viewer import DEFAULT_HOST, DEFAULT_PORT, REPORT_NAME

console = Console(soft_wrap=True)  # paths and URLs stay on one line, copy-pastable


def _require_dir(path: Path) -> None:
    if not path.is_dir():
        what = "is not a directory" if path.exists() else "does not exist"
        console.print(f"[red]error[/red] the run directory {path} {what}")
        raise typer.Exit(code=2)


def view(
    run_dir: Annotated[Path, typer.Argument(help="a run directory written by `webdojo run`")],
    compare: Annotated[
        Path | None,
        typer.Option(help="a second run directory to compare with (e.g. another policy)"),
    ] = None,
    port: Annotated[int, typer.Option(help="port to listen on (0: any free port)")] = DEFAULT_PORT,
    host: Annotated[
        str, typer.Option(help="address to bind; the default serves this machine only")
    ] = DEFAULT_HOST,
    open_browser: Annotated[bool, typer.Option("--open", help="open it in a web browser")] = False,
) -> None:
    """Look at a run in a local web page: overview, every episode step by step, comparisons.

    A run still being written is re-read whenever its files have changed (reload the page)."""
    from webdojo.viewer.app import create_app
    from webdojo.viewer.server import ViewerServer

    dirs = [run_dir] if compare is None else [run_dir, compare]
    for directory in dirs:
        _require_dir(directory)
    try:
        server = ViewerServer(create_app(dirs), host=host, port=port)
    except WebdojoError as exc:
        console.print(f"[red]error[/red] {exc}")
        raise typer.Exit(code=2) from exc
    console.print(f"webdojo viewer on [bold]{server.url}[/bold]  (Ctrl-C to stop)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(
            "[yellow]note[/yellow] listening beyond this machine: anyone who can reach it sees the run"
        )
    if open_browser:
        webbrowser.open(server.url)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises Ctrl-C after shutting down
        server.run()
    console.print("viewer stopped")


def report(
    run_dir: Annotated[Path, typer.Argument(help="a run directory written by `webdojo run`")],
    out: Annotated[
        Path | None, typer.Option(help="HTML file to write (default: RUN_DIR/report.html)")
    ] = None,
    examples: Annotated[
        int, typer.Option(help="example episodes to include, with screenshots")
    ] = 3,
    compare: Annotated[
        Path | None,
        typer.Option(help="another run directory: add a task-by-task comparison with it"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {report, bytes} as JSON")] = False,
) -> None:
    """Write one self-contained HTML file to share: tables, plots and example episodes."""
    from webdojo.viewer.report import write_report

    _require_dir(run_dir)
    if compare is not None:
        _require_dir(compare)
    target = write_report(
        run_dir, out or run_dir / REPORT_NAME, examples=examples, compare_to=compare
    )
    size = target.stat().st_size
    console.print(f"report written to [bold]{target}[/bold] ({size / 1024:.0f} KiB)")
    if as_json:
        print(json.dumps({"report": str(target), "bytes": size}))


def register(app: typer.Typer) -> None:
    """Add ``view`` and ``report`` to the main ``webdojo`` app."""
    app.command("view")(view)
    app.command("report")(report)
