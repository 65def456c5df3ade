"""When a managed pool's worker retires: after ``max_worker_sessions`` sessions, by default.

A worker process's memory grows with what it has served: freed memory that glibc and Python's
arenas keep after each new peak, and the Playwright driver's heap. Replacing the worker now
and then bounds that, for one worker start (a Python process and its Chromium) per so many
sessions. Kept apart from ``slots.py`` so that the command line can show the default without
importing the pool.
"""

from __future__ import annotations

DEFAULT_MAX_WORKER_SESSIONS = 250


def retire_after(limit: int, slot_index: int, workers: int, generation: int) -> int:
    """Sessions worker number ``generation`` (1 = the first) of slot ``slot_index`` creates
    before it retires; 0: never. Sessions are spread evenly over the slots, so their first
    workers would all retire together and leave none to take new sessions while the
    replacements start. Instead the first worker of slot i retires after its share of the
    limit, ``limit * (1 - i / workers)``, and every later one after all of it: the slots'
    retirements stay that far apart."""
    if limit <= 0:
        return 0
    if generation > 1:
        return limit
    return max(1, limit - slot_index * limit // workers)
