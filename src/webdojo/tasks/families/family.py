"""``Family``: a parameterized task template whose instances are drawn by seed.

A family is a task template on one of webdojo's sites and the lists its parameters come from
(``axes``): every combination is one instance, so a family has ``size`` = the product of the
lists' lengths distinct instances. Instance seeds run from 0 to ``size - 1``; a seed picks its
combination through a fixed shuffle (``index_of``), so neighbouring seeds differ in every
parameter and any range of seeds is a sample of the whole family. Disjoint seed ranges are
disjoint instance sets: that is how training and held-out instances are split.

``build(*params)`` returns the instance's own parts (``Instance``): instruction, start page,
verifier checks, reference solution and at least one wrong solution. The task id is
``family.<name>.<seed>`` and its tags name the family, so records, reports and selection can
group by family.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from webdojo.errors import TaskFileError
from webdojo.tasks.schema import Task

SOURCE = "family"
ID_PREFIX = "family."
GOLDEN = 0.6180339887498949  # a stride near size/phi sends neighbouring seeds far apart


@functools.cache
def _stride(size: int) -> int:
    stride = max(1, round(size * GOLDEN))
    while math.gcd(stride, size) != 1:
        stride += 1
    return stride


@dataclass(frozen=True)
class Instance:
    """What ``build`` makes of one combination of parameters (the task's own fields)."""

    instruction: str
    solution: list[dict[str, Any]]
    wrong_solutions: list[list[dict[str, Any]]]
    checks: list[dict[str, Any]]
    start_url: str = "index.html"
    params: dict[str, Any] = field(default_factory=dict)  # shown in `tasks families` samples


@dataclass(frozen=True)
class Family:
    """A task template on ``site`` and its parameter lists (see the module docstring)."""

    name: str
    site: str
    summary: str
    axes: tuple[Sequence[Any], ...]
    build: Callable[..., Instance]
    max_steps: int = 10
    tags: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return math.prod(len(axis) for axis in self.axes)

    def index_of(self, seed: int) -> int:
        """The combination a seed picks: a fixed permutation of 0..size-1. The stride is
        coprime to the size (so it is a permutation) and near size/phi, so that consecutive
        seeds land far apart and every parameter varies over a short range of seeds."""
        self.check_seed(seed)
        return (seed * _stride(self.size) + self.size // 3) % self.size

    def params(self, seed: int) -> tuple[Any, ...]:
        """The parameters of instance ``seed`` (mixed radix over the axes)."""
        index, values = self.index_of(seed), []
        for axis in reversed(self.axes):
            index, digit = divmod(index, len(axis))
            values.append(axis[digit])
        return tuple(reversed(values))

    def instance(self, seed: int) -> Task:
        """Instance ``seed`` as a task."""
        made = self.build(*self.params(seed))
        return Task.model_validate(
            {
                "id": f"{ID_PREFIX}{self.name}.{seed}",
                "instruction": made.instruction,
                "website": self.site,
                "start_url": made.start_url,
                "source": SOURCE,
                "verifier": {"checks": made.checks},
                "solution": made.solution,
                "wrong_solutions": made.wrong_solutions,
                "step_cap": self.max_steps,
                "tags": [f"family:{self.name}", *self.tags],
                "meta": {"family": self.name, "seed": seed, "params": made.params},
            }
        )

    def check_seed(self, seed: int) -> None:
        if not 0 <= seed < self.size:
            raise TaskFileError(
                f"family {self.name!r} has {self.size} instances: seeds 0..{self.size - 1}, "
                f"not {seed}",
                family=self.name,
            )
