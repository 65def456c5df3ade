"""``webdojo export``: a selection's samples as training data for common trainers.

    summary = export(Path("sel"), Path("data"), "sharegpt")

Every sample's context is rebuilt with the policy's own template (``training.contexts``), then
written in one of the formats of ``training.export_formats``: ``openai``, ``sharegpt``
(LLaMA-Factory), ``hf`` (``datasets.load_from_disk``) or ``verl`` (parquet).

Nothing half-written is ever left behind. Every sample is checked first (its run, attempt,
step, task and files, and that the run captured what the template shows), so bad input fails
before anything is written; the export then goes to a staging directory beside ``out`` that
is renamed into place at the end. A non-empty ``out`` is refused unless ``force``, which
replaces it only once the new export is complete.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webdojo.errors import ConfigError
from webdojo.training.contexts import ContextBuilder
from webdojo.training.examples import Example
from webdojo.training.export_formats import WRITERS
from webdojo.training.samples import Sample, read_samples

FORMATS = tuple(WRITERS)


@dataclass(frozen=True)
class ExportSummary:
    format: str
    out: Path
    samples: int  # rows written (one per sample)
    images: int  # distinct images (files for openai and sharegpt)
    image_refs: (
        int  # image parts over all samples (an image shown at several steps counts each time)
    )
    bytes: int  # the size of ``out`` on disk

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` line: samples, images, out, format, then the rest."""
        return {
            "samples": self.samples,
            "images": self.images,
            "out": str(self.out),
            "format": self.format,
            "image_refs": self.image_refs,
            "bytes": self.bytes,
        }


def export(
    selection: Path,
    out: Path,
    fmt: str,
    *,
    template: str | None = None,
    template_options: dict[str, Any] | None = None,
    force: bool = False,
    on_sample: Callable[[int, int], None] | None = None,
) -> ExportSummary:
    """Export the selection directory ``selection`` into ``out`` as ``fmt``. ``template`` and
    ``template_options`` override the runs' templates (see ``training.contexts``);
    ``on_sample(done, total)`` is called after each sample (a progress bar)."""
    if fmt not in WRITERS:
        raise ConfigError(f"unknown export format {fmt!r}: choose from {', '.join(FORMATS)}")
    samples = list(read_samples(selection))
    if not samples:
        raise ConfigError(f"{selection} holds no samples: nothing to export")
    _refuse_existing(out, force)
    builder = ContextBuilder(template, template_options)
    for sample in samples:
        builder.check(sample)  # bad input fails here, before anything is written
    has_images = any(builder.shows_images(sample) for sample in samples)
    examples = _examples(builder, samples, on_sample)
    staging = out.parent / f".{out.name}.partial-{uuid.uuid4().hex[:8]}"
    try:
        (staging / "data").mkdir(parents=True)
        written = WRITERS[fmt](examples, staging / "data", has_images)
        _move_into_place(staging / "data", out, force)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ExportSummary(
        format=fmt,
        out=out,
        samples=written.samples,
        images=len(written.digests),
        image_refs=written.image_refs,
        bytes=_size(out),
    )


def _examples(
    builder: ContextBuilder, samples: list[Sample], on_sample: Callable[[int, int], None] | None
) -> Iterator[Example]:
    for done, sample in enumerate(samples, 1):
        yield builder.example(sample)
        if on_sample is not None:
            on_sample(done, len(samples))


def _refuse_existing(out: Path, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ConfigError(
            f"{out} is not empty: choose another --out, or pass --force to replace it"
        )


def _move_into_place(done: Path, out: Path, force: bool) -> None:
    """Rename the finished export to ``out``; an old ``out`` is moved aside first and deleted
    only after the rename, so ``out`` is always either the old export or the new one."""
    out.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if out.exists():
        _refuse_existing(out, force)  # it may have been filled while we were writing
        old = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:8]}"
        os.replace(out, old)
    os.replace(done, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
