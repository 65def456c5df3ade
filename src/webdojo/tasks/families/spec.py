"""``--tasks family:NAME[+NAME...][:N][@SEED]``: instances of task families.

``family:shop-cart`` is instances 0..99 of ``shop-cart``; ``family:shop-cart:500`` the first
500; ``family:shop-cart:50@10000`` the 50 from seed 10000 on; ``family:shop-cart+admin-role:20``
20 of each; ``family`` alone 100 of every family. Seeds past a family's size are a
``TaskFileError`` (so are unknown names, with the close ones), never a silent wrap-around:
two disjoint seed ranges are two disjoint instance sets.
"""

from __future__ import annotations

import difflib
import re

from webdojo.errors import TaskFileError, UnknownTask
from webdojo.tasks.families.family import Family
from webdojo.tasks.families.registry import families
from webdojo.tasks.schema import Task

DEFAULT_COUNT = 100
_SPEC = re.compile(r"family(?::(?P<names>[a-z0-9+-]+))?(?::(?P<count>\d+))?(?:@(?P<seed>\d+))?")


def family_tasks(source: str) -> list[Task]:
    """The instances a ``family:...`` source names (see the module docstring)."""
    match = _SPEC.fullmatch(source)
    if match is None:
        raise TaskFileError(
            f"{source!r}: a family source is family:NAME[+NAME...][:N][@SEED], "
            "e.g. family:shop-cart:200@0"
        )
    count = int(match["count"] or DEFAULT_COUNT)
    seed = int(match["seed"] or 0)
    if count < 1:
        raise TaskFileError(f"{source!r}: N must be at least 1")
    chosen = [find_family(n) for n in match["names"].split("+")] if match["names"] else None
    tasks: list[Task] = []
    for family in chosen or list(families().values()):
        family.check_seed(seed + count - 1)
        tasks.extend(family.instance(s) for s in range(seed, seed + count))
    return tasks


def find_family(name: str) -> Family:
    known = families()
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, list(known), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownTask(
        f"no task family {name!r}{hint} (`webdojo tasks families` lists them)",
        family=name,
        close=close,
    )
