"""The soak's fault injector: fires each scheduled fault when the acknowledged steps reach its
step number, and measures how long the environment takes to serve again.

Recovery, by kind:

* tab crash (SIGKILL of one renderer): the worker hit is the one whose scratch directory the
  renderer ran in (``webdojo.server.worker.scratch``). The crash hit a session if one of that
  worker's sessions answered with a fault (``page_crashed``) after it; the soak knows this
  once every session open on that worker at the crash has answered again (or
  ``ATTRIBUTE_S`` passed). A crash that hit a session has recovered at the worker's first
  answer after the last such fault answer: a step it acknowledges, or a session it creates
  (the replacement episode's, when the crashed session was the worker's only one); one that
  hit no session (a renderer of a spare warm page nobody used) at the worker's first answer
  after the crash. Both are timed from the kill;
* browser and worker kills: the worker hit is the one whose session first reports a fault
  after the kill (a lost session, a closed browser; how long that took is ``detect_s``).
  They have recovered when a session created after the kill has a step acknowledged on that
  worker (every session there was lost: only a new one shows that service is back). One
  that hit no session recovers at the first step of any session created after it;
* server kill: when a session created after the restart has a step acknowledged;
* page faults: the soak's own session opens the fault page and acts; the fault has recovered
  when the same session's next step (a plain page) succeeds, timed from the faulty answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Protocol

import psutil

from webdojo.actions import Action, Click, Goto
from webdojo.bench import soak_faults as faults
from webdojo.bench.soak_faults import FaultKind, FaultSite
from webdojo.bench.soak_track import FAULT_CODES, Event, TrackedEnv, Tracker
from webdojo.errors import WebdojoError
from webdojo.observation import Observation, ObservationOptions

ATTRIBUTE_S = 15.0  # how long a process fault may take to show in a session's answer
PAGE_START = {
    FaultKind.HUNG_NAVIGATION: "/plain",
    FaultKind.SLOW_PAGE: "/plain",
    FaultKind.DIALOG: "/dialog",
    FaultKind.POPUP: "/popup",
    FaultKind.DOWNLOAD: "/download",
}
OPTIONS = ObservationOptions(elements=True)


class ServerControl(Protocol):
    """What the injector needs of the soak's server (``webdojo.bench.soak.SoakServer``)."""

    @property
    def pid(self) -> int: ...

    def kill_and_restart(self) -> None: ...


