"""Raster pictures in a generated site, drawn by an image model when one is plugged in.

The model asks for a picture by writing ``<img data-image-prompt="a short description"
alt="...">`` without a ``src`` in an HTML file. After its reply is parsed, every distinct
description (up to a cap per site) is drawn once, saved as ``images/<hash>.png`` in the site, and
the tags get a ``src`` pointing at it (relative to the page). Descriptions already drawn in an
earlier round of the same site are not drawn again. Without an image model such a tag stays
without ``src`` and validation sends it back as a problem: images are SVG then.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import posixpath
import re
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from webdojo.errors import ModelError

if TYPE_CHECKING:  # the client pulls in openai; the checks below need none of it
    from webdojo.models.images import ImageClient, ImageResult

IMAGE_DIR = "images"
_IMG = re.compile(r"<img\b[^>]*>", re.I)
_PROMPT = re.compile(r"""\sdata-image-prompt\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_SRC = re.compile(r"""\ssrc\s*=""", re.I)
_REFUSED = {400, 422}  # the image model will not draw this description (policy, bad prompt)


@dataclass(frozen=True)
class ImageSettings:
    """How pictures are asked of the image model."""

    cap: int = 8  # distinct descriptions one reply may use; more is a problem sent back
    size: str = "512x512"  # the API's size parameter (dall-e-3 / gpt-image-1 want 1024x1024)


@dataclass
class Rendered:
    """A reply's files with their pictures drawn."""

    files: dict[str, str]  # the model's files, ``src`` filled in
    images: dict[str, bytes] = field(default_factory=dict)  # site path -> PNG
    problems: list[str] = field(default_factory=list)  # for the model; nothing drawn then
    drawn: int = 0  # pictures the image model drew for this reply


def image_path(prompt: str) -> str:
    """Where a description's picture lives in the site (the same description, the same file)."""
    return f"{IMAGE_DIR}/{hashlib.sha256(prompt.encode()).hexdigest()[:16]}.png"


def image_tags(files: dict[str, str]) -> list[tuple[str, str, bool]]:
    """``(file, description, has_src)`` of every ``<img data-image-prompt>`` in the HTML files."""
    found = []
    for name, text in sorted(files.items()):
        if not name.endswith(".html"):
            continue
        for tag in _IMG.finditer(text):
            described = _description(tag.group(0))
            if described is not None:
                found.append((name, described, _SRC.search(tag.group(0)) is not None))
    return found


def _description(tag: str) -> str | None:
    """An img tag's picture description, whitespace folded; None without the attribute."""
    prompt = _PROMPT.search(tag)
    if prompt is None:
        return None
    return " ".join(html.unescape(prompt.group(1) or prompt.group(2)).split())


def tag_problems(files: dict[str, str], cap: int) -> list[str]:
    """What keeps the pictures of these files from being drawn."""
    tags = image_tags(files)
    problems = [
        f"{name}: an <img data-image-prompt> has a src: leave src out, it is filled in"
        for name, _, has_src in tags
        if has_src
    ]
    problems += [
        f"{name}: an <img data-image-prompt> has an empty description"
        for name, prompt, _ in tags
        if not prompt
    ]
    distinct = {prompt for _, prompt, _ in tags if prompt}
    if len(distinct) > cap:
        problems.append(
            f"the site describes {len(distinct)} different pictures in "
            f"data-image-prompt; at most {cap} are drawn: reuse descriptions or "
            "draw the rest as SVG"
        )
    return list(dict.fromkeys(problems))


def fill_sources(files: dict[str, str]) -> dict[str, str]:
    """The files with each ``<img data-image-prompt>`` given the ``src`` of its picture."""
    return {
        name: _IMG.sub(partial(_fill_tag, name), text) if name.endswith(".html") else text
        for name, text in files.items()
    }


def _fill_tag(name: str, tag: re.Match[str]) -> str:
    text = tag.group(0)
    described = _description(text)
    if described is None or _SRC.search(text):
        return text
    src = posixpath.relpath(image_path(described), posixpath.dirname(name) or ".")
    return f'<img src="{src}"{text[4:]}'


class SiteImages:
    """The pictures of one site over its repair rounds: each description is drawn once."""

    def __init__(self, client: ImageClient, settings: ImageSettings) -> None:
        self.client = client
        self.settings = settings
        self.drawn: dict[str, bytes] = {}  # description -> PNG

    async def render(self, files: dict[str, str]) -> Rendered:
        problems = tag_problems(files, self.settings.cap)
        if problems:
            return Rendered(files, problems=problems)
        wanted = list(dict.fromkeys(prompt for _, prompt, _ in image_tags(files)))
        new = [prompt for prompt in wanted if prompt not in self.drawn]
        results = await asyncio.gather(
            *(self.client.generate(prompt, size=self.settings.size) for prompt in new),
            return_exceptions=True,
        )
        rendered = Rendered(files)
        for prompt, result in zip(new, results, strict=True):
            self._take(prompt, result, rendered)
        if not rendered.problems:
            rendered.files = fill_sources(files)
            rendered.images = {image_path(p): self.drawn[p] for p in wanted}
        return rendered

    def _take(self, prompt: str, result: ImageResult | BaseException, rendered: Rendered) -> None:
        if not isinstance(result, BaseException):
            self.drawn[prompt] = result.png
            rendered.drawn += 1
        elif isinstance(result, ModelError) and result.details.get("status") in _REFUSED:
            rendered.problems.append(
                f"the image model would not draw {prompt!r} ({result}): "
                "describe it differently or draw it as SVG"
            )
        else:
            raise result  # the endpoint failed: the run ends, like a failed chat call
