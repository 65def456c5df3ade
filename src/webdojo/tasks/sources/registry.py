"""Every known task-set format, by name, in the order detection tries them (the more specific
first: DeepShop before WebVoyager, whose fields it extends)."""

from __future__ import annotations

from webdojo.errors import TaskFileError
from webdojo.tasks.sources import (
    builtin,
    deepshop,
    insta,
    mind2web2,
    mind2web_live,
    online_mind2web,
    qa,
    webgym,
    webvoyager,
)
from webdojo.tasks.sources.base import Format

FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        deepshop.FORMAT,
        webvoyager.FORMAT,
        online_mind2web.FORMAT,
        mind2web_live.FORMAT,
        mind2web2.FORMAT,
        webgym.FORMAT,
        insta.FORMAT,
        qa.FLASHRAG,
        qa.VERL_QA,
        builtin.FORMAT,
    )
}


def get_format(name: str) -> Format:
    """The format called ``name``; TaskFileError lists the known ones."""
    try:
        return FORMATS[name]
    except KeyError:
        raise TaskFileError(f"unknown format {name!r}; known formats: {known()}") from None


def known() -> str:
    return ", ".join(FORMATS)