class Injector:
    """Fires a schedule of faults against a running soak."""

    def __init__(
        self,
        server: ServerControl,
        probe_env: TrackedEnv,
        site: FaultSite,
        *,
        seed: int,
        recovery_timeout_s: float,
        seen: Callable[[], None],
    ) -> None:
        self.server = server
        self.env = probe_env
        self.tracker: Tracker = probe_env.tracker
        self.site = site
        self.rng = random.Random(seed)
        self.recovery_timeout_s = recovery_timeout_s
        self.seen = seen  # notes the server's processes (for the leftover check)
        self.injected: Counter[str] = Counter()
        self.recovered: Counter[str] = Counter()
        self.recovery_s: dict[str, list[float]] = defaultdict(list)
        self.detect_s: dict[str, list[float]] = defaultdict(list)  # until a client saw it
        self.notes: list[str] = []
        self.tab_crashes: list[dict[str, object]] = []  # per recovered tab crash
        self.log: list[tuple[float, int, str]] = []  # (time.time(), acknowledged steps, kind)

    async def run(self, plan: list[tuple[int, FaultKind]]) -> None:
        for step, kind in plan:
            while self.tracker.acked < step:
                await asyncio.sleep(0.05)
            await self.inject(kind)

    async def inject(self, kind: FaultKind) -> None:
        """Fire one fault and wait until it has recovered (or the recovery timed out), so
        that each fault is measured alone and the next one fires on a recovered server."""
        self.log.append((round(time.time(), 2), self.tracker.acked, str(kind)))
        if kind in faults.PAGE_KINDS:
            await self._page_fault(kind)
            return
        self.seen()
        mark = len(self.tracker.acks), len(self.tracker.errors)
        t0 = time.monotonic()
        if kind is FaultKind.SERVER_KILL:
            self.injected[kind] += 1
            self.tracker.killing_server()
            try:
                await asyncio.to_thread(self.server.kill_and_restart)
            finally:
                self.tracker.server_back()
            await self._recover(kind, t0, mark)
            return
        target = self._target(kind)
        slot = faults.slot_of(target) if target is not None else None
        live = {s for s, w in self.tracker.live.items() if w == slot}  # before the kill
        browser = faults.browser_of(target) if target is not None else None
        t0 = time.monotonic()
        if target is None or not faults.kill(target):
            self.notes.append(f"{kind}: no process to kill at step {self.tracker.acked}")
            return
        self.injected[kind] += 1
        if kind is FaultKind.TAB_CRASH and slot is not None:
            opens = len(self.tracker.opens)
            await self._recover_tab(t0, (*mark, opens), slot, live, browser)
        else:
            await self._recover(kind, t0, mark)

    def _target(self, kind: FaultKind) -> psutil.Process | None:
        pid = self.server.pid
        found = {
            FaultKind.TAB_CRASH: faults.renderers,
            FaultKind.BROWSER_KILL: faults.browsers,
            FaultKind.WORKER_KILL: faults.workers,
        }[kind](pid)
        return faults.pick(found, self.rng)

    # --- recovery -----------------------------------------------------------------------------

    async def _recover_tab(
        self,
        t0: float,
        mark: tuple[int, int, int],
        worker: str,
        live: set[str],
        browser: psutil.Process | None,
    ) -> None:
        """A tab crash on ``worker``, whose sessions ``live`` were open at the kill, in the
        Chromium ``browser``."""
        acks_from, errors_from, opens_from = mark
        deadline = time.monotonic() + ATTRIBUTE_S
        while time.monotonic() < deadline:  # until each of them answered again (or closed)
            answered = {e.session for e in self.tracker.acks[acks_from:] if e.at >= t0}
            answered |= {e.session for e in self.tracker.errors[errors_from:] if e.at >= t0}
            if not (live - answered) & set(self.tracker.live):
                break
            await asyncio.sleep(0.02)
        settled = round(time.monotonic() - t0, 3)  # when it was known whom the crash hit
        hits = [
            e
            for e in self.tracker.errors[errors_from:]
            if e.worker == worker and e.at >= t0 and e.code in FAULT_CODES
        ]
        if hits:
            self.detect_s[FaultKind.TAB_CRASH].append(hits[0].at - t0)
        since = hits[-1].at if hits else t0

        def back(e: Event) -> bool:
            return e.worker == worker and e.at >= since

        answers = (self.tracker.acks, acks_from), (self.tracker.opens, opens_from)
        ack = await self._first_of(answers, back, self.recovery_timeout_s)
        if ack is None:
            self.notes.append(f"{FaultKind.TAB_CRASH}: no answer from {worker} after the crash")
            return
        self.recovered[FaultKind.TAB_CRASH] += 1
        self.recovery_s[FaultKind.TAB_CRASH].append(ack.at - t0)
        created = any(e is ack for e in self.tracker.opens[opens_from:])
        self.tab_crashes.append(
            {
                "hit": bool(hits),
                "recovery_s": round(ack.at - t0, 3),
                "attributed_s": settled,
                "live": len(live),  # sessions open on the worker at the crash
                "answer": "create" if created else "step",  # what the first answer was
                # Chromium took its whole browser down with the renderer: the worker relaunched
                "escalated": browser is not None and faults.gone(browser),
            }
        )

    async def _recover(self, kind: FaultKind, t0: float, mark: tuple[int, int]) -> None:
        acks_from, errors_from = mark
        hit: Event | None = None
        if kind is not FaultKind.SERVER_KILL:
            hit = await self._first(
                self.tracker.errors, errors_from, lambda e: e.code in FAULT_CODES, ATTRIBUTE_S
            )
            if hit is not None:
                self.detect_s[kind].append(hit.at - t0)
        worker = None if hit is None else hit.worker
        # A tab crash takes one tab: its worker has recovered once the crash was reported and
        # the worker serves a step again. The other kinds take every session they hosted:
        # only a session opened after the fault shows that service is back.
        fresh = kind is not FaultKind.TAB_CRASH or hit is None

        since = t0 if hit is None else hit.at

        def back(e: Event) -> bool:
            if worker is not None and e.worker != worker:
                return False
            return e.at >= since and (e.created > t0 or not fresh)

        ack = await self._first(self.tracker.acks, acks_from, back, self.recovery_timeout_s)
        if ack is None:
            self.notes.append(f"{kind}: no step on {worker or 'any worker'} after the fault")
            return
        self.recovered[kind] += 1
        self.recovery_s[kind].append(ack.at - t0)

    async def _first(
        self, events: list[Event], start: int, match: Callable[[Event], bool], timeout_s: float
    ) -> Event | None:
        """The first event from index ``start`` on that matches, waiting up to ``timeout_s``."""
        return await self._first_of(((events, start),), match, timeout_s)

    async def _first_of(
        self,
        lists: tuple[tuple[list[Event], int], ...],
        match: Callable[[Event], bool],
        timeout_s: float,
    ) -> Event | None:
        """The earliest event that matches among ``(events, from index)`` lists, each in time
        order, waiting up to ``timeout_s`` for one."""
        deadline = time.monotonic() + timeout_s
        while True:
            firsts = [
                next((e for e in events[start:] if match(e)), None) for events, start in lists
            ]
            found = [e for e in firsts if e is not None]
            if found:
                return min(found, key=lambda e: e.at)
            if time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.02)

    # --- page faults --------------------------------------------------------------------------

    async def _page_fault(self, kind: FaultKind) -> None:
        self.injected[kind] += 1
        session = None
        try:
            session, obs = await self.env.open_url(self.site.url(PAGE_START[kind]), OPTIONS)
            with contextlib.suppress(WebdojoError):  # an error answer is an answer
                await session.step(self._action(kind, obs), OPTIONS)
            answered = time.monotonic()
            after = await session.step(Goto(url=self.site.url("/plain")), OPTIONS)
            if after.last_error is not None:
                self.notes.append(f"{kind}: the next step failed: {after.last_error.code}")
                return
            self.recovered[kind] += 1
            self.recovery_s[kind].append(time.monotonic() - answered)
        except WebdojoError as exc:
            self.notes.append(f"{kind}: {exc.code}: {exc.message}")
        finally:
            if session is not None:
                with contextlib.suppress(WebdojoError):
                    await session.aclose()

    def _action(self, kind: FaultKind, obs: Observation) -> Action:
        if kind is FaultKind.HUNG_NAVIGATION:
            return Goto(url=self.site.url("/hang"))
        if kind is FaultKind.SLOW_PAGE:
            return Goto(url=self.site.url("/slow"))
        target = next((e for e in obs.elements or [] if e.name == "go"), None)
        if target is None:
            raise WebdojoError(f"the {kind} page shows no 'go' element")
        return Click(element=target.id)
