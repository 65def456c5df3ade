"""Evaluation suites: named, versioned, content-hashed sets of tasks that ``webdojo eval`` runs.

A suite is a YAML file::

    name: core
    version: 1
    description: ...
    seed: 0            # the run seed: every episode's seed derives from it and its key
    repeats: 1         # episodes per task (pass@k needs more than one)
    sets:
      - name: builtin
        tasks: builtin                 # any --tasks spec; paths are relative to the file
      - name: qa
        tasks: nq.jsonl
        wiki: wikipedia.zim            # serve this ZIM; every task starts at its search page
        judge: exact                   # a `webdojo judge` spec; default: the tasks' verifiers
      - name: shop-replayed
        tasks: shop_tasks.jsonl
        archive: shop-archive          # replay every page from this archive (a directory)

A ``.jsonl`` or ``.json`` task file given as ``--suite`` is a suite of one set, named after the
file. Shipped suites live next to this module (``suites/<name>.yaml``): ``core`` (the default)
and ``builtin``.

The suite's hash covers what decides its scores: its settings, every task (as JSON), every
file of the sites it serves, the traffic, settings and rules of its archives, and its ZIM files. Two evals whose
hashes agree ran the same tasks on the same pages; a changed page changes the hash.

Sets that run the same way (same archive, ZIM and judge) run together as one ``Part``: one run
directory, one pass of the async engine.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from webdojo.cache import archive as cache_archive
from webdojo.errors import ArchiveError, SuiteError, WebdojoError
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.tasks.qa_tasks import load_qa_tasks
from webdojo.tasks.task_file import describe

DEFAULT_SUITE = "core"
_HASH_CHUNK = 1 << 20


class SuiteSet(BaseModel):
    """One group of tasks in a suite, and how it runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    tasks: str  # a --tasks spec (builtin, miniwob:..., a task file, a sites directory)
    archive: str | None = None  # replay every page from this archive (`webdojo cache record`)
    wiki: str | None = None  # a ZIM file: serve it, start every task at its search page
    judge: str | None = None  # a `webdojo judge` spec; None: the tasks' own verifiers


