"""glibc's allocator settings for the long-lived processes: the server and its workers.

A soak showed that these processes' RSS grows for hours although malloc's bytes in use stay
level: the growth is freed memory that glibc keeps. Two of its defaults cause most of it in a
Python server:

* one heap ("arena") per thread, up to 8 per core. The built-in sites start a thread per
  connection, and each new thread may touch one more heap. Python allocates under the GIL, so
  more heaps buy no parallelism here: two are kept.
* a moving mmap threshold. A freed large block (a screenshot, a response body) raises the size
  above which glibc maps memory instead of carving the heap, so later large blocks fragment
  the heap. A fixed threshold keeps them mapped, and returned to the system when freed.

A setting the user chose through glibc's environment (``MALLOC_ARENA_MAX``,
``MALLOC_MMAP_THRESHOLD_``, ``GLIBC_TUNABLES``) is left as it is, and so is everything on a C
library without ``mallopt`` (musl, macOS). ``WEBDOJO_MALLOC_TUNING=0`` turns this off.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Callable

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
M_ARENA_MAX = -8
ARENA_MAX = 2
MMAP_THRESHOLD = 128 * 1024  # glibc's starting value, now kept fixed

_applied: list[str] = []  # what this process's tune_allocator() set

# each setting and the environment variables through which a user may have chosen it
_SETTINGS = (
    (M_ARENA_MAX, ARENA_MAX, "MALLOC_ARENA_MAX"),
    (M_MMAP_THRESHOLD, MMAP_THRESHOLD, "MALLOC_MMAP_THRESHOLD_"),
)


def tune_allocator() -> list[str]:
    """Apply the settings this process has not been given otherwise; returns their names.
    Call it early, before threads start: an arena, once made, is kept."""
    if os.environ.get("WEBDOJO_MALLOC_TUNING", "1") == "0" or "GLIBC_TUNABLES" in os.environ:
        return []
    mallopt = _mallopt()
    if mallopt is None:
        return []
    for param, value, env in _SETTINGS:
        name = env.rstrip("_")
        if env not in os.environ and name not in _applied and mallopt(param, value) == 1:
            _applied.append(name)  # mallopt answers 1 on success
    return applied()


def applied() -> list[str]:
    """The settings this process applied (a worker reports them in its stats)."""
    return list(_applied)


def _mallopt() -> Callable[[int, int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):  # no C library found, or no mallopt in it
        return None
    if not hasattr(libc, "gnu_get_libc_version"):
        return None  # another libc's mallopt takes other parameters
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt
