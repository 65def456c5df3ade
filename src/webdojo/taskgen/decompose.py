"""WebGym's task decomposition (Algorithm 1, §3.2), the part without a model: which subsets of a
rubric's fact groups become new tasks, and how a child task is linked to its parent.

* A task is eligible when its rubric has at least 2 groups and at least one *large* group
  (3 or more facts).
* Its candidates are the proper subsets of its groups that contain a large group, smallest
  first (``itertools.combinations`` order): groups of 2, 3 and 4 facts give {G2}=3, {G3}=4,
  {G1,G2}=5, {G1,G3}=6, {G2,G3}=7. {G1} has no large group; {G1,G2,G3} is the task itself.
* A child's rubric is its subset (group ids kept), so its difficulty is the subset's fact count,
  strictly below the parent's. Its id is ``<parent id>@g2+g3`` (``@``: a character task ids may
  hold and numbers do not need).

``subtasks.py`` asks the model to write each child's instruction.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

from webdojo.tasks.schema import FactGroup, Rubric, Task

LARGE_GROUP = 3  # facts that make a group "large"
MIN_GROUPS = 2  # groups a rubric needs to be decomposed
CHILD_SEP = "@"
MAX_ID = 200  # Task.id's limit
DECOMPOSED_TAG = "decomposed"

Subset = tuple[FactGroup, ...]


def is_large(group: FactGroup) -> bool:
    return len(group.facts) >= LARGE_GROUP


def is_eligible(groups: Sequence[FactGroup]) -> bool:
    return len(groups) >= MIN_GROUPS and any(is_large(g) for g in groups)


def candidate_subsets(groups: Sequence[FactGroup]) -> list[Subset]:
    """Every proper subset of ``groups`` holding a large group; [] when not eligible."""
    if not is_eligible(groups):
        return []
    return [
        subset
        for size in range(1, len(groups))
        for subset in itertools.combinations(groups, size)
        if any(is_large(g) for g in subset)
    ]


def subset_difficulty(subset: Subset) -> int:
    return sum(len(g.facts) for g in subset)


def subset_name(subset: Subset) -> str:
    """``g2+g3``: the groups by id."""
    return "+".join(f"g{g.id}" for g in subset)


def child_id(parent_id: str, subset: Subset) -> str:
    """``<parent>@g2+g3``; a parent id too long for that is cut and given a hash of the whole,
    so children of different long parents stay apart."""
    suffix = f"{CHILD_SEP}{subset_name(subset)}"
    if len(parent_id) + len(suffix) <= MAX_ID:
        return parent_id + suffix
    digest = hashlib.sha1(parent_id.encode("utf-8")).hexdigest()[:12]
    return f"{parent_id[: MAX_ID - len(suffix) - 13]}-{digest}{suffix}"


def child_task(
    parent: Task, subset: Subset, instruction: str, provenance: dict[str, Any] | None = None
) -> Task:
    """The child of ``parent`` for ``subset``, asking ``instruction``.

    Inherited: website, start URL, source, domain, subdomain, tags (+ ``decomposed``), meta
    (with ``meta["webdojo"]["groups"]``: the parent's group ids it keeps). Not inherited, since
    they belong to the whole task: reference answers, evaluation rules, verifier, solutions,
    step cap, level and difficulty (both follow from the child's rubric)."""
    ours = {**(parent.meta.get("webdojo") or {}), **(provenance or {})}
    ours["groups"] = [g.id for g in subset]
    tags = [*parent.tags, *([] if DECOMPOSED_TAG in parent.tags else [DECOMPOSED_TAG])]
    return Task(
        id=child_id(parent.id, subset),
        instruction=instruction,
        website=parent.website,
        start_url=parent.start_url,
        source=parent.source,
        domain=parent.domain,
        subdomain=parent.subdomain,
        rubric=Rubric(fact_groups=list(subset)),
        parent_id=parent.id,
        tags=tags,
        meta={**parent.meta, "webdojo": ours},
    )