class Suite(BaseModel):
    """A suite file as written (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    version: int | str = 1
    description: str = ""
    seed: int = 0
    repeats: int = Field(default=1, ge=1)
    sets: list[SuiteSet] = Field(min_length=1)


@dataclass(frozen=True)
class Part:
    """Sets of a suite that run together in one run directory."""

    name: str  # the sets' names joined by "+"
    tasks: TaskSet
    spec: str  # the --tasks spec of the run (the sets' specs, absolute paths)
    archive: str | None = None
    wiki: str | None = None
    judge: str | None = None
    sources: dict[str, str] = field(default_factory=dict)  # task id -> its set's name


@dataclass(frozen=True)
class LoadedSuite:
    """A suite with its tasks resolved and its content hash."""

    suite: Suite
    origin: str  # "shipped" or the suite file's path
    parts: list[Part]
    hash: str  # "sha256:<hex>"

    @property
    def name(self) -> str:
        return self.suite.name

    @property
    def task_count(self) -> int:
        return sum(len(p.tasks.tasks) for p in self.parts)

    def sources(self) -> dict[str, str]:
        """Task id -> the name of the set it belongs to."""
        return {k: v for part in self.parts for k, v in part.sources.items()}


def shipped_root() -> Path:
    return Path(str(resources.files("webdojo.eval") / "suites"))


def shipped_names() -> list[str]:
    return sorted(p.stem for p in shipped_root().glob("*.yaml"))


def load_suite(name_or_path: str | None) -> LoadedSuite:
    """A shipped suite by name, or a suite file (YAML, or a JSON/JSONL task file); raises
    ``SuiteError`` (code ``bad_suite``) for anything that cannot be used."""
    text = name_or_path or DEFAULT_SUITE
    path = Path(text).expanduser()
    if text in shipped_names() and not path.is_file():
        return _resolve(_parse_yaml(shipped_root() / f"{text}.yaml"), shipped_root(), "shipped")
    if not path.is_file():
        shipped = ", ".join(shipped_names())
        raise SuiteError(
            f"no suite {text!r}: not a shipped suite ({shipped}) nor a file",
            suite=text,
        )
    if path.suffix in (".json", ".jsonl"):
        one = SuiteSet(name=_set_name(path.stem), tasks=str(path.resolve()))
        return _resolve(Suite(name=one.name, sets=[one]), path.parent, str(path))
    return _resolve(_parse_yaml(path), path.parent, str(path))


def _set_name(stem: str) -> str:
    clean = "".join(c if c.isalnum() or c in "_.-" else "-" for c in stem).lstrip("_.-")
    return clean or "tasks"


def _parse_yaml(path: Path) -> Suite:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: cannot be read ({exc})", suite=str(path)) from exc
    except yaml.YAMLError as exc:
        raise SuiteError(f"{path}: not valid YAML ({exc})", suite=str(path)) from exc
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: a suite file is a YAML mapping", suite=str(path))
    try:
        return Suite.model_validate(data)
    except ValidationError as exc:
        raise SuiteError(f"{path}: {describe(exc)}", suite=str(path)) from exc


def _resolve(suite: Suite, base: Path, origin: str) -> LoadedSuite:
    names = [s.name for s in suite.sets]
    if len(set(names)) != len(names):
        raise SuiteError(f"{origin}: two sets share a name", suite=suite.name)
    groups: dict[tuple[str | None, str | None, str | None], list[tuple[SuiteSet, str]]] = {}
    for entry in suite.sets:
        absolute = _absolute(entry, base)
        key = (absolute.archive, absolute.wiki, absolute.judge)
        groups.setdefault(key, []).append((absolute, entry.name))
    parts = [_part(members, origin) for members in groups.values()]
    seen: set[str] = set()
    for part in parts:
        repeated = seen & {t.id for t in part.tasks.tasks}
        if repeated:
            raise SuiteError(f"{origin}: task {sorted(repeated)[0]!r} is in two sets")
        seen |= {t.id for t in part.tasks.tasks}
    return LoadedSuite(suite=suite, origin=origin, parts=parts, hash=suite_hash(suite, parts))


def _absolute(entry: SuiteSet, base: Path) -> SuiteSet:
    """The set with its file paths made absolute (relative to the suite file)."""

    def resolve(value: str | None) -> str | None:
        if value is None:
            return None
        path = Path(value).expanduser()
        return str(path if path.is_absolute() else (base / path).resolve())

    spec = ",".join(_spec_source(s, base) for s in entry.tasks.split(","))
    return entry.model_copy(
        update={"tasks": spec, "archive": resolve(entry.archive), "wiki": resolve(entry.wiki)}
    )


def _spec_source(source: str, base: Path) -> str:
    """One comma-separated part of a --tasks spec, a relative path made absolute."""
    source = source.strip()
    path_part, colon, rest = source.partition(":")
    candidate = base / path_part
    if path_part and not Path(path_part).is_absolute() and candidate.exists():
        return f"{candidate.resolve()}{colon}{rest}"
    return source


def _part(members: list[tuple[SuiteSet, str]], origin: str) -> Part:
    first = members[0][0]
    tasks = TaskSet()
    sources: dict[str, str] = {}
    for entry, name in members:
        loaded = _load_tasks(entry, origin)
        try:
            tasks.merge(loaded)
        except WebdojoError as exc:
            raise SuiteError(f"{origin}: set {name!r}: {exc}", suite=origin) from exc
        sources.update(dict.fromkeys((t.id for t in loaded.tasks), name))
    return Part(
        name="+".join(name for _, name in members),
        tasks=tasks,
        spec=",".join(entry.tasks for entry, _ in members),
        archive=first.archive,
        wiki=first.wiki,
        judge=first.judge,
        sources=sources,
    )


def _load_tasks(entry: SuiteSet, origin: str) -> TaskSet:
    if entry.archive is not None:
        try:  # the check `webdojo run --archive` makes: a bad archive fails before any browser
            cache_archive.Archive.open(Path(entry.archive)).close()
        except ArchiveError as exc:
            raise SuiteError(
                f"{origin}: set {entry.name!r}: {exc.message} (make one with `webdojo cache "
                "record` or `webdojo cache import`)",
                suite=origin,
            ) from exc
    if entry.wiki is not None and not Path(entry.wiki).is_file():
        raise SuiteError(f"{origin}: set {entry.name!r}: no wiki file {entry.wiki}")
    try:
        return load_qa_tasks(entry.tasks) if entry.wiki else load_spec(entry.tasks)
    except WebdojoError as exc:
        raise SuiteError(f"{origin}: set {entry.name!r}: {exc}", suite=origin) from exc


# --- the content hash ------------------------------------------------------------------------


def suite_hash(suite: Suite, parts: Iterable[Part]) -> str:
    """sha256 over the suite's settings, its tasks, its sites' files and its data files."""
    digest = hashlib.sha256()
    settings = suite.model_dump(exclude={"description", "sets"})
    settings["sets"] = [s.model_dump(include={"name", "judge"}) for s in suite.sets]
    _feed(digest, "suite", json.dumps(settings, sort_keys=True).encode())
    for part in parts:
        for task in sorted(part.tasks.tasks, key=lambda t: t.id):
            _feed(digest, f"task:{task.id}", task.model_dump_json().encode())
        for name, site in sorted(part.tasks.sites.items()):
            _feed(digest, f"site:{name}", site.inject.encode())
            for file in sorted(p for p in site.path.rglob("*") if p.is_file()):
                _feed_file(digest, f"site:{name}:{file.relative_to(site.path).as_posix()}", file)
        if part.archive is not None:
            # what replay serves and how (not the index, rebuilt at will, nor replay stats)
            for name in (cache_archive.META, cache_archive.WARC, cache_archive.RULES):
                if (path := Path(part.archive) / name).is_file():
                    _feed_file(digest, f"archive:{name}", path)
        if part.wiki is not None:
            _feed_file(digest, "wiki", Path(part.wiki))
    return "sha256:" + digest.hexdigest()


def _feed(digest: Any, label: str, data: bytes) -> None:
    # length-prefixed, so that no two different inputs feed the same bytes
    digest.update(f"{label}\0{len(data)}\0".encode())
    digest.update(data)


def _feed_file(digest: Any, label: str, path: Path) -> None:
    digest.update(f"{label}\0{path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
