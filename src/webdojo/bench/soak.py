"""``webdojo bench soak``: a long rollout through the server while faults are injected.

As users run: ``webdojo serve`` in a child process with a pool of worker processes, the async
engine driving random-policy episodes on the built-in sites through ``HttpEnv``, every step
written to a real run store. Meanwhile ``webdojo.bench.soak_inject`` kills renderers,
browsers, workers and the server (restarted on the same port) and opens hanging, slow, dialog,
popup and download pages, at step numbers drawn from a seed.

The run ends with the accounting of issue 13: acknowledged steps against the store (lost,
duplicated), faults injected and recovered with their recovery times, answers later than
their deadline + 1 s (a call that a server kill cut through is counted apart: its time is the
restart's), RSS and open-file growth of the server's processes after the warm-up
(measured only when no fault restarts a process: ``--faults none`` gives the leak figure),
and what is left at the end (zombies, processes, the server's temporary files: the server
runs with ``TMPDIR`` set to a directory of its own, and each worker with one of its own inside
it, so that Chromium profiles, Playwright artifacts and downloads left behind are counted
without mixing in other users' files).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx
import psutil

from webdojo.bench import soak_faults as faults
from webdojo.bench.soak_faults import DEFAULT_RATES, FaultKind, FaultSite
from webdojo.bench.soak_inject import Injector
from webdojo.bench.soak_report import SoakResult
from webdojo.bench.soak_track import TrackedEnv, Tracker, lost_and_duplicated
from webdojo.errors import ServerDown
from webdojo.policies.random_policy import RandomPolicy
from webdojo.rollout.engine import AsyncEngine, EngineConfig
from webdojo.rollout.episode import EpisodeSpec, episode_seed
from webdojo.rollout.http_env import HttpEnv
from webdojo.server.child_process import ServerProcess
from webdojo.server.pool.retirement import DEFAULT_MAX_WORKER_SESSIONS
from webdojo.store.run_reader import read_episodes
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import load_spec

Log = Callable[[str], None]


# A round's episodes are sized at this many steps each, a little above the built-in tasks'
# mean under the random policy (about 11), so that a round ends short of the target
ROUND_STEPS_PER_EPISODE = 12


@dataclass(frozen=True)
class SoakConfig:
    steps: int = 10_000  # episode steps to acknowledge before the soak ends
    sessions: int = 4  # episodes in flight
    workers: int = 2  # worker processes of the server
    faults: dict[FaultKind, float] = field(default_factory=lambda: dict(DEFAULT_RATES))  # per step
    seed: int = 0  # the fault schedule, the targets picked and the policy
    action_timeout_s: float = 5.0  # the server's action deadline
    navigation_timeout_s: float = 10.0  # the server's page-load deadline
    warmup: float = 0.2  # share of the steps before growth is measured
    samples: int = 0  # RSS / open files samples over the run; 0: one per 250 steps, 20 or more
    recovery_timeout_s: float = 90.0  # a fault not recovered by then counts as not recovered
    spare_browser: bool = True  # serve with --spare-browser (a browser launched ahead)
    # serve with --max-worker-sessions: serve's default, or 0 to keep workers for good
    max_worker_sessions: int = DEFAULT_MAX_WORKER_SESSIONS

    def __post_init__(self) -> None:
        if self.steps < 1 or self.sessions < 1 or self.workers < 1:
            raise ValueError("steps, sessions and workers must be at least 1")
        if self.samples < 0 or self.max_worker_sessions < 0:
            raise ValueError("samples and max_worker_sessions must not be negative")

    @property
    def sample_count(self) -> int:
        """Enough samples that a sawtooth of retired workers shows within each peak window."""
        return self.samples or max(20, self.steps // 250)


class SoakServer:
    """``webdojo serve`` that can be killed and started again on the same port."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.args, self.env = args, env
        self.port = 0
        self.proc: ServerProcess | None = None
        self.restarting = False
        self.retired_before = 0  # workers retired by the servers killed so far

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        port = ["--port", str(self.port)] if self.port else []  # the last --port wins
        self.proc = ServerProcess([*self.args, *port], env=self.env).start()
        self.port = int(self.proc.url.rsplit(":", 1)[1])

    def kill_and_restart(self) -> None:
        """SIGKILL the server (nothing of it gets to clean up), then start it again."""
        assert self.proc is not None
        self.restarting = True
        self.retired_before += self.retired_now()
        try:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.stop()
            self.start()
        finally:
            self.restarting = False

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()

    def retired_now(self) -> int:
        """Workers the running server has retired (``--max-worker-sessions``)."""
        try:
            health = httpx.get(f"{self.url}/v1/health", timeout=5.0).json()
        except (httpx.HTTPError, ValueError):
            return 0
        return int(health.get("workers_retired", 0))


