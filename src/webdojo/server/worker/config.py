"""How a worker runs: its queues, its warm pool, when it recycles its browser, its deadlines."""

from __future__ import annotations

from dataclasses import dataclass, field

from webdojo.actions import MAX_WAIT_SECONDS
from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.options import SessionOptions
from webdojo.errors import ConfigError
from webdojo.server.worker.queues import Op, QueueMode

# What a pool adds to a worker's own deadline before it gives up on the worker: the hop
# between processes, pickling, and an event loop busy with other sessions.
RPC_MARGIN_S = 10.0


@dataclass(frozen=True)
class WorkerConfig:
    """One worker: one browser (recycled now and then), many sessions."""

    queue_mode: QueueMode = QueueMode.PER_OP  # FIFO = one shared queue (benchmark baseline)
    create_limit: int = 4  # concurrent creates and goto/back/forward steps (network-bound)
    execute_limit: int = 8  # concurrent other steps (in-page actions + observation)
    observe_limit: int = 8  # concurrent observe / final_state calls
    fifo_limit: int | None = None  # FIFO mode's shared limit; None = the sum of the three above
    queue_timeout_s: float = 60.0  # longest wait for a slot before Overloaded (nothing was done)
    # An operation still running this long gives its slot to the next waiter (queues.py): a
    # session whose navigation hangs must not hold up the others. None = slots are never lent.
    lend_after_s: float | None = 1.0
    warm_contexts: int = 2  # contexts + blank pages kept ready for new sessions (0 = none)
    # The context settings of warm contexts (the default viewport, locale...); a session asking
    # for other settings gets a cold context. Deadlines come from each session's own options.
    warm_options: SessionOptions = field(default_factory=SessionOptions)
    # Warm pages load the start URL of the latest episode ahead and observe it once, so that
    # the next episode at that URL starts with its first observation only (browsers.py).
    warm_preload: bool = True
    recycle_after_contexts: int = 200  # relaunch the browser after this many contexts
    # ... or when its processes' memory (PSS: shared pages counted once) exceeds this. A
    # browser takes about 140 MB plus 60-80 MB per session (DESIGN.md): keep the limit well
    # above what the worker's sessions need, so that it catches leaks, not load.
    max_browser_memory_mb: float = 4096.0
    memory_check_interval_s: float = 10.0  # how often the memory is measured (in a thread)
    browser: BrowserConfig = field(default_factory=BrowserConfig)  # how Chromium is launched
    # Keep one more browser launched ahead, so that replacing a dead or recycled browser costs
    # no launch (spare.py): faster recovery for about 130 MB PSS per worker.
    spare_browser: bool = False

    def __post_init__(self) -> None:
        for name in ("create_limit", "execute_limit", "observe_limit", "recycle_after_contexts"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, not {getattr(self, name)}")
        if self.fifo_limit is not None and self.fifo_limit < 1:
            raise ConfigError(f"fifo_limit must be at least 1, not {self.fifo_limit}")
        if self.lend_after_s is not None and self.lend_after_s <= 0:
            raise ConfigError(f"lend_after_s must be positive or None, not {self.lend_after_s}")
        if self.warm_contexts < 0 or self.queue_timeout_s <= 0:
            raise ConfigError("warm_contexts must be >= 0 and queue_timeout_s > 0")

    def limits(self) -> dict[Op, int]:
        return {
            Op.CREATE: self.create_limit,
            Op.EXECUTE: self.execute_limit,
            Op.OBSERVE: self.observe_limit,
        }

    def shared_limit(self) -> int:
        """FIFO mode's limit: by default the same total concurrency as the per-op queues."""
        return self.fifo_limit or sum(self.limits().values())

    def deadline_s(self, operation: str, session: SessionOptions) -> float:
        """The longest a worker may take to answer ``operation`` (a Worker method name):
        queue wait plus the sum of the session's own deadlines on the operation's path.
        A pool that hears nothing for longer than this (plus ``RPC_MARGIN_S``) may treat the
        worker as hung."""
        nav, act, popup = (
            session.navigation_timeout_s,
            session.action_timeout_s,
            session.popup_wait_s,
        )
        observe = nav + popup + 4 * act + 7  # popup adoption, DOM, screenshot (2x + 2), title
        work = {
            "create": 3 * nav + 1 + observe,  # context, first tab, start page
            "step": 2 * nav + 2 * act + popup + 2 + MAX_WAIT_SECONDS + observe,
            "observe": observe,
            "final_state": act + 1,
            "close": 30.0,  # the context, and a retired browser that closes with it
        }.get(operation, 10.0)
        return self.queue_timeout_s + work
