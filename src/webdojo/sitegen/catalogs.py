"""The three catalogs a generated site is sampled from: navigation capabilities, website
categories and visual styles (our own lists, in ``catalogs/*.txt``: one entry a line, ``#``
starts a comment). Sampling them is what keeps generated sites from converging to one look."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from webdojo.errors import ConfigError

CATALOGS = ("capabilities", "categories", "styles")


@dataclass(frozen=True)
class Triple:
    """What one site is about."""

    capability: str  # the navigation skill its tasks exercise, e.g. "date range selection"
    category: str  # the kind of website, e.g. "yoga studio"
    style: str  # the look, e.g. "Editorial"


@cache
def catalog(name: str) -> tuple[str, ...]:
    """The entries of one catalog, in file order."""
    if name not in CATALOGS:
        raise ConfigError(f"no catalog {name!r}; known: {', '.join(CATALOGS)}")
    text = (resources.files("webdojo.sitegen") / "catalogs" / f"{name}.txt").read_text("utf-8")
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def sample_triples(n: int, seed: int) -> list[Triple]:
    """``n`` triples drawn with one RNG seeded by ``seed``. Each site takes three draws in
    order, so the first k triples are the same for any n >= k (a resumed run with a larger
    ``--n`` keeps the sites it has)."""
    rng = random.Random(seed)
    caps, cats, styles = (catalog(name) for name in CATALOGS)
    return [Triple(rng.choice(caps), rng.choice(cats), rng.choice(styles)) for _ in range(n)]


def site_name(index: int, triple: Triple) -> str:
    """A directory (and site) name: the index, then the category as a slug."""
    slug = re.sub(r"[^a-z0-9]+", "-", triple.category.lower()).strip("-")[:40].rstrip("-")
    return f"gen{index:04d}-{slug or 'site'}"
