"""The generate -> validate -> repair loop over N sites, resumable, with token accounting.

Layout of OUT (a sites root: ``webdojo run --tasks OUT`` and the server load it unchanged)::

    OUT/<name>/                 an accepted site: its files, site.json, tasks.json
    OUT/_rejected/<name>/       a rejected one: its last files (if any parsed), reasons.json
                                and the model's last reply (last_reply.txt)
    OUT/_generation/<name>.json the record of a finished site (accepted or rejected); written
                                last, so its presence is what "done" means on a resume
    OUT/_generation/<name>.png  an accepted site's home-page screenshot
    OUT/_generation/report.json the last run's summary, diversity included
    OUT/<name>/images/<hash>.png pictures an image model drew (only with ``images=``)
    OUT/_staging/               sites being validated (cleared when a run starts)

A site is asked for once, then repaired up to ``max_repairs`` times: each validation failure
goes back to the model as a list of concrete problems. A page that hangs or crashes its tab is
rejected at once (its reason recorded) and the run goes on. Endpoint failures (``ModelError``)
end the run; finished sites stay, and the same command resumes with the rest.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from webdojo.errors import WebdojoError
from webdojo.models.ask import ReplyRejected
from webdojo.models.client import ChatResult, ModelClient
from webdojo.models.images import ImageClient
from webdojo.models.usage import Price, Usage
from webdojo.sitegen.catalogs import Triple, sample_triples, site_name
from webdojo.sitegen.diversity import Diversity, dhash, measure
from webdojo.sitegen.images import ImageSettings, SiteImages
from webdojo.sitegen.prompts import PROMPT_VERSION, first_messages, repair_messages
from webdojo.sitegen.reply import build_site, parse_reply, write_site
from webdojo.sitegen.validate import Validation, ValidationSettings, Validator
from webdojo.store.run_store import write_atomic

REJECTED, GENERATION, STAGING = "_rejected", "_generation", "_staging"


@dataclass(frozen=True)
class SitegenConfig:
    """How ``webdojo sites generate`` runs (its flags)."""

    n: int  # sites to have in OUT (finished ones from earlier runs count)
    seed: int = 0  # the catalogs' sampling; the same seed resumes the same sites
    max_repairs: int = 3  # repair requests after the first reply
    max_tokens: int = 32_000  # cap on one reply (a whole site)
    concurrency: int = 2  # sites in progress at once
    price: Price = field(default_factory=Price)  # per million tokens and per image, for the cost
    images: ImageSettings = field(default_factory=ImageSettings)  # used with an image model
    validation: ValidationSettings = field(default_factory=ValidationSettings)


@dataclass
class SiteRecord:
    """What happened to one site (``OUT/_generation/<name>.json``)."""

    name: str
    status: str  # accepted | rejected
    triple: dict[str, str]
    replies: int = 0  # model replies it took
    rounds: list[list[str]] = field(default_factory=list)  # the problems of each failed reply
    reasons: list[str] = field(default_factory=list)  # why it was rejected
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dhash: str | None = None  # of the home page's screenshot (accepted sites)
    external_requests: int = 0  # blocked requests outside the site, over all rounds
    images: int = 0  # pictures the image model drew for it, over all rounds
    model: str = ""
    image_model: str = ""  # "" when images were SVG only
    prompt_version: str = PROMPT_VERSION


@dataclass
class SitegenReport:
    out: Path
    records: list[SiteRecord] = field(default_factory=list)  # the N sites, in order
    resumed: int = 0  # finished before this run
    usage: Usage = field(default_factory=Usage)  # this run's calls
    cost: float = 0.0
    diversity: Diversity = field(default_factory=Diversity)

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.records)

    def to_json(self) -> dict[str, Any]:
        return {
            "accepted": self.count("accepted"),
            "rejected": self.count("rejected"),
            "resumed": self.resumed,
            "calls": self.usage.calls,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "images": self.usage.images,
            "cost": self.cost,
            "near_duplicates": len(self.diversity.near_duplicates),
            "out": str(self.out),
        }


OnSite = Callable[[SiteRecord, bool], None]  # (record, resumed)


async def generate_sites(
    out: Path,
    client: ModelClient,
    config: SitegenConfig,
    *,
    on_site: OnSite | None = None,
    validator: Validator | None = None,
    images: ImageClient | None = None,
) -> SitegenReport:
    """Have ``config.n`` sites finished in ``out`` (see the module docstring). ``images``: an
    image model that draws the pictures the sites describe (``sitegen/images.py``)."""
    report = SitegenReport(out)
    (out / GENERATION).mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / STAGING, ignore_errors=True)
    plan = [(site_name(i, t), t) for i, t in enumerate(sample_triples(config.n, config.seed))]
    records: dict[str, SiteRecord] = {}
    for name, _ in plan:
        if (done := _read_record(out, name)) is not None:
            records[name] = done
            report.resumed += 1
            if on_site is not None:
                on_site(done, True)
    todo = [(name, triple) for name, triple in plan if name not in records]
    own = validator is None and bool(todo)  # no browser for a run with nothing left to do
    checker = (validator or Validator(config.validation)) if todo else None
    limit = asyncio.Semaphore(config.concurrency)

    async def one(name: str, triple: Triple, checker: Validator) -> None:
        async with limit:
            job = _SiteJob(name, triple, out, _Run(client, checker, config, report), images)
            record = await job.generate()
        records[name] = record
        if on_site is not None:
            on_site(record, False)

    try:
        async with asyncio.TaskGroup() as group:
            for name, triple in todo:
                assert checker is not None
                group.create_task(one(name, triple, checker))
    except BaseExceptionGroup as failed:  # the endpoint's error, not a group, for the caller
        first = failed.exceptions[0]
        raise (first if isinstance(first, WebdojoError) else failed) from None
    finally:
        if own and checker is not None:
            await checker.aclose()
    report.records = [records[name] for name, _ in plan]
    report.cost = config.price.cost(report.usage) or 0.0
    report.diversity = measure({r.name: r.dhash for r in report.records if r.dhash})
    run = {"diversity": report.diversity.to_json(), "seed": config.seed, "n": config.n}
    _write_json(out / GENERATION / "report.json", report.to_json() | run)
    return report


class _SiteJob:
    """One site's generate -> validate -> repair rounds."""

    def __init__(
        self, name: str, triple: Triple, out: Path, run: _Run, images: ImageClient | None
    ) -> None:
        self.name, self.triple, self.out, self.run = name, triple, out, run
        self.record = SiteRecord(name, "rejected", asdict(triple))
        self.pictures = SiteImages(images, run.config.images) if images else None
        if images is not None:
            self.record.image_model = images.config.model

    async def generate(self) -> SiteRecord:
        config, record = self.run.config, self.record
        record.model = await self.run.client.model_name()
        first = first_messages(self.name, self.triple, config.images if self.pictures else None)
        messages, reply = first, ""
        for _ in range(1 + config.max_repairs):
            result = await self.run.client.chat(messages, max_tokens=config.max_tokens)
            self.run.report.usage.add(result)
            record.replies += 1
            record.prompt_tokens += result.usage.get("prompt_tokens", 0)
            record.completion_tokens += result.usage.get("completion_tokens", 0)
            reply = result.text
            checked = await self._check(result)
            if checked.fatal is not None:
                record.rounds.append([checked.fatal, *checked.problems])
                record.reasons = [checked.fatal]
                return _reject(self.out, record, reply)
            if checked.ok:
                return _accept(self.out, record, checked.screenshot)
            record.rounds.append(checked.problems)
            messages = repair_messages(first, reply, checked.problems)
        record.reasons = [f"still failing after {config.max_repairs} repair(s)", *record.rounds[-1]]
        return _reject(self.out, record, reply)

    async def _check(self, result: ChatResult) -> Validation:
        """The reply parsed, its pictures drawn, the site written to staging and validated."""
        try:
            draft = parse_reply(result.text)
            info, tasks = build_site(draft, self.name, self.triple)
        except ReplyRejected as exc:
            cut = " (cut off at the token limit)" if result.finish_reason == "length" else ""
            return Validation([f"the reply does not follow the format{cut}: {exc}"])
        files, pictures = draft.files, {}
        if self.pictures is not None:
            rendered = await self.pictures.render(draft.files)
            self.record.images += rendered.drawn
            self.run.report.usage.images += rendered.drawn
            if rendered.problems:
                return Validation(rendered.problems)
            files, pictures = rendered.files, rendered.images
        staging = self.out / STAGING / self.name
        write_site(staging, files, info, tasks, pictures)
        checked = await self.run.validator.validate(staging, files, set(pictures))
        self.record.external_requests += len(checked.external)
        return checked


