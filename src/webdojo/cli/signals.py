"""Ctrl-C as webdojo's commands rely on it.

Every long command stops on SIGINT through Python's ``KeyboardInterrupt``: a run keeps what it
collected and says how to resume, a server closes its sessions, a viewer stops serving. A
process started as a background job of a script inherits SIGINT ignored (POSIX), and one
started by some supervisors or test runners inherits it blocked; Python then never raises
``KeyboardInterrupt``, and ``kill -INT`` (or Ctrl-C on the script) leaves the command running.
"""

from __future__ import annotations

import signal
import threading


def restore_ctrl_c() -> None:
    """Take SIGINT's default handling back (main thread only; elsewhere nothing to do)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