class ProcessWatch:
    """Every process seen in the server's trees (pid and start time), and their samples."""

    def __init__(self, server: SoakServer) -> None:
        self.server = server
        self.seen: dict[int, float] = {}

    def note(self) -> None:
        self._note()

    def _note(self) -> list[psutil.Process]:
        procs = faults.tree(self.server.pid)
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                self.seen.setdefault(proc.pid, proc.create_time())
        return procs

    def sample(self) -> dict[str, float]:
        """RSS (MB) and open files summed over the server's tree now, and over its Python
        processes alone (the server and its workers: no browser, whose processes come and
        go with contexts and browser recycling); the server process's own RSS apart."""
        rss = files = py_rss = py_files = server_rss = 0
        for proc in self._note():
            with contextlib.suppress(psutil.Error):
                r, f = proc.memory_info().rss, proc.num_fds()
                rss, files = rss + r, files + f
                if "python" in proc.name():
                    py_rss, py_files = py_rss + r, py_files + f
                if proc.pid == self.server.pid:
                    server_rss = r
        return {
            "rss_mb": round(rss / 2**20, 1),
            "open_files": float(files),
            "python_rss_mb": round(py_rss / 2**20, 1),
            "python_open_files": float(py_files),
            "server_rss_mb": round(server_rss / 2**20, 1),
        }

    def left(self) -> tuple[list[psutil.Process], list[psutil.Process]]:
        """(still running, zombies) among the processes ever seen."""
        running: list[psutil.Process] = []
        zombies: list[psutil.Process] = []
        for pid, created in self.seen.items():
            with contextlib.suppress(psutil.Error):
                proc = psutil.Process(pid)
                if proc.create_time() != created:
                    continue  # the pid was reused
                (zombies if proc.status() == psutil.STATUS_ZOMBIE else running).append(proc)
        return running, zombies


def _specs(seed: int) -> Iterator[EpisodeSpec]:
    tasks = load_spec("builtin").tasks
    for n in itertools.count():
        task = tasks[n % len(tasks)]
        repeat = n // len(tasks)
        key = f"{task.id}#{repeat}"
        yield EpisodeSpec(task, key, task.max_steps or 10, episode_seed(seed, key), repeat)