@dataclass(frozen=True)
class _Run:
    """What every site of a run shares."""

    client: ModelClient
    validator: Validator
    config: SitegenConfig
    report: SitegenReport


def _accept(out: Path, record: SiteRecord, screenshot: bytes | None) -> SiteRecord:
    record.status = "accepted"
    target = out / record.name
    shutil.rmtree(target, ignore_errors=True)
    (out / STAGING / record.name).rename(target)
    if screenshot is not None:
        record.dhash = dhash(screenshot)
        (out / GENERATION / f"{record.name}.png").write_bytes(screenshot)
    _write_json(out / GENERATION / f"{record.name}.json", asdict(record))
    return record


def _reject(out: Path, record: SiteRecord, reply: str) -> SiteRecord:
    target = out / REJECTED / record.name
    shutil.rmtree(target, ignore_errors=True)
    staging = out / STAGING / record.name
    if staging.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(target)
    target.mkdir(parents=True, exist_ok=True)
    (target / "last_reply.txt").write_text(reply, encoding="utf-8")
    _write_json(target / "reasons.json", {"reasons": record.reasons, "rounds": record.rounds})
    _write_json(out / GENERATION / f"{record.name}.json", asdict(record))
    return record


def _read_record(out: Path, name: str) -> SiteRecord | None:
    path = out / GENERATION / f"{name}.json"
    try:
        return SiteRecord(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None  # not finished (or cut short by a kill): generated again


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(value, indent=1, ensure_ascii=False) + "\n")
