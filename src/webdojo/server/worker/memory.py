"""How much memory a worker's browsers use (the measure behind ``max_browser_memory_mb``)."""

from __future__ import annotations

import contextlib
import time

import psutil


class ProcessTree:
    """Memory of this worker's browsers: each Chromium's main process (the pid Chromium
    reports, see ``BrowserHost.pid``) and all of its descendants (zygotes, renderers, GPU and
    utility processes). Other children of the process (other browsers, servers in a test
    process) are not counted.

    Memory is PSS, not RSS: each of Chromium's processes maps the same binary and shared
    memory, so summed RSS counts them once per process (a browser with six sessions measured
    2.4 GB RSS for 530 MB PSS). Reading PSS makes the kernel walk page tables (0.1-0.5 s for
    a loaded browser), so ``measure`` blocks: call it in a thread."""

    def __init__(self) -> None:
        self.pss_mb = 0.0
        self.rss_mb = 0.0
        self.measured_at = -1.0  # time.monotonic() when the last measurement began

    def measure(self, browser_pids: list[int]) -> None:
        started = time.monotonic()
        pss = rss = 0
        for pid in browser_pids:
            try:
                root = psutil.Process(pid)
                tree = [root, *root.children(recursive=True)]
            except psutil.Error:
                continue  # gone: a dead browser is not using memory
            for proc in tree:
                with contextlib.suppress(psutil.Error):
                    info = proc.memory_full_info()
                    pss, rss = pss + getattr(info, "pss", info.rss), rss + info.rss
        self.pss_mb, self.rss_mb = pss / 2**20, rss / 2**20
        self.measured_at = started
