"""Which instances the loop trains on and which it only evaluates.

With ``--heldout``, the training and held-out sets are given (``family:shop-cart-pair:200@0``
and ``family:shop-cart-pair:50@10000``; ``miniwob:click-test:200@0`` and ``...:50@100000``):
they must not share an instance, or the held-out score would be a training score. With
``--heldout-ood``, tasks of kinds never trained on (other families, other MiniWoB++ pages) are
evaluated too: none may be of a kind the training set has. Without ``--heldout``, one task set
is cut by task, as before task families existed.

With ``--demos``, the teacher demonstrates those instances instead of the training ones
(round 0 clones them, and later rounds mix them in); the on-policy rounds still roll out on
``--tasks``, so a kind of task with no demonstration is learnt from its rewards alone. The
demonstrations are training data too: they may not share an instance with ``--heldout`` nor
a kind with ``--heldout-ood``.

Every task gets the loop's step cap; a task whose reference solution does not fit under it is
left out (the teacher could not demonstrate it), and a set left empty is an error.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from webdojo.errors import ConfigError
from webdojo.loop.config import LoopConfig
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.tasks.schema import Task

SHOWN = 3  # shared ids named in an overlap error


@dataclass
class Splits:
    train: TaskSet
    heldout: TaskSet
    demos: TaskSet  # what the teacher demonstrates in round 0: --demos, else ``train``
    ood: TaskSet | None = None

    def evaluated(self) -> dict[str, TaskSet]:
        """The sets each round is scored on, by the name the report gives them."""
        sets = {"train": self.train, "heldout": self.heldout}
        return sets | ({"heldout_ood": self.ood} if self.ood is not None else {})


def load_splits(config: LoopConfig) -> Splits:
    if config.heldout is None:
        train, held = _split_by_task(_capped(load_spec(config.tasks), config, "--tasks"), config)
    else:
        train = _capped(load_spec(config.tasks), config, "--tasks")
        held = _capped(load_spec(config.heldout), config, "--heldout")
        _check_disjoint(train, held, "--tasks")
    demos = None
    if config.demos is not None:
        demos = _capped(load_spec(config.demos), config, "--demos")
        _check_disjoint(demos, held, "--demos")
    ood = None
    if config.heldout_ood is not None:
        ood = _capped(load_spec(config.heldout_ood), config, "--heldout-ood")
        for trained, flag in ((train, "--tasks"), (demos, "--demos")):
            if trained is not None:
                _check_other_kinds(trained, ood, flag)
    return Splits(train, held, train if demos is None else demos, ood)


def kind_of(task: Task) -> str:
    """What a task is an instance of: its family, its MiniWoB++ page, else itself."""
    family = next((t.removeprefix("family:") for t in task.tags if t.startswith("family:")), None)
    page = task.meta.get("miniwob_task") if task.source == "miniwob" else None
    return family or (f"miniwob.{page}" if isinstance(page, str) else task.id)


def _capped(task_set: TaskSet, config: LoopConfig, flag: str) -> TaskSet:
    fits = [t for t in task_set.tasks if not t.solution or len(t.solution) + 1 <= config.max_steps]
    if not fits:
        shortest = min(len(t.solution) for t in task_set.tasks) + 1
        raise ConfigError(
            f"{flag}: no task's reference solution fits --max-steps {config.max_steps} "
            f"(the shortest takes {shortest} steps with its stop)"
        )
    capped = [t.model_copy(update={"step_cap": config.max_steps}) for t in fits]
    return TaskSet(capped, task_set.sites)


def _split_by_task(task_set: TaskSet, config: LoopConfig) -> tuple[TaskSet, TaskSet]:
    tasks = list(task_set.tasks)
    random.Random(config.seed).shuffle(tasks)
    train = tasks[: config.train_tasks]
    held = tasks[config.train_tasks : config.train_tasks + config.held_out]
    return TaskSet(train, task_set.sites), TaskSet(held, task_set.sites)


def _check_disjoint(train: TaskSet, held: TaskSet, flag: str) -> None:
    shared = sorted({t.id for t in train.tasks} & {t.id for t in held.tasks})
    if shared:
        raise ConfigError(
            f"--heldout shares {len(shared)} instances with {flag} ({', '.join(shared[:SHOWN])}"
            f"{', ...' if len(shared) > SHOWN else ''}): give held-out seeds outside the "
            "training range"
        )


def _check_other_kinds(train: TaskSet, ood: TaskSet, flag: str) -> None:
    shared = sorted({kind_of(t) for t in train.tasks} & {kind_of(t) for t in ood.tasks})
    if shared:
        raise ConfigError(
            f"--heldout-ood holds kinds of task {flag} trains on ({', '.join(shared[:SHOWN])}):"
            " out-of-distribution tasks must come from other families or pages"
        )
