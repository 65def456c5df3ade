"""webdojo: train and evaluate web-browsing agents.

``webdojo.make(task)`` and ``webdojo.make_async(task)`` give an environment for one task
(``webdojo.environment``); every built-in and MiniWoB++ task is a Gymnasium id,
``webdojo/<task id>``, once Gymnasium is imported. The rest is the ``webdojo`` command.
Importing this package is cheap: what these need is imported when they are called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webdojo.environment.gym_registration import register_when_gymnasium_loads

if TYPE_CHECKING:
    from webdojo.environment.async_env import AsyncEnv
    from webdojo.environment.sync_env import Env
    from webdojo.tasks.schema import Task


def make(task: str | Task, **options: Any) -> Env:
    """A blocking environment for one task: ``reset``, ``step``, ``close`` (see
    ``webdojo.environment.make.make_async`` for the options)."""
    from webdojo.environment.make import make as make_env

    return make_env(task, **options)


async def make_async(task: str | Task, **options: Any) -> AsyncEnv:
    """An asyncio environment for one task (``webdojo.environment.make.make_async``)."""
    from webdojo.environment.make import make_async as make_env

    return await make_env(task, **options)


register_when_gymnasium_loads()

__all__ = ["make", "make_async"]
