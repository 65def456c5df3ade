"""Scripted solvers for MiniWoB++ tasks: the scripted policy's answer where a static
solution cannot work, because each page draws its instruction and layout from the seed.

A solver is a pure function of a ``Page`` (the instruction the page shows, its elements, the
number of actions taken so far) returning the next action, or ``None`` when it cannot tell
(the policy then reports an error decision and tries again on the next observation). Solvers
read the page as an agent would: the instruction is the first text of the accessibility tree
(MiniWoB's ``#query`` box tops every page), elements come from the element list. Most are
stateless (they look at what is already checked or typed); the few sequences count steps.

The registry is ``SOLVERS`` (task name -> solver, filled by ``webdojo.policies.miniwob_solvers``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from webdojo.actions import Action, Click
from webdojo.errors import UnknownElement
from webdojo.history import Decision, Step
from webdojo.observation import Element, Observation
from webdojo.tasks.miniwob import task_name
from webdojo.tasks.schema import Task

_FIRST_TEXT = re.compile(r"^StaticText '(.*)'$", re.MULTILINE)


@dataclass(frozen=True)
class Page:
    """What a solver sees of one observation."""

    query: str  # the page's instruction (and, when merged into one text run, what follows it)
    elements: list[Element]
    steps: int  # actions taken so far in this episode

    def by_role(self, *roles: str) -> list[Element]:
        return [e for e in self.elements if e.role in roles]

    def named(self, name: str, roles: Iterable[str] = ()) -> Element | None:
        """The first element (of ``roles``, if given) whose name is ``name`` (spaces folded)."""
        wanted = " ".join(name.split()).casefold()
        pool = self.by_role(*roles) if roles else self.elements
        return next((e for e in pool if " ".join(e.name.split()).casefold() == wanted), None)

    def match(self, pattern: str) -> re.Match[str] | None:
        return re.search(pattern, self.query)


Solver = Callable[[Page], Action | None]
SOLVERS: dict[str, Solver] = {}


def solver(*names: str) -> Callable[[Solver], Solver]:
    """Register a solver for these MiniWoB++ task names."""

    def register(fn: Solver) -> Solver:
        for name in names:
            SOLVERS[name] = fn
        return fn

    return register


def click(element: Element | None) -> Action | None:
    return None if element is None else Click(element=element.id)


def page_of(observation: Observation, history: list[Step]) -> Page | None:
    """The page as solvers see it; None without an element list. The instruction is the
    page's title (webdojo's page script puts it there), else the accessibility tree's first
    text when the observation has one."""
    if observation.elements is None:
        return None
    query = " ".join(observation.title.split())
    if observation.axtree is not None and (found := _FIRST_TEXT.search(observation.axtree)):
        query = " ".join(found.group(1).split())
    steps = sum(1 for s in history if s.decision.action is not None)
    return Page(query=query, elements=list(observation.elements), steps=steps)


def solvable(task: Task) -> bool:
    """Is this a MiniWoB++ task with a registered solver?"""
    name = task_name(task)
    return name is not None and name in SOLVERS


def solve(task: Task, observation: Observation, history: list[Step]) -> Decision:
    """The next decision for a MiniWoB++ task (``solvable(task)`` must hold)."""
    started = time.perf_counter()
    name = task_name(task)
    assert name is not None and name in SOLVERS, f"{task.id} has no MiniWoB++ solver"
    page = page_of(observation, history)
    action = None if page is None else SOLVERS[name](page)
    if action is None:
        why = (
            "the MiniWoB++ solver needs the element list"
            if page is None
            else f"the {name} solver found nothing to do on this page: {page.query!r}"
        )
        error = UnknownElement(why).info()
        return Decision(f"({why})", None, error, latency_s=time.perf_counter() - started)
    return Decision(action.describe(), action, latency_s=time.perf_counter() - started)


# the solvers register themselves on import; they need the names above
from webdojo.policies import miniwob_solvers  # noqa: E402, F401
