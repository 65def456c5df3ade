"""The viewer's web app: a JSON API over one or two run directories, and a static front end.

Routes (the API is described by FastAPI's OpenAPI document at ``/openapi.json``):

* ``GET /``                                  the single-page front end (``static/``)
* ``GET /api/runs``                          the runs being viewed (``a``, and ``b`` to compare)
* ``GET /api/runs/{run}/overview``           totals, success by site/difficulty, episode list
* ``GET /api/runs/{run}/version``            a token that changes when the run's files do
* ``GET /api/runs/{run}/episode?key=K``      one episode with every step
* ``GET /api/runs/{run}/plots/{name}.svg``   plots of the overview
* ``GET /api/compare``                       run a against run b, per task
* ``GET /runs/{run}/files/{path}``           a file inside that run directory, nothing else

Files are served only from inside their run directory: ``..``, absolute paths and symlinks
that lead out of it all get 404.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Query
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from webdojo.viewer.compare import compare_runs
from webdojo.viewer.plots import PLOTS, render_plot
from webdojo.viewer.runs import LiveRun, safe_path
from webdojo.viewer.views import episode_detail, overview

STATIC = Path(__file__).parent / "static"
RUN_IDS = ("a", "b")
NO_CACHE = {"Cache-Control": "no-store"}  # runs may still be growing
IMMUTABLE = {"Cache-Control": "max-age=31536000, immutable"}


Runs = dict[str, LiveRun]  # run id (``a``, ``b``) -> the run directory it views


def create_app(run_dirs: list[Path]) -> FastAPI:
    """An app viewing ``run_dirs`` (one, or two to compare)."""
    if not 1 <= len(run_dirs) <= len(RUN_IDS):
        raise ValueError("view one run directory, or two to compare")
    runs: Runs = {rid: LiveRun(Path(d)) for rid, d in zip(RUN_IDS, run_dirs, strict=False)}
    app = FastAPI(title="webdojo viewer", docs_url=None, redoc_url=None)
    _add_front_end(app, runs)
    _add_run_views(app, runs)
    _add_files(app, runs)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _live(runs: Runs, rid: str) -> LiveRun:
    run = runs.get(rid)
    if run is None:
        raise HTTPException(404, f"no run {rid!r}")
    return run


def _add_front_end(app: FastAPI, runs: Runs) -> None:
    """The page itself, the list of runs, and the comparison of run a with run b."""

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=NO_CACHE)

    @app.get("/api/runs")
    def list_runs() -> list[dict[str, Any]]:
        """The runs being viewed."""
        return [
            {"id": rid, "path": str(run.root), "name": run.root.name or str(run.root)}
            for rid, run in runs.items()
        ]

    @app.get("/api/compare")
    def compare() -> dict[str, Any]:
        """Run a against run b: per-key outcome changes and success by site."""
        if "b" not in runs:
            raise HTTPException(404, "only one run is being viewed (start with --compare)")
        return compare_runs(runs["a"].get(), runs["b"].get())


def _add_run_views(app: FastAPI, runs: Runs) -> None:
    """The JSON views of one run: overview, version token, episode, plots."""

    @app.get("/api/runs/{rid}/overview")
    def run_overview(rid: str) -> dict[str, Any]:
        """Meta and problems, totals, success by site and by difficulty, every episode."""
        run = _live(runs, rid)
        token = run.version()  # before reading: a change in between costs one extra reload
        return overview(run.get()) | {"version": token}

    @app.get("/api/runs/{rid}/version")
    def run_version(rid: str) -> dict[str, str]:
        """Polled by an open overview, which reloads itself when the token changes (a run
        that is still being written)."""
        return {"version": _live(runs, rid).version()}

    @app.get("/api/runs/{rid}/episode")
    def run_episode(
        rid: str, key: str = Query(..., description="episode key, task#repeat")
    ) -> dict[str, Any]:
        """One episode: its record, task, verdict and every step with its action overlay."""
        detail = episode_detail(_live(runs, rid).get(), key, file_url=f"runs/{rid}/files/")
        if detail is None:
            raise HTTPException(404, f"no episode {key!r} in run {rid!r}")
        return detail

    @app.get("/api/runs/{rid}/plots/{name}.svg", response_class=Response)
    def run_plot(rid: str, name: str) -> Response:
        """A plot (``success_by_difficulty`` or ``episode_lengths``) as SVG."""
        if name not in PLOTS:
            raise HTTPException(404, f"no plot {name!r}")
        svg = render_plot(name, overview(_live(runs, rid).get()))
        return Response(svg, media_type="image/svg+xml", headers=NO_CACHE)


def _add_files(app: FastAPI, runs: Runs) -> None:
    """Files of a run directory (screenshots), and nothing outside it."""

    @app.get("/runs/{rid}/files/{path:path}", include_in_schema=False)
    def run_file(rid: str, path: str) -> FileResponse:
        found = safe_path(_live(runs, rid).root, path)
        if found is None:
            raise HTTPException(404, "not found")
        immutable = path.startswith("screenshots/")  # content-addressed: never change
        return FileResponse(found, headers=IMMUTABLE if immutable else NO_CACHE)
