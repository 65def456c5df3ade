"""``webdojo sites check``: is a site directory fit to train on?

For every site: load each page in ``site.json`` and report console errors, page errors and
failed requests. For every task: replay the reference solution (its verifier must pass) and each
wrong solution (its verifier must fail). A user's own sites get the same checks as ours.

The replays take no screenshots: verifiers read the final page state, and capturing cost
about a fifth of the check's time (measured with the full Chromium).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import ConsoleMessage, Request, Response
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.errors import WebdojoError
from webdojo.observation import ObservationOptions
from webdojo.policies.scripted import ScriptedPolicy
from webdojo.rollout.env_client import InProcessEnv
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.sites.server import SiteServer
from webdojo.store.records import EpisodeRecord
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.tasks.schema import Task

CHECK_CONCURRENCY = 4  # saturates 2 cores; more only adds memory


@dataclass
class PageResult:
    site: str
    page: str
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class TaskResult:
    task_id: str
    site: str
    difficulty: int
    reference_passed: bool | None  # None: not replayed (``check_sites(references=False)``)
    reference_steps: int
    wrong_rejected: list[bool]  # one per wrong solution: True when the verifier failed it
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.reference_passed is not False and all(self.wrong_rejected) and not self.problems


@dataclass
class CheckReport:
    pages: list[PageResult]
    tasks: list[TaskResult]

    @property
    def ok(self) -> bool:
        return all(p.ok for p in self.pages) and all(t.ok for t in self.tasks)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "pages": [asdict(p) | {"ok": p.ok} for p in self.pages],
            "tasks": [asdict(t) | {"ok": t.ok} for t in self.tasks],
        }


async def check_sites(
    spec: str, progress_console: Console | None = None, *, references: bool = True
) -> CheckReport:
    """Check every page and task of ``spec``. ``references=False`` replays only the wrong
    solutions, for callers that replay the references elsewhere (our test suite's main job)."""
    task_set = load_spec(spec)
    with SiteServer(task_set.sites) as server, tempfile.TemporaryDirectory() as scratch:
        env = InProcessEnv(server)
        store = RunStore(Path(scratch))
        try:
            return await _check_all(task_set, env, server, store, progress_console, references)
        finally:
            store.close()
            await env.aclose()


async def _check_all(
    task_set: TaskSet,
    env: InProcessEnv,
    server: SiteServer,
    store: RunStore,
    console: Console | None,
    references: bool,
) -> CheckReport:
    pages = [
        (name, page) for name, site in sorted(task_set.sites.items()) for page in site.info.pages
    ]
    limiter = asyncio.Semaphore(CHECK_CONCURRENCY)
    with Progress(console=console, disable=console is None, transient=True) as progress:
        bar = progress.add_task("checking", total=len(pages) + len(task_set.tasks))

        async def bounded(coro: Any) -> Any:
            async with limiter:
                result = await coro
            progress.advance(bar)
            return result

        host = await env.host()
        page_results = await asyncio.gather(
            *(
                bounded(check_page(host, server.url_for(site, page), site, page))
                for site, page in pages
            )
        )
        task_results = await asyncio.gather(
            *(bounded(check_task(env, store, task, references)) for task in task_set.tasks)
        )
    return CheckReport(pages=list(page_results), tasks=list(task_results))


def watch_page(
    page: Any, report: Callable[[str], None], ignore_failed: Callable[[str], bool] = lambda _: False
) -> None:
    """Report what goes wrong on ``page`` from now on: console errors, uncaught errors, failed
    requests (but those ``ignore_failed`` accepts by URL) and HTTP errors. Shared by
    ``sites check`` and the site generator's validation."""

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            report(f"console error: {message.text}")

    def on_failed(request: Request) -> None:
        if not ignore_failed(request.url):
            report(f"request failed: {request.url} ({request.failure})")

    def on_response(response: Response) -> None:
        if response.status >= 400:
            report(f"HTTP {response.status}: {response.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: report(f"page error: {exc}"))
    page.on("requestfailed", on_failed)
    page.on("response", on_response)


async def check_page(host: BrowserHost, url: str, site: str, page_path: str) -> PageResult:
    """Load one page and collect everything that went wrong while it loaded and rendered."""
    result = PageResult(site=site, page=page_path)
    parts = urlsplit(url)  # the site server is ours: its origin passes the network policy
    session = await host.new_session(SessionOptions().allowing(f"{parts.scheme}://{parts.netloc}"))
    page = session.page

    watch_page(page, result.problems.append)
    try:
        await session.goto(url)
        await session.observe(ObservationOptions(elements=True))
    except WebdojoError as exc:
        result.problems.append(str(exc))
    finally:
        await session.aclose()
    return result


async def check_task(
    env: InProcessEnv, store: RunStore, task: Task, references: bool = True
) -> TaskResult:
    result = TaskResult(
        task_id=task.id,
        site=task.website or "",
        difficulty=task.difficulty or 0,
        reference_passed=None,
        reference_steps=0,
        wrong_rejected=[],
    )
    if references:
        reference = await _replay(env, store, task, ScriptedPolicy(screenshot=False))
        result.reference_passed = reference.success is True
        result.reference_steps = reference.steps
        if not result.reference_passed:
            result.problems.append("reference solution failed: " + _why(reference))
    if not task.wrong_solutions:
        result.problems.append("no wrong solution: add one to show that the verifier can fail")
    for index in range(len(task.wrong_solutions)):
        wrong = await _replay(env, store, task, ScriptedPolicy(wrong_index=index, screenshot=False))
        rejected = wrong.success is False
        result.wrong_rejected.append(rejected)
        if not rejected:
            result.problems.append(f"wrong solution {index} was not rejected: " + _why(wrong))
    return result


async def _replay(
    env: InProcessEnv, store: RunStore, task: Task, policy: ScriptedPolicy
) -> EpisodeRecord:
    spec = EpisodeSpec(task=task, key=task.id, max_steps=task.max_steps)
    return await run_episode(env, policy, spec, store)


def _why(record: EpisodeRecord) -> str:
    if record.error is not None:
        return f"{record.error.code}: {record.error.message}"
    reasons = [] if record.verifier is None else record.verifier.reasons
    failed = [r for r in reasons if r.startswith("fail")]
    return "; ".join(failed) or f"outcome {record.outcome.value}"


def render_report(report: CheckReport, console: Console) -> None:
    pages = Table(title="Pages", title_justify="left")
    for column in ("site", "page", "result"):
        pages.add_column(column)
    for p in report.pages:
        pages.add_row(
            p.site,
            p.page,
            "[green]ok[/green]" if p.ok else "[red]" + escape("; ".join(p.problems)) + "[/red]",
        )
    tasks = Table(title="Tasks", title_justify="left")
    for column in ("task", "difficulty", "reference", "steps", "wrong rejected", "problems"):
        tasks.add_column(column, no_wrap=column == "task", overflow="fold")
    for t in report.tasks:
        tasks.add_row(
            t.task_id,
            str(t.difficulty),
            _reference_cell(t.reference_passed),
            str(t.reference_steps) if t.reference_passed is not None else "",
            f"{sum(t.wrong_rejected)}/{len(t.wrong_rejected)}",
            escape("; ".join(t.problems)),
        )
    console.print(pages)
    console.print(tasks)
    n_ok = sum(t.ok for t in report.tasks)
    verdict = "[green]all checks passed[/green]" if report.ok else "[red]some checks failed[/red]"
    console.print(
        f"{verdict}: {n_ok}/{len(report.tasks)} tasks, {sum(p.ok for p in report.pages)}/{len(report.pages)} pages"
    )


def _reference_cell(passed: bool | None) -> str:
    if passed is None:
        return "[dim]not run[/dim]"
    return "[green]pass[/green]" if passed else "[red]FAIL[/red]"
