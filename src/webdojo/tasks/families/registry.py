"""Every task family webdojo ships, by name (one module per built-in site defines them)."""

from __future__ import annotations

import functools

from webdojo.tasks.families.family import Family


@functools.cache
def families() -> dict[str, Family]:
    # the site modules build on family.py (and read the sites' data files)
    from webdojo.tasks.families import admin, booking, forms, login, shop, wiki

    found: dict[str, Family] = {}
    for module in (admin, booking, forms, login, shop, wiki):
        for family in module.FAMILIES:
            if family.name in found:
                raise ValueError(f"two task families are called {family.name!r}")
            found[family.name] = family
    return found
