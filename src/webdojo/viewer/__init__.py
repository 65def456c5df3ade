"""Looking at runs: a local web viewer (``webdojo view``) and a shareable report
(``webdojo report``). See ``app`` for the routes and ``report`` for the HTML file."""

from __future__ import annotations

from pathlib import Path

# Here, not in the modules that use them, so the command line's options read them without
# importing the viewer's server or views.
DEFAULT_HOST = "127.0.0.1"  # loopback unless told otherwise
DEFAULT_PORT = 8600
REPORT_NAME = "report.html"  # the report's default place, inside the run directory


def write_report(
    run_dir: Path, out: Path, examples: int = 3, compare_to: Path | None = None
) -> Path:
    """Write a self-contained HTML report of ``run_dir`` to ``out``; returns ``out``. With
    ``compare_to``, the report also compares the run with that one, task by task."""
    from webdojo.viewer.report import write_report as _write

    return _write(run_dir, out, examples=examples, compare_to=compare_to)


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "REPORT_NAME", "write_report"]
