"""``webdojo.make`` and ``webdojo.make_async``: an environment for one task, by id.

    with webdojo.make("admin.deactivate-priya") as env:         # a built-in task
        obs, info = env.reset()
        obs, reward, terminated, truncated, info = env.step("click(element=12)")

    env = webdojo.make("miniwob.click-test")                    # MiniWoB++ (or miniwob:click-test)
    env = webdojo.make("q1", tasks="nq.jsonl", wiki="wiki.zim")  # QA on an offline Wikipedia
    env = webdojo.make("shop.search", tasks="shop.jsonl", archive="shop-archive/")  # replayed
    env = webdojo.make(task, server="http://127.0.0.1:8700")    # a Task, on a webdojo server

A task is found by id: ``SITE.NAME`` among the built-in sites, ``miniwob.NAME``, or any id
in ``tasks`` (a ``--tasks`` spec: a task file, a sites directory, ``builtin:shop``...). The
environments of a process share one browser; each episode gets a fresh context.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
from pathlib import Path
from typing import Any

from webdojo.browser.options import SessionOptions
from webdojo.environment import runtime
from webdojo.environment.async_env import AsyncEnv, EnvOptions
from webdojo.environment.sync_env import Env, run_blocking
from webdojo.envs.wiki_server import serve_qa
from webdojo.errors import ConfigError, UnknownTask, WebdojoError
from webdojo.observation import ObservationOptions
from webdojo.rollout.http_env import HttpEnv
from webdojo.tasks.loader import TaskSet, add_local_sites, load_spec
from webdojo.tasks.qa_tasks import load_qa_tasks
from webdojo.tasks.schema import Task


def make(task: str | Task, **options: Any) -> Env:
    """A blocking environment for ``task`` (see ``make_async`` for the options)."""
    return Env(run_blocking(make_async(task, **options)))


async def make_async(
    task: str | Task,
    *,
    tasks: str | None = None,
    server: str | None = None,
    token: str | None = None,
    observation: ObservationOptions | None = None,
    session: SessionOptions | None = None,
    format: str = "funcall",
    max_steps: int | None = None,
    wiki: str | Path | None = None,
    archive: str | Path | None = None,
) -> AsyncEnv:
    """An asyncio environment for ``task``: a task id or a ``Task``.

    ``tasks``: the ``--tasks`` spec to find the id in (default: the built-in sites, or
    MiniWoB++ for ``miniwob.*``). ``server``/``token``: run on a ``webdojo serve`` server
    (which must serve the task; its own network policy and archives apply). ``observation``:
    what each observation holds (screenshot format, accessibility tree, element list).
    ``session``: viewport, deadlines and network policy. ``format``: how ``step`` reads a
    model's text (funcall, qwen, browseragent). ``max_steps``: instead of the task's step
    cap. ``wiki``: a ZIM file to serve; ``tasks`` are then QA tasks in any format
    ``webdojo tasks import`` reads, each starting at the wiki's search page. ``archive``:
    replay every page from this record/replay archive."""
    options = EnvOptions(
        observation=observation or ObservationOptions(),
        session=session or SessionOptions(),
        format=format,
        max_steps=max_steps,
    )
    found = find_task(task, tasks, qa=wiki is not None)
    if server is not None:
        return _on_server(found, options, server, token, archive)
    if archive is not None:
        options.session = dataclasses.replace(options.session, archive=str(archive))
    with contextlib.ExitStack() as stack:
        if wiki is not None:  # the env's own server: allowed by its origin
            found, origin = serve_qa(found, wiki, stack)
            options.session = options.session.allowing(origin)
        shared = runtime.acquire(found.sites)
        owned = stack.pop_all()

    async def release() -> None:
        try:
            await runtime.release(shared)
        finally:
            owned.close()

    return AsyncEnv(found.tasks[0], shared.env, options, on_close=release)


def find_task(task: str | Task, tasks: str | None = None, *, qa: bool = False) -> TaskSet:
    """The task (alone) and the local sites it needs. ``UnknownTask`` names close ids."""
    if isinstance(task, Task):
        found = TaskSet(tasks=[task])
        add_local_sites(found)
        return found
    spec = tasks or default_spec(task)
    try:
        task_set = load_qa_tasks(spec) if qa else load_spec(spec)
    except WebdojoError as exc:
        if tasks is None:  # the id named a site or a MiniWoB++ task that does not exist
            raise UnknownTask(f"no task {task!r}: {exc.message}", task=task) from exc
        raise
    if tasks is None and ":" in task:  # a spec given as the task: it must name one
        matches = task_set.tasks
    else:
        matches = [t for t in task_set.tasks if t.id == task]
    if len(matches) != 1:
        raise _unknown(task, spec, task_set)
    return TaskSet(tasks=matches, sites=_sites_of(matches[0], task_set))


def default_spec(task_id: str) -> str:
    """Where an id is found without ``tasks``: ``miniwob.NAME[.SEED]`` in MiniWoB++,
    ``family.NAME.SEED`` in that family, ``SITE.NAME`` on that built-in site; an id with a
    colon is a spec itself (``miniwob:click-test``)."""
    if ":" in task_id:
        return task_id
    if task_id.startswith("miniwob."):
        name, _, seed = task_id.removeprefix("miniwob.").rpartition(".")
        return f"miniwob:{name}:1@{seed}" if name and seed.isdigit() else "miniwob:" + task_id[8:]
    if task_id.startswith("family."):
        name, _, seed = task_id.removeprefix("family.").rpartition(".")
        return f"family:{name}:1@{seed}" if seed.isdigit() else "family:" + name
    return "builtin:" + task_id.split(".", 1)[0]


def _sites_of(task: Task, task_set: TaskSet) -> dict[str, Any]:
    site = task.local_site
    return {} if site is None else {site: task_set.sites[site]}


def _unknown(task: str, spec: str, task_set: TaskSet) -> UnknownTask:
    ids = [t.id for t in task_set.tasks]
    if ":" in task and len(ids) > 1:
        return UnknownTask(f"{task!r} names {len(ids)} tasks; give one task id", task=task)
    close = difflib.get_close_matches(task, ids, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return UnknownTask(f"no task {task!r} in {spec!r}{hint}", task=task, close=close)


def _on_server(
    found: TaskSet,
    options: EnvOptions,
    server: str,
    token: str | None,
    archive: str | Path | None,
) -> AsyncEnv:
    """The task on a server, which serves its sites, and its wiki (``serve --wiki``): a QA
    task starts at the server's own search page."""
    if archive is not None:
        raise ConfigError("archives are the server's option (`webdojo serve --archive`)")
    client = HttpEnv(server, token, default_session=options.session)
    return AsyncEnv(found.tasks[0], client, options, on_close=client.aclose)
