"""MiniWoB++ as a task set: one task per page of the installed ``miniwob`` package.

``--tasks miniwob`` selects every task, ``--tasks miniwob:click-test,enter-text`` (or
``miniwob:click-test+enter-text``) some of them. Each task:

* id ``miniwob.<name>``, source ``miniwob``, site ``miniwob`` (the package's ``html/``
  directory, served with webdojo's page script: ``webdojo.tasks.miniwob_pages``);
* start page ``miniwob/<name>.html?seed={seed}``: the env puts the episode's seed there;
* a generic instruction: the real one is drawn by the page from the seed and shown at the top
  of the page (MiniWoB's ``#query``), so the agent reads it in the observation;
* a programmatic verifier on the result the page script stores: passed when the page's raw
  reward is positive (``success``); an episode the page never ended has no result and fails;
* a step cap of ``STEP_CAP`` (``LONG_STEP_CAP`` for the tasks that need many actions).
"""

from __future__ import annotations

import difflib

from webdojo.errors import TaskFileError
from webdojo.tasks import miniwob_pages as env
from webdojo.tasks.loader import Site, TaskSet
from webdojo.tasks.schema import SiteInfo, StorageCheck, Task, Verifier

SOURCE = "miniwob"
STEP_CAP = 10  # the short tasks take 1-6 actions; slack for a wrong click or two
LONG_STEP_CAP = 25  # forms, inboxes, sequences, large checkbox lists, games
LONG_TASKS = frozenset(
    [
        "book-flight",
        "book-flight-nodelay",
        "click-checkboxes-large",
        "click-checkboxes-soft",
        "click-checkboxes-transfer",
        "email-inbox",
        "email-inbox-delete",
        "email-inbox-forward",
        "email-inbox-forward-nl",
        "email-inbox-forward-nl-turk",
        "email-inbox-important",
        "email-inbox-nl-turk",
        "email-inbox-noscroll",
        "email-inbox-reply",
        "email-inbox-star-reply",
        "form-sequence",
        "form-sequence-2",
        "form-sequence-3",
        "login-user-popup",
        "multi-layouts",
        "multi-orderings",
        "search-engine",
        "social-media",
        "social-media-all",
        "social-media-some",
        "terminal",
        "text-editor",
        "tic-tac-toe",
        "use-autocomplete",
        "use-autocomplete-nodelay",
        "choose-date",
        "choose-date-easy",
        "choose-date-medium",
        "choose-date-nodelay",
        "click-collapsible-2",
        "click-collapsible-2-nodelay",
        "click-tab-2",
        "click-tab-2-easy",
        "click-tab-2-medium",
        "click-tab-2-hard",
        "navigate-tree",
        "order-food",
        "buy-ticket",
        "daily-calendar",
        "drag-items",
        "drag-items-grid",
        "drag-sort-numbers",
        "number-checkboxes",
        "phone-book",
        "stock-market",
        "click-button-sequence",
        "copy-paste",
        "copy-paste-2",
        "find-word",
    ]
)
INSTRUCTION = (
    "MiniWoB++ task {name}: do what the instruction at the top of the page says. "
    "The page scores the episode itself and ends it when it is done."
)


def load_miniwob(
    names: list[str] | None = None, count: int | None = None, first_seed: int = 0
) -> TaskSet:
    """The MiniWoB++ tasks (all when ``names`` is None or empty), with the site that serves
    them; with ``count``, ``count`` instances of each from page seed ``first_seed`` on
    (``miniwob_instance``) instead. ``MissingDependency`` when ``miniwob`` is not installed;
    ``TaskFileError`` for a name the package does not have."""
    root = env.html_dir()
    known = env.task_names(root)
    wanted = list(dict.fromkeys(names)) if names else known
    unknown = [n for n in wanted if n not in known]
    if unknown:
        hints = [
            f"{n} (did you mean {', '.join(close)}?)" if (close := _close(n, known)) else n
            for n in unknown
        ]
        raise TaskFileError(f"no such MiniWoB++ task(s): {'; '.join(hints)}")
    tasks = (
        [miniwob_task(n) for n in wanted]
        if count is None
        else [miniwob_instance(n, s) for n in wanted for s in range(first_seed, first_seed + count)]
    )
    return TaskSet(
        tasks=tasks,
        sites={env.SITE: Site(info=site_info(wanted), path=root, inject=env.page_script())},
    )


def miniwob_task(name: str) -> Task:
    return Task(
        id=f"miniwob.{name}",
        instruction=INSTRUCTION.format(name=name),
        website=env.SITE,
        start_url=env.page_path(name),
        source=SOURCE,
        verifier=Verifier(
            checks=[StorageCheck(key=env.STORAGE_KEY, path="success", op="eq", value=True)]
        ),
        step_cap=LONG_STEP_CAP if name in LONG_TASKS else STEP_CAP,
        tags=["miniwob"],
        meta={"miniwob_task": name},
    )


def miniwob_instance(name: str, seed: int) -> Task:
    """One instance of a MiniWoB++ task: its page with a fixed seed (every episode draws the
    same instruction and layout), id ``miniwob.<name>.<seed>``. Disjoint seed ranges are how
    training and held-out instances are split (``--tasks miniwob:click-test:200@0``)."""
    task = miniwob_task(name)
    return task.model_copy(
        update={
            "id": f"{task.id}.{seed}",
            "start_url": env.page_path(name).replace("{seed}", str(seed)),
            "meta": {**task.meta, "seed": seed},
        }
    )


def task_name(task: Task) -> str | None:
    """The MiniWoB++ page name of a task of this set, else None."""
    if task.source != SOURCE:
        return None
    name = task.meta.get("miniwob_task")
    return name if isinstance(name, str) else None


def site_info(names: list[str]) -> SiteInfo:
    return SiteInfo(
        name=env.SITE,
        title="MiniWoB++",
        description="the MiniWoB++ task pages of the installed miniwob package",
        style="MiniWoB's 160x210 task area, plain HTML widgets",
        capabilities=["miniwob"],
        pages=[env.page_path(n).replace("{seed}", "0") for n in names],
    )


def _close(name: str, known: list[str]) -> list[str]:
    return difflib.get_close_matches(name, known, n=3)
