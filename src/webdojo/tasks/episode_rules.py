"""When an episode is over, and why: one pure function that every engine and the server call.

    reason = episode_end(max_steps=task.max_steps, steps_taken=3, action=action, error=error,
                         page_done=observation.page_done)

The rules, in order:

1. a fault the session cannot recover from (its page crashed, its browser or session is
   gone) ends the episode as ``fault``: it is never scored;
2. a ``stop`` that went through without an error ends it as ``stopped`` (a stop refused,
   e.g. by a dialog, does not: the agent sees the error and goes on);
3. a page that says its episode is over (``Observation.page_done``: MiniWoB++ pages, when
   their own JavaScript ended the episode) ends it as ``done``;
4. the step cap (per task; WebGym derives it from the difficulty) ends it as ``step_cap``.
   A page that never says it is done (a MiniWoB++ task left unsolved) ends here too: its
   verifier then finds no result and the episode scores 0.

No I/O: the inputs are the step count, the last step's action and error, and whether the
page (as observed after that step) said it was done.
"""

from __future__ import annotations

from enum import StrEnum

from webdojo.actions import Action, Stop
from webdojo.observation import ErrorInfo


class EndReason(StrEnum):
    """Why an episode ended; stored as the episode record's ``outcome``."""

    STOPPED = "stopped"  # the agent stopped
    STEP_CAP = "step_cap"  # the task's step cap was reached
    FAULT = "fault"  # an env/infra fault the session cannot recover from: never scored
    DONE = "done"  # the page said its episode was over (Observation.page_done)


# Errors after which the session shows nothing an agent could act on: going on would only fill
# the step cap with failures and score a broken environment as the agent's 0.
FATAL_CODES = frozenset({"page_crashed", "browser_closed", "session_lost"})


def is_fatal(error: ErrorInfo | None) -> bool:
    return error is not None and error.code in FATAL_CODES


def episode_end(
    *,
    max_steps: int | None,
    steps_taken: int,
    action: Action | None,
    error: ErrorInfo | None,
    page_done: bool = False,
) -> EndReason | None:
    """Why the episode is over after its latest step, or None if it goes on.

    ``steps_taken`` counts that step; ``error`` is the step's error (a parse error, the
    action's error), None when it went through. ``max_steps`` None: no cap (a server session
    opened at a URL, without a task). ``page_done``: the observation after the step said the
    page's episode was over."""
    if is_fatal(error):
        return EndReason.FAULT
    if isinstance(action, Stop) and error is None:
        return EndReason.STOPPED
    if page_done:
        return EndReason.DONE
    if max_steps is not None and steps_taken >= max_steps:
        return EndReason.STEP_CAP
    return None
