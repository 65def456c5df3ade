"""Task families on the built-in booking site (none yet)."""

from __future__ import annotations

from webdojo.tasks.families.family import Family

FAMILIES: list[Family] = []
