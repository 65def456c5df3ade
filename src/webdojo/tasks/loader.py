"""Load sites and tasks from directories and task files; resolve a ``--tasks`` spec.

Directory format (documented in docs/sites.md)::

    ROOT/                  a sites root: every sub-directory holding a site.json is a site
      shop/
        site.json          SiteInfo
        tasks.json         list of Task objects (or tasks.jsonl, one per line)
        index.html ...     the static site

A spec is a comma-separated list of sources; each source is ``builtin``, a sites root, a single
site directory, or a ``.json``/``.jsonl`` task file, optionally followed by ``:site1+site2`` to
keep only some sites. Examples: ``builtin``, ``builtin:shop+wiki``, ``./my_sites``.

``family:NAME[:N][@SEED]`` is N instances of a task family from seed SEED
(``webdojo.tasks.families``): ``family:shop-cart-pair:200@0``.

``miniwob`` is MiniWoB++ (``webdojo.tasks.miniwob``): ``miniwob`` selects every task of the
installed package, ``miniwob:click-test,enter-text`` or ``miniwob:click-test+enter-text``
some, ``miniwob:click-test+enter-text:200@0`` 200 fixed-seed instances of each (page seeds
0..199); the task names after ``miniwob:`` run up to the next part that is not a bare name
(``builtin``, ``miniwob``, a path) or names an existing file or directory.

A task file holds tasks, not sites: once a spec is resolved, each task on a local site the set
lacks gets that site from webdojo (a built-in site, or ``miniwob``), so a file exported by
``webdojo tasks import builtin`` runs as ``builtin`` does. A local site found nowhere is a
``TaskFileError`` at load time, not a page that 404s in every episode.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from webdojo.errors import TaskFileError
from webdojo.tasks.schema import SiteInfo, Task
from webdojo.tasks.task_file import bulk, describe, iter_tasks

BUILTIN = "builtin"
MINIWOB = "miniwob"  # MiniWoB++ from the installed package (webdojo.tasks.miniwob)
FAMILY = "family"  # instances of task families (webdojo.tasks.families)
M = TypeVar("M", SiteInfo, Task)


@dataclass(frozen=True)
class Site:
    info: SiteInfo
    path: Path  # directory served at /<info.name>/
    # HTML added at the end of every page of the site as it is served (a hosted environment's
    # page script, e.g. MiniWoB++'s: webdojo.tasks.miniwob_pages); the files stay untouched
    inject: str = ""


@dataclass
class TaskSet:
    tasks: list[Task] = field(default_factory=list)
    sites: dict[str, Site] = field(default_factory=dict)

    def merge(self, other: TaskSet) -> None:
        for name, site in other.sites.items():
            known = self.sites.get(name)
            if known is not None and known.path != site.path:
                raise TaskFileError(
                    f"two different sites are called {name!r}: {known.path}, {site.path}"
                )
            self.sites[name] = site
        seen = {t.id for t in self.tasks}
        for task in other.tasks:
            if task.id in seen:
                raise TaskFileError(f"duplicate task id {task.id!r}")
            seen.add(task.id)
            self.tasks.append(task)

    def only_sites(self, names: set[str]) -> TaskSet:
        unknown = names - {t.website for t in self.tasks} - set(self.sites)
        if unknown:
            raise TaskFileError(f"no such site(s): {', '.join(sorted(unknown))}")
        return TaskSet(
            tasks=[t for t in self.tasks if t.website in names],
            sites={n: s for n, s in self.sites.items() if n in names},
        )


def builtin_root() -> Path:
    return Path(str(resources.files("webdojo.sites") / "builtin"))


def load_spec(spec: str) -> TaskSet:
    """Resolve a ``--tasks`` spec (see the module docstring)."""
    result = TaskSet()
    for source in _spec_parts(spec):
        if source == MINIWOB or source.startswith(MINIWOB + ":"):
            from webdojo.tasks.miniwob import load_miniwob  # it builds on this module

            names, count, seed = _instances(source.partition(":")[2])
            result.merge(load_miniwob(names, count, seed))
            continue
        if source == FAMILY or source.startswith(FAMILY + ":"):
            from webdojo.tasks.families.spec import family_tasks  # they build on this module

            result.merge(TaskSet(tasks=family_tasks(source)))
            continue
        path_part, _, site_part = source.partition(":")
        loaded = load_source(path_part)
        if site_part:
            loaded = loaded.only_sites(set(site_part.split("+")))
        result.merge(loaded)
    if not result.tasks:
        raise TaskFileError(f"the task spec {spec!r} selects no tasks")
    add_local_sites(result)
    return result


def add_local_sites(task_set: TaskSet) -> None:
    """Give ``task_set`` the local site of each of its tasks that it lacks, from webdojo's
    own sites; ``TaskFileError`` naming the task for a site that webdojo does not have."""
    missing: dict[str, list[Task]] = {}
    for task in task_set.tasks:
        site = task.local_site
        if site is not None and site not in task_set.sites:
            missing.setdefault(site, []).append(task)
    if not missing:
        return
    builtin = builtin_sites()
    for name, tasks in missing.items():
        task_set.sites[name] = _known_site(name, tasks, builtin)


def _known_site(name: str, tasks: list[Task], builtin: dict[str, Site]) -> Site:
    if name in builtin:
        return builtin[name]
    if name == MINIWOB:  # MiniWoB++ tasks written to a task file
        from webdojo.tasks.miniwob import load_miniwob, task_name  # it builds on this module

        pages = [page for task in tasks if (page := task_name(task))]
        return load_miniwob(pages).sites[MINIWOB]
    raise TaskFileError(
        f"task {tasks[0].id!r} runs on local site {name!r}, which is neither built in nor "
        "given: add its sites directory to --tasks",
        task=tasks[0].id,
        site=name,
    )


def builtin_sites() -> dict[str, Site]:
    """The built-in sites by name (their site.json only: no task is read)."""
    root = builtin_root()
    return {
        site.info.name: site for site in map(read_site, sorted(root.iterdir())) if site is not None
    }


def _spec_parts(spec: str) -> list[str]:
    """The sources of a spec; the task names after ``miniwob:`` stay with it (docstring)."""
    parts: list[str] = []
    for part in filter(None, (s.strip() for s in spec.split(","))):
        previous = parts[-1] if parts else ""
        if previous.startswith(MINIWOB + ":") and _bare_name(part):
            parts[-1] = f"{previous},{part}"
        else:
            parts.append(part)
    return parts


def _instances(rest: str) -> tuple[list[str], int | None, int]:
    """``click-test+enter-text[:N][@SEED]`` -> (names, N or None, SEED)."""
    match = re.fullmatch(r"(?P<names>[^:@]*)(?::(?P<count>\d+))?(?:@(?P<seed>\d+))?", rest)
    if match is None:
        raise TaskFileError(f"miniwob:{rest}: expected miniwob:NAME[+NAME...][:N][@SEED]")
    names = [n for n in match["names"].replace(",", "+").split("+") if n]
    count = None if match["count"] is None and match["seed"] is None else int(match["count"] or 1)
    if count is not None and (count < 1 or not names):
        raise TaskFileError(f"miniwob:{rest}: name the tasks, and N must be at least 1")
    return names, count, int(match["seed"] or 0)


def _bare_name(part: str) -> bool:
    return (
        re.fullmatch(r"[a-z0-9][a-z0-9+-]*", part) is not None
        and part not in (BUILTIN, MINIWOB)
        and not Path(part).exists()
    )


def load_source(source: str) -> TaskSet:
    path = builtin_root() if source == BUILTIN else Path(source).expanduser()
    if not path.exists():
        raise TaskFileError(f"{source}: no such file or directory")
    if path.is_file():
        return TaskSet(tasks=load_task_file(path))
    if (path / "site.json").exists():
        site, tasks = load_site(path)
        return TaskSet(tasks=tasks, sites={site.info.name: site})
    return load_sites_root(path)


def load_sites_root(root: Path) -> TaskSet:
    result = TaskSet()
    site_dirs = sorted(p for p in root.iterdir() if (p / "site.json").exists())
    if not site_dirs:
        raise TaskFileError(f"{root}: no site directories (sub-directories with a site.json)")
    for directory in site_dirs:
        site, tasks = load_site(directory)
        result.merge(TaskSet(tasks=tasks, sites={site.info.name: site}))
    return result


def read_site(directory: Path) -> Site | None:
    """The site of a directory holding a site.json, else None."""
    if not (directory / "site.json").exists():
        return None
    info = _validate(SiteInfo, _read_json(directory / "site.json"), directory / "site.json")
    if info.name != directory.name:
        raise TaskFileError(f"{directory}/site.json: name {info.name!r} != directory name")
    return Site(info=info, path=directory.resolve())


def load_site(directory: Path) -> tuple[Site, list[Task]]:
    site = read_site(directory)
    if site is None:
        raise TaskFileError(f"{directory}: no site.json")
    info = site.info
    tasks: list[Task] = []
    for candidate in ("tasks.json", "tasks.jsonl"):
        if (directory / candidate).exists():
            tasks += load_task_file(directory / candidate)
    for task in tasks:
        if task.website != info.name:
            raise TaskFileError(f"{directory}: task {task.id!r} names site {task.website!r}")
        if task.verifier is None or not task.solution:
            # a local site is ours: every task must be checkable (see `webdojo sites check`)
            raise TaskFileError(
                f"{directory}: task {task.id!r} needs a verifier and a reference solution"
            )
    return site, tasks


def load_task_file(path: Path) -> list[Task]:
    """A JSON list of tasks, or JSONL with one task per line."""
    if path.suffix == ".jsonl":
        with bulk():
            return list(iter_tasks(path))
    data = _read_json(path)
    if not isinstance(data, list):
        raise TaskFileError(f"{path}: expected a JSON list of tasks")
    return [_validate(Task, row, f"{path} [task {i}]") for i, row in enumerate(data)]


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskFileError(f"{path}: {exc.strerror}") from exc
    return _parse_json(text, str(path))


def _parse_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFileError(f"{where}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc


def _validate(model: type[M], data: Any, where: object) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise TaskFileError(f"{where}: {describe(exc)}") from exc
