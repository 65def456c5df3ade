"""When an episode is over, and why: one pure function that every engine and the server call.

    reason = episode_end(max_steps=task.max_steps, steps_taken=3, action=action, error=error)

The rules, in order:

1. a fault the session cannot recover from (its page crashed, its browser or session is
   gone) ends the episode as ``fault``: it is never scored;
2. a ``stop`` that went through without an error ends it as ``stopped`` (a stop refused,
   e.g. by a dialog, does not: the agent sees the error and goes on);
3. the step cap (per task; WebGym derives it from the difficulty) ends it as ``step_cap``.

No I/O: the inputs are the step count and the last step's action and error.
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


# Errors after which the session shows nothing an agent could act on: going on would only fill
# the step cap with failures and score a broken environment as the agent's 0.
FATAL_CODES = frozenset({"page_crashed", "browser_closed", "session_lost"})


def is_fatal(error: ErrorInfo | None) -> bool:
    return error is not None and error.code in FATAL_CODES


def episode_end(
    *, max_steps: int | None, steps_taken: int, action: Action | None, error: ErrorInfo | None
) -> EndReason | None:
    """Why the episode is over after its latest step, or None if it goes on.

    ``steps_taken`` counts that step; ``error`` is the step's error (a parse error, the
    action's error), None when it went through. ``max_steps`` None: no cap (a server session
    opened at a URL, without a task)."""
    if is_fatal(error):
        return EndReason.FAULT
    if isinstance(action, Stop) and error is None:
        return EndReason.STOPPED
    if max_steps is not None and steps_taken >= max_steps:
        return EndReason.STEP_CAP
    return None
