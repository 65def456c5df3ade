"""The reply format the model must follow, its validation, and the site directory it becomes.

One JSON object (a ```json fence around it is tolerated)::

    {"title": "...", "description": "...",
     "pages": ["index.html", "rooms.html?id=2"],
     "files": {"index.html": "<!doctype html>...", "app.js": "...", "style.css": "..."},
     "tasks": [{"id": "book-room", "instruction": "...", "start_url": "index.html",
                "rubric": {"fact_groups": [{"id": 1, "facts": ["..."]}]},
                "verifier": {"checks": [...]}, "solution": [...], "wrong_solutions": [[...]]}]}

JSON rather than fenced file blocks: the tasks are JSON anyway, one parser reads all of it,
and a model's JSON mode guarantees that it parses. We write ``site.json`` and ``tasks.json``
ourselves from the reply (the name, style and capability are ours, task ids get the site's
prefix), so the model cannot get the directory format wrong, only its content.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from webdojo.models.ask import ReplyRejected
from webdojo.sitegen.catalogs import Triple
from webdojo.tasks.schema import Rubric, SiteInfo, SolutionStep, Task, Verifier

MIN_TASKS = 10
TEXT_SUFFIXES = (".html", ".css", ".js", ".svg", ".json")  # no raster images: SVG only
_FILE = re.compile(r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.[a-z]+$")
_RESERVED = {"site.json", "tasks.json", "tasks.jsonl"}  # written by us


class TaskDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,59}$")
    instruction: str = Field(min_length=1)
    start_url: str = "index.html"
    rubric: Rubric
    verifier: Verifier
    solution: list[SolutionStep] = Field(min_length=1)
    wrong_solutions: list[list[SolutionStep]] = Field(min_length=1)


class SiteDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    pages: list[str] = Field(min_length=1)
    files: dict[str, str] = Field(min_length=1)
    tasks: list[TaskDraft] = Field(min_length=MIN_TASKS)

    @model_validator(mode="after")
    def _consistent(self) -> SiteDraft:
        problems = [p for name in self.files for p in _file_problems(name)]
        for page in self.pages + [t.start_url for t in self.tasks]:
            if page_file(page) not in self.files:
                problems.append(f"page {page!r} is not one of the files")
        ids = [t.id for t in self.tasks]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            problems.append(f"task ids must be distinct: {', '.join(dupes)}")
        if problems:
            raise ValueError("; ".join(dict.fromkeys(problems)))
        return self


def page_file(page: str) -> str:
    """The file a page URL serves: ``rooms.html?id=2#top`` -> ``rooms.html``."""
    return re.split(r"[?#]", page, maxsplit=1)[0] or "index.html"


def _file_problems(name: str) -> list[str]:
    if name in _RESERVED:
        return [f"file {name!r}: leave site.json and tasks.json out, they are written for you"]
    if not _FILE.match(name) or ".." in name:
        return [f"file {name!r}: use a relative path of letters, digits, '-' and '_'"]
    if not name.endswith(TEXT_SUFFIXES):
        return [f"file {name!r}: only {', '.join(TEXT_SUFFIXES)} files (images are inline SVG)"]
    return []


def parse_reply(text: str) -> SiteDraft:
    """The reply as a ``SiteDraft``; ``ReplyRejected`` says what is wrong with it."""
    body = text.strip()
    fenced = re.match(r"^```[a-z]*\s*(.*?)\s*```$", body, re.S)
    if fenced:
        body = fenced.group(1)
    elif not body.startswith("{") and "{" in body:
        body = body[body.index("{") : body.rindex("}") + 1]
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise ReplyRejected(f"the reply is not one valid JSON object ({exc})") from exc
    if not isinstance(data, dict):
        raise ReplyRejected(f"expected a JSON object, got a JSON {type(data).__name__}")
    try:
        return SiteDraft.model_validate(data)
    except ValidationError as exc:
        raise ReplyRejected(describe_errors(exc)) from exc


def describe_errors(exc: ValidationError, limit: int = 8) -> str:
    problems = [f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()]
    more = f" (and {len(problems) - limit} more)" if len(problems) > limit else ""
    return "; ".join(problems[:limit]) + more


def build_site(draft: SiteDraft, name: str, triple: Triple) -> tuple[SiteInfo, list[Task]]:
    """``site.json`` and the tasks, named after the site."""
    info = SiteInfo(
        name=name,
        title=draft.title,
        description=draft.description,
        style=triple.style,
        capabilities=[triple.capability],
        pages=draft.pages,
    )
    about = {"capability": triple.capability, "category": triple.category, "style": triple.style}
    tasks = []
    for task in draft.tasks:
        data = task.model_dump(exclude_none=True)
        data.update(
            id=f"{name}.{task.id}",
            website=name,
            source="sitegen",
            tags=["sitegen", triple.capability],
            meta={"sitegen": about},
        )
        try:
            tasks.append(Task.model_validate(data))
        except ValidationError as exc:
            raise ReplyRejected(f"task {task.id!r}: {describe_errors(exc)}") from exc
    return info, tasks


def write_site(
    directory: Path,
    files: Mapping[str, str],
    info: SiteInfo,
    tasks: list[Task],
    binary: Mapping[str, bytes] | None = None,
) -> None:
    """The site directory, replacing whatever was there: the model's (text) ``files``, our
    ``binary`` ones (an image model's pictures), site.json and tasks.json."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    written: list[tuple[str, str | bytes]] = [*files.items(), *(binary or {}).items()]
    for name, content in written:
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    (directory / "site.json").write_text(_dumps(info.model_dump()), encoding="utf-8")
    rows = [t.model_dump(exclude_none=True, exclude_defaults=False) for t in tasks]
    (directory / "tasks.json").write_text(_dumps(rows), encoding="utf-8")


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"
