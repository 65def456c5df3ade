"""Fixtures for the viewer tests: run directories, live viewer servers, headless Chromium.

* ``scripted_run`` / ``random_run``: real runs of ``webdojo run`` (the library call) with the
  scripted and the random policy on the first 6 built-in tasks.
* ``interrupted_run``: the random run as a crash leaves it: the last episode records never
  written and the last step line cut in half.
* ``edge_run``: a run written with ``RunStore`` holding what the real runs may lack (faults,
  unparsed output, 0-1000 points, element boxes, missing screenshots, unfinished episodes);
  see ``viewer_runs``.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect
from viewer_runs import CHROMIUM, CHROMIUM_ARGS, build_run, task_file

from webdojo.viewer.app import create_app
from webdojo.viewer.server import ViewerServer

expect.set_options(timeout=20_000)  # the 5 s default is short on a loaded 2-core machine
REAL_TASKS = "builtin"
REAL_LIMIT = 6


async def real_run(out: Path, policy: str) -> Path:
    from webdojo.policies import make_policy
    from webdojo.rollout.run import RunConfig, run_job
    from webdojo.tasks.loader import load_spec

    config = RunConfig(
        tasks=REAL_TASKS,
        policy=policy,
        limit=REAL_LIMIT,
        seed=0,
        out=str(out),
    )
    await run_job(config, load_spec(REAL_TASKS), make_policy(policy, seed=0))
    return out


@pytest.fixture(scope="session")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("viewer-runs")


@pytest.fixture(scope="session")
async def scripted_run(runs_root: Path) -> Path:
    return await real_run(runs_root / "scripted", "scripted")


@pytest.fixture(scope="session")
async def random_run(runs_root: Path) -> Path:
    return await real_run(runs_root / "random", "random")


@pytest.fixture(scope="session")
def interrupted_run(runs_root: Path, random_run: Path) -> Path:
    root = runs_root / "interrupted"
    shutil.copytree(random_run, root)
    episodes = (root / "episodes.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "episodes.jsonl").write_text("".join(episodes[:-2]), encoding="utf-8")
    steps = (root / "steps.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cut = steps[-1][: len(steps[-1]) // 2]  # a write cut short: no newline, half a record
    (root / "steps.jsonl").write_text("".join(steps[:-1]) + cut, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
async def edge_run(runs_root: Path) -> Path:
    return await build_run(runs_root / "edge", task_file(runs_root / "edge-tasks.json"))


@pytest.fixture(scope="session")
def viewer(scripted_run: Path, random_run: Path) -> Iterator[ViewerServer]:
    """The viewer on both real runs (a = scripted, b = random), on a free loopback port."""
    with ViewerServer(create_app([scripted_run, random_run])) as server:
        yield server


@pytest.fixture(scope="session")
def edge_viewer(edge_run: Path) -> Iterator[ViewerServer]:
    with ViewerServer(create_app([edge_run])) as server:
        yield server


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    context = await browser.new_context(viewport={"width": 1440, "height": 1000})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    await context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