async def _drive(
    engine: AsyncEngine,
    server: SoakServer,
    config: SoakConfig,
    more: Callable[[], bool],
    steps_left: Callable[[], int],
) -> None:
    """Run rounds of episodes while ``more()``; a run the engine stopped because the server
    was down resumes (finished episodes are skipped) once the server is back. A round holds
    about as many episodes as the steps left need: at a round's end the sessions drain to
    none, which no steady load does, so rounds are few."""
    specs = _specs(config.seed)
    while more():
        size = max(config.sessions * 2, steps_left() // ROUND_STEPS_PER_EPISODE)
        plan = list(itertools.islice(specs, size))
        for _ in range(10):
            try:
                await engine.run(plan)
                break
            except ServerDown:
                await _until_up(server)
        else:  # the server never came back: a finding, not a reason to loop forever
            raise ServerDown("the server stayed unreachable through 10 resumes", not_started=0)


async def _until_up(server: SoakServer, timeout_s: float = 180.0) -> None:
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(timeout=5) as client:
        while time.monotonic() < deadline:
            if not server.restarting:
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{server.url}/v1/health")).status_code == 200:
                        return
            await asyncio.sleep(0.2)


async def _sampler(
    watch: ProcessWatch,
    server: SoakServer,
    tracker: Tracker,
    result: SoakResult,
    config: SoakConfig,
    started: float,
) -> None:
    every = max(1, config.steps // config.sample_count)
    next_at = 0
    while True:
        if tracker.acked >= next_at and not server.restarting:
            sample = await asyncio.to_thread(watch.sample)
            sample |= {"t": round(time.monotonic() - started, 2), "steps": tracker.acked}
            result.samples.append(sample)
            next_at = tracker.acked + every
        await asyncio.sleep(0.2)


async def run_soak(config: SoakConfig | None = None, log: Log | None = None) -> SoakResult:
    config = config or SoakConfig()
    say = log or (lambda _: None)
    result = SoakResult(
        config={**asdict(config), "faults": {k.value: v for k, v in config.faults.items()}}
    )
    result.warmup_steps = int(config.steps * config.warmup)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="webdojo-soak-") as tmp_dir:
        tmp = Path(tmp_dir)
        scratch = tmp / "server-tmp"
        scratch.mkdir()
        flags = {
            "--workers": config.workers,
            "--max-sessions": max(64, config.sessions * 4),
            "--action-timeout": config.action_timeout_s,
            "--navigation-timeout": config.navigation_timeout_s,
        }
        args = [part for flag, value in flags.items() for part in (flag, str(value))]
        args += ["--spare-browser"] if config.spare_browser else []
        args += ["--max-worker-sessions", str(config.max_worker_sessions)]
        with FaultSite() as site:
            # The fault site is on loopback, which the network policy blocks unless allowed.
            args += ["--allow-host", site.origin]
            server = SoakServer(args, {"TMPDIR": str(scratch)})
            watch = ProcessWatch(server)
            say(f"starting webdojo serve {' '.join(args)}")
            server.start()
            try:
                await _run(config, server, watch, site, tmp, result, say, started)
                retired = await asyncio.to_thread(server.retired_now)
                result.workers_retired = server.retired_before + retired
            finally:
                server.stop()
        await _leftovers(watch, scratch, result)
        result.seconds = time.monotonic() - started
    result.growth(growth_condition(config.faults, config.max_worker_sessions))
    return result


def growth_condition(rates: dict[FaultKind, float], retire_after: int = 0) -> str | None:
    """Under which faults the growth figures mean something: none restarting a process. A
    planned retirement replaces workers too, but on a schedule: the peak figures stand."""
    if any(rates.get(kind, 0) > 0 for kind in faults.PROCESS_KINDS):
        return None
    how = "page faults only" if any(rates.values()) else "fault-free"
    return f"{how}, workers retired after {retire_after} sessions" if retire_after else how


async def _run(
    config: SoakConfig,
    server: SoakServer,
    watch: ProcessWatch,
    site: FaultSite,
    tmp: Path,
    result: SoakResult,
    say: Log,
    started: float,
) -> None:
    tracker = Tracker(config.action_timeout_s, config.navigation_timeout_s)
    plan = faults.schedule(config.faults, config.steps, config.seed)
    say(f"{config.steps} steps, {config.sessions} sessions, {len(plan)} faults")
    async with HttpEnv(server.url, retries=4, backoff_s=0.25) as http:
        env = TrackedEnv(http, tracker)
        injector = Injector(
            server,
            TrackedEnv(http, tracker, probe=True),
            site,
            seed=config.seed,
            recovery_timeout_s=config.recovery_timeout_s,
            seen=watch.note,
        )
        with RunStore(tmp / "run") as store:
            engine = AsyncEngine(
                env, RandomPolicy(config.seed), store, EngineConfig(episodes=config.sessions)
            )
            background = [
                asyncio.create_task(injector.run(plan)),
                asyncio.create_task(_sampler(watch, server, tracker, result, config, started)),
            ]
            try:
                # Until the steps are done and every fault has fired and recovered.
                await _drive(
                    engine,
                    server,
                    config,
                    lambda: tracker.acked < config.steps or not background[0].done(),
                    lambda: config.steps - tracker.acked,
                )
                background[0].result()  # the injector's own failure, if any
            finally:
                for task in background:
                    task.cancel()
                await asyncio.gather(*background, return_exceptions=True)
    _account(result, tracker, injector, tmp / "run")


def _account(result: SoakResult, tracker: Tracker, injector: Injector, run_dir: Path) -> None:
    """The run's accounting into ``result``: what the clients saw, what the store holds, and
    the faults injected and recovered."""
    result.steps, result.probe_steps = tracker.acked, tracker.probe_steps
    result.lost, result.duplicated, result.stored = lost_and_duplicated(tracker.acked, run_dir)
    episodes = read_episodes(run_dir)
    result.episodes = len(episodes)
    result.faulted_episodes = sum(1 for e in episodes.values() if e.fault is not None)
    result.faults = {str(k): v for k, v in injector.injected.items()}
    result.recovered = {str(k): v for k, v in injector.recovered.items()}
    result.recovery_s = {str(k): v for k, v in injector.recovery_s.items()}
    result.tab_crashes = injector.tab_crashes
    result.tab_crash_hits = sum(1 for c in injector.tab_crashes if c["hit"])
    result.detect_s = {str(k): v for k, v in injector.detect_s.items()}
    result.late, result.tightest = tracker.late, tracker.tightest
    result.across_restart = tracker.across_restart
    result.calls = dict(tracker.calls)
    result.notes += injector.notes
    result.fault_log = injector.log


async def _leftovers(watch: ProcessWatch, scratch: Path, result: SoakResult) -> None:
    """After the server stopped: what of its processes and files is left. Processes get ten
    seconds to exit and be reaped by their parents (a zombie is one nobody reaped by then);
    those still running are counted, then killed (they are ours)."""
    for _ in range(50):
        running, zombies = watch.left()
        if not running and not zombies:
            break
        await asyncio.sleep(0.2)
    result.leftover_processes, result.defunct = len(running), len(zombies)
    for proc in running:
        with contextlib.suppress(psutil.Error):
            result.notes.append(f"left running: {proc.pid} {' '.join(proc.cmdline())[:120]}")
            proc.kill()
    names = sorted(f"{p.name} (changed {p.stat().st_mtime:.2f})" for p in scratch.iterdir())
    result.leftover_dirs, result.leftover_names = len(names), names
