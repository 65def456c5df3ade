"""Driving a browser to record a site or replay it: what ``webdojo cache record|replay`` run.

Each visit or repeat gets a fresh context (service workers blocked, like every webdojo
context) on one browser launched for the job. ``--resolve HOST=ADDR:PORT`` becomes Chromium's
host-resolver rules, so a site on loopback can be recorded under the host names it has in
the wild. Replay launches the browser with the same rules, and they change nothing: replay
answers every connection itself (``BrowserHost.replay_context``), so none reaches a resolver.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError

from webdojo.browser.chromium import BrowserConfig
from webdojo.browser.host import BrowserHost
from webdojo.browser.options import SessionOptions
from webdojo.cache.archive import Archive, ArchiveMeta, ArchiveWriter, write_last_replay
from webdojo.cache.determinism import DETERMINISTIC_LAUNCH_ARGS, screenshot_hash
from webdojo.cache.recorder import Recorder
from webdojo.cache.replayer import Replayer, ReplayOptions, ReplayStats
from webdojo.errors import ConfigError, SiteUnreachable


@dataclass(frozen=True)
class DriveConfig:
    resolve: tuple[str, ...] = ()  # HOST=ADDR:PORT, ADDR on loopback
    viewport: tuple[int, int] = (1280, 720)
    load_timeout_s: float = 30.0  # deadline of the page load
    quiet_s: float = 0.3  # the network counts as settled after this long with nothing in flight
    settle_timeout_s: float = 10.0  # stop waiting for quiet after this long (pages that poll)


def resolver_rules(resolve: Sequence[str]) -> tuple[str, frozenset[str]]:
    """Chromium's ``--host-resolver-rules`` value and the host names mapped. Only loopback
    targets are accepted: the mapping exists to record local test sites under real names."""
    rules, hosts = [], set()
    for item in resolve:
        name, sep, target = item.partition("=")
        addr, _, port = target.rpartition(":")
        if not (sep and name and addr and port.isdigit()):
            raise ConfigError(
                f"--resolve {item!r}: expected HOST=ADDR:PORT, e.g. shop.test=127.0.0.1:8000"
            )
        try:
            loopback = addr == "localhost" or ipaddress.ip_address(addr.strip("[]")).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ConfigError(f"--resolve {item!r}: {addr} is not a loopback address")
        rules.append(f"MAP {name.lower()} {addr}:{port}")
        hosts.add(name.lower())
    return ", ".join(rules), frozenset(hosts)


async def launch(config: DriveConfig, deterministic: bool) -> BrowserHost:
    """A browser with the ``--resolve`` rules and, for replay, the pinned font flags."""
    rules, _ = resolver_rules(config.resolve)
    args = (f"--host-resolver-rules={rules}",) if rules else ()
    return await BrowserHost.launch(
        BrowserConfig(extra_args=args + (DETERMINISTIC_LAUNCH_ARGS if deterministic else ()))
    )


async def _context(host: BrowserHost, config: DriveConfig) -> BrowserContext:
    return await host.new_context(_session_options(config))


def _session_options(config: DriveConfig) -> SessionOptions:
    width, height = config.viewport
    return SessionOptions(viewport_width=width, viewport_height=height)


@dataclass
class RecordReport:
    meta: ArchiveMeta
    per_visit: list[int] = field(default_factory=list)  # exchanges recorded per visit
    blocked: dict[str, int] = field(default_factory=dict)  # host -> requests not let out
    failed: list[str] = field(default_factory=list)  # requests the network failed

    def to_json(self, out: Path) -> dict[str, Any]:
        return {
            "out": str(out),
            "exchanges": self.meta.exchanges,
            "visits": self.meta.visits,
            "per_visit": self.per_visit,
            "blocked_outbound": sum(self.blocked.values()),
            "failed": len(self.failed),
        }


async def record_url(
    url: str, out: Path, visits: int = 1, config: DriveConfig | None = None, overwrite: bool = False
) -> RecordReport:
    """Load ``url`` ``visits`` times in fresh contexts, each until its network settles, and
    write every exchange to the archive at ``out``."""
    config = config or DriveConfig()
    _, mapped = resolver_rules(config.resolve)
    allowed = mapped | {(urlsplit(url).hostname or "").lower()}
    host = await launch(config, deterministic=False)
    blocked: dict[str, int] = {}
    try:
        with ArchiveWriter(out, source=f"record {url}", overwrite=overwrite) as writer:
            report = RecordReport(writer.meta)
            for visit in range(visits):
                recorder = Recorder(allowed, visit)
                context = await _context(host, config)
                try:
                    await recorder.attach(context)
                    await _load(context, url, config, recorder.in_flight.settle)
                    exchanges = await recorder.finish()
                finally:
                    await context.close()
                for exchange in exchanges:
                    writer.add(exchange)
                report.per_visit.append(len(exchanges))
                report.failed += recorder.failed
                for name, count in recorder.blocked.items():
                    blocked[name] = blocked.get(name, 0) + count
        report.blocked = blocked
        return report
    finally:
        await host.aclose()


async def _load(context: BrowserContext, url: str, config: DriveConfig, settle: Any) -> Any:
    page = await context.new_page()
    try:
        await page.goto(url, wait_until="load", timeout=config.load_timeout_s * 1000)
    except PlaywrightError as exc:
        raise SiteUnreachable(f"{url} did not load: {exc.message.splitlines()[0]}") from exc
    await settle(config.quiet_s, config.settle_timeout_s)
    return page


@dataclass
class ReplayReport:
    stats: ReplayStats
    screenshot_hashes: list[str] = field(default_factory=list)  # one per repeat
    load_ms: list[float] = field(default_factory=list)  # goto until the network settled

    def to_json(self) -> dict[str, Any]:
        return {**self.stats.to_json(), "screenshot_hashes": self.screenshot_hashes}


async def replay_url(
    archive_path: Path,
    url: str,
    repeat: int = 1,
    config: DriveConfig | None = None,
    options: ReplayOptions | None = None,
    rule_files: tuple[Path, ...] = (),
) -> ReplayReport:
    """Load ``url`` ``repeat`` times from the archive, each in a fresh context; the hit
    rates, a screenshot hash per repeat, and the load times. Strict mode raises the first
    ``CacheMiss`` after the repeat that met it."""
    config = config or DriveConfig()
    options = options or ReplayOptions()
    report = ReplayReport(ReplayStats())
    with Archive.open(archive_path, rule_files) as archive:
        host = await launch(config, deterministic=options.deterministic)
        try:
            for _ in range(repeat):
                await _replay_once(host, archive, url, config, options, report)
        finally:
            await host.aclose()
            write_last_replay(archive_path, _last_replay(url, report))
    return report


def _last_replay(url: str, report: ReplayReport) -> dict[str, Any]:
    """What ``webdojo cache stats`` and ``learn`` read back: the counts, the first misses with
    their nearest candidates, and the outcome (level, miss, aborted) of every request."""
    return {
        "url": url,
        "when": time.time(),
        **report.to_json(),
        "missed": report.stats.missed[:50],
        "log": [list(entry) for entry in report.stats.log],
    }


async def _replay_once(
    host: BrowserHost,
    archive: Archive,
    url: str,
    config: DriveConfig,
    options: ReplayOptions,
    report: ReplayReport,
) -> None:
    replayer = Replayer(archive, options)
    try:
        async with host.replay_context(replayer, _session_options(config)) as context:
            started = time.perf_counter()
            page = await _load(context, url, config, replayer.in_flight.settle)
            report.load_ms.append((time.perf_counter() - started) * 1000)
            report.screenshot_hashes.append(await screenshot_hash(page))
    finally:
        report.stats.add(replayer.stats)
    replayer.raise_misses()
