"""Every built-in and MiniWoB++ task as a Gymnasium id: ``webdojo/<task id>``.

    import gymnasium as gym
    import webdojo
    env = gym.make("webdojo/admin.deactivate-priya")       # or webdojo/miniwob.click-test

``import webdojo`` registers the ids, in either import order, without importing Gymnasium:
if it is loaded already they are registered at once, otherwise as soon as it loads (an
import hook that runs once). A process that never imports Gymnasium pays nothing, which
keeps every ``webdojo`` command's start fast. ``max_episode_steps`` is each task's step cap.
The MiniWoB++ tasks that run on the page's clock (``REAL_TIME``: a circle that moves, prices
that tick) are registered ``nondeterministic``, Gymnasium's flag for an environment whose
seeded reset and steps cannot repeat exactly; its ``check_env`` then skips those two checks.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

NAMESPACE = "webdojo"
ENTRY_POINT = "webdojo.environment.gym_env:WebdojoGymEnv"
# MiniWoB++ pages driven by wall-clock timers: what an observation shows depends on elapsed time
REAL_TIME = frozenset({"chase-circle", "stock-market"})


def register_all() -> list[str]:
    """Register every built-in task and every installed MiniWoB++ task; returns the ids."""
    from gymnasium.envs.registration import register, registry

    ids = []
    for task_id, max_steps in _tasks():
        env_id = f"{NAMESPACE}/{task_id}"
        if env_id not in registry:
            register(
                id=env_id,
                entry_point=ENTRY_POINT,
                max_episode_steps=max_steps,
                nondeterministic=task_id.removeprefix("miniwob.") in REAL_TIME,
                kwargs={"task": task_id},
            )
        ids.append(env_id)
    return ids


def _tasks() -> list[tuple[str, int]]:
    from webdojo.errors import MissingDependency
    from webdojo.tasks.loader import load_spec
    from webdojo.tasks.miniwob import miniwob_task
    from webdojo.tasks.miniwob_pages import task_names

    found = [(t.id, t.max_steps) for t in load_spec("builtin").tasks]
    try:
        names = task_names()
    except MissingDependency:  # MiniWoB++ is an extra: its ids exist when it is installed
        names = []
    return found + [(t.id, t.max_steps) for t in map(miniwob_task, names)]


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``gymnasium`` is first imported it wraps the real loader so
    that our ids are registered right after the package has loaded, then steps aside."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)  # once; the other finders find the package
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load = spec.loader.exec_module

        def load_then_register(module: ModuleType) -> Any:
            load(module)
            try:
                register_all()
            except Exception as exc:  # never break the import of Gymnasium itself
                warnings.warn(f"webdojo could not register its Gymnasium ids: {exc}", stacklevel=2)

        spec.loader.exec_module = load_then_register  # type: ignore[method-assign]
        return spec


def register_when_gymnasium_loads() -> None:
    """Register now if Gymnasium is loaded, else as soon as it is (see the module docstring)."""
    if "gymnasium" in sys.modules:
        register_all()
    elif not any(isinstance(f, _RegisterAfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterImport())
