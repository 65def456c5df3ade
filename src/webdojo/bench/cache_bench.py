"""``webdojo bench cache``: record and replay the volatile site, and score the cache.

1. record: the volatile site's home page, 2 visits (``record_url``), under its fake hosts;
2. learn: one step behind ``learn_step`` (see there); the rules then in force are scored
   against the site's manifest of volatile fields (precision, recall);
3. replay: ``replays`` loads with the determinism aids on, as many with them off, each in a
   fresh context of a browser whose resolver rules point at a *canary* instance of the site,
   so a request that leaked would land there (it must count 0 hits; before replay, one load
   without the replayer proves that the browser does reach it);
4. false matches: every served request's trap parameters (page, q, id, item_id) are compared
   with those of the recorded request it was served, and each replay's item lists with the
   live page's;
5. lookups: ``Matcher.match`` on a synthetic archive of ``entries`` exchanges
   (``cache_lookup_bench``);
6. page loads: goto until the page says it is done, live from loopback, replayed through the
   replay's proxy (the default) and replayed through Playwright's route, taking turns so that
   all three meet the same machine load (``replay_over_live``, ``route_over_live``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page

from webdojo.bench.cache_bench_report import CacheBenchResult, Learned, ModeResult, VolatileScore
from webdojo.bench.cache_lookup_bench import run_lookup_bench
from webdojo.bench.volatile_site import (
    BROWSER_VOLATILE,
    DONE_JS,
    MANIFEST,
    VolatileSite,
    entry_matches,
    is_trap,
    is_volatile,
)
from webdojo.browser.host import BrowserHost
from webdojo.cache.archive import Archive
from webdojo.cache.determinism import screenshot_hash
from webdojo.cache.index import Index
from webdojo.cache.learn import learn_archive, learned_fields, precision_recall
from webdojo.cache.matcher import Match
from webdojo.cache.normalize import Endpoint, Field
from webdojo.cache.replayer import Replayer, ReplayOptions
from webdojo.cache.rules import RuleSet
from webdojo.errors import SiteUnreachable
from webdojo.record_replay import DriveConfig, launch, record_url

Log = Callable[[str], None]
# What the page drew from the answers that trap parameters select (index.html's lists).
_LISTS_JS = """() => Object.fromEntries(Array.from(document.querySelectorAll('ul.items'),
    (ul) => [ul.id, Array.from(ul.children, (li) => li.textContent)]))"""
_KEEP_SERVED = 1000  # served matches kept per replay for the trap check (a load makes ~20)


@dataclass(frozen=True)
class CacheBenchConfig:
    replays: int = 10  # replays a mode (aids on, aids off)
    entries: int = 100_000  # exchanges in the synthetic archive of the lookup timing
    probes: int = 2000  # lookups timed, spread over L0, L1, L2, L3 and misses
    loads: int = 10  # page loads timed each way (live, replay, replay by route)
    visits: int = 2  # recorded visits of the volatile site
    done_timeout_s: float = 20.0  # a page not done by then fails the bench

    @classmethod
    def quick(cls) -> CacheBenchConfig:
        """Small numbers, for tests and a first look."""
        return cls(replays=3, entries=2000, probes=500, loads=3)


def learn_step(archive_path: Path) -> Learned:
    """``webdojo cache learn`` on the recorded archive: its rules are saved with the archive,
    so scoring and replay (which reopen it) use them at level 2. The learned fields alone are
    scored against the manifest too (the issue's precision and recall)."""
    report = learn_archive(archive_path)
    with Archive.open(archive_path) as archive:
        rules = archive.rules
    precision, recall = precision_recall(learned_fields(report.rules), list(MANIFEST))
    note = f"default rules + {len(report.rules)} learned in {report.rounds} round(s)"
    return Learned(rules, report.rounds, note, precision, recall, len(report.rules))


def _unit(endpoint: Endpoint, f: Field) -> tuple[str, str, str, str]:
    return (endpoint.host.split(":")[0], endpoint.path, f.where, f.name)


def _is_browser_volatile(unit: tuple[str, str, str, str]) -> bool:
    return any(entry_matches(e, *unit) for e in BROWSER_VOLATILE)


def volatile_score(index: Index, rules: RuleSet) -> VolatileScore:
    """Precision and recall of what ``rules`` mask (at level 2) in the recorded requests,
    against the manifest. A field (host, path, where, name) counts as masked when some rule
    masks it in some recorded request (precision is strict about false positives); a manifest
    entry counts as covered when one of its fields is masked in every recorded request that
    carries it (a rule that masks only some values still lets replay miss)."""
    sources: dict[tuple[str, str, str, str], set[str]] = {}
    unmasked: set[tuple[str, str, str, str]] = set()
    for entry in index.entries():
        for f in entry.fields:
            unit = _unit(entry.endpoint, f)
            rule = rules.rule_for(entry.endpoint, f, level=2)
            if rule is None:
                unmasked.add(unit)
            else:
                sources.setdefault(unit, set()).add(rule.source)
    masked = [u for u in sources if not _is_browser_volatile(u)]
    extra = sorted(u for u in masked if not is_volatile(*u))
    by_source: dict[str, int] = {}
    missed = []
    for m in MANIFEST:
        units = [u for u in sources if u not in unmasked and entry_matches(m, *u)]
        for source in sorted({s for u in units for s in sources[u]}):
            by_source[source] = by_source.get(source, 0) + 1
        if not units:
            missed.append(_name(m))
    covered = len(MANIFEST) - len(missed)
    precision = (len(masked) - len(extra)) / len(masked) if masked else 0.0
    return VolatileScore(
        precision,
        covered / len(MANIFEST),
        len(masked),
        covered,
        len(MANIFEST),
        by_source,
        missed,
        ["/".join(u) for u in extra],
    )


def _name(m: dict[str, str]) -> str:
    return f"{m['host']}{m['path'] if m['path'] != '*' else '/*'} {m['where']}:{m['name']}"


def trap_values(endpoint: Endpoint, fields: tuple[Field, ...]) -> list[tuple[str, str, str]]:
    host, path = endpoint.host.split(":")[0], endpoint.path
    return sorted(
        (f.where, f.name, f.value) for f in fields if is_trap(host, path, f.where, f.name)
    )


def false_matches(served: list[Match]) -> tuple[int, int]:
    """(requests with trap parameters that were served, those served a response recorded
    for other trap values)."""
    checked = wrong = 0
    for match in served:
        if match.entry is None or match.request is None:
            continue  # L4: synthesized, nothing recorded was chosen
        incoming = trap_values(match.request.endpoint, match.request.fields)
        recorded = trap_values(match.entry.endpoint, match.entry.fields)
        if incoming or recorded:
            checked += 1
            wrong += incoming != recorded
    return checked, wrong


async def _context(host: BrowserHost) -> BrowserContext:
    # webdojo's own settings, as webdojo.record_replay takes them: live and replayed pages alike
    return await host.new_context()


async def _load_done(page: Page, url: str, timeout_s: float) -> float:
    """Milliseconds from goto until the volatile page says every request settled."""
    started = time.perf_counter()
    try:
        await page.goto(url, wait_until="load", timeout=timeout_s * 1000)
        await page.wait_for_function(DONE_JS, polling=20, timeout=timeout_s * 1000)
    except Exception as exc:  # Playwright's Error and TimeoutError alike
        raise SiteUnreachable(f"{url}: the page did not finish: {exc}") from exc
    return (time.perf_counter() - started) * 1000


def _resolve(site: VolatileSite) -> DriveConfig:
    """Its fake host names mapped to its loopback port, as ``--resolve`` gives them."""
    return DriveConfig(resolve=tuple(f"{h}=127.0.0.1:{site.port}" for h in site.hosts))


async def load_race(
    site: VolatileSite, canary: VolatileSite, archive: Archive, config: CacheBenchConfig
) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """``config.loads`` page loads each way, taking turns: live, replayed (aids on, as the
    replays below) and replayed by route; and the item lists the live page drew."""
    times: dict[str, list[float]] = {"live": [], "replay": [], "route": []}
    lists: dict[str, Any] = {}
    live = await launch(_resolve(site), deterministic=False)
    replay = await launch(_resolve(canary), deterministic=True)
    try:
        for _ in range(config.loads):
            context = await _context(live)
            try:
                page = await context.new_page()
                times["live"].append(await _load_done(page, site.start_url, config.done_timeout_s))
                lists = await page.evaluate(_LISTS_JS)
            finally:
                await context.close()
            for via in ("proxy", "route"):
                replayer = Replayer(archive, ReplayOptions(via=via))
                async with replay.replay_context(replayer) as context:
                    page = await context.new_page()
                    took = await _load_done(page, site.start_url, config.done_timeout_s)
                times["replay" if via == "proxy" else "route"].append(took)
    finally:
        await live.aclose()
        await replay.aclose()
    return times, lists


async def replay_mode(
    archive: Archive,
    url: str,
    canary: VolatileSite,
    config: CacheBenchConfig,
    deterministic: bool,
    live_lists: dict[str, Any],
) -> ModeResult:
    """``config.replays`` replays of ``url``, each in a fresh context."""
    mode = ModeResult(deterministic)
    host = await launch(_resolve(canary), deterministic)
    try:
        for _ in range(config.replays):
            options = ReplayOptions(deterministic=deterministic, keep_served=_KEEP_SERVED)
            replayer = Replayer(archive, options)
            try:
                async with host.replay_context(replayer) as context:
                    page = await context.new_page()
                    mode.load_ms.append(await _load_done(page, url, config.done_timeout_s))
                    await replayer.in_flight.settle(0.3, 10.0)
                    mode.hashes.append(await screenshot_hash(page))
                    mode.page_mismatches += await page.evaluate(_LISTS_JS) != live_lists
            finally:
                mode.stats.add(replayer.stats)
            checked, wrong = false_matches(replayer.served)
            mode.trap_checked += checked
            mode.false_matches += wrong
    finally:
        await host.aclose()
    return mode


async def arm_canary(canary: VolatileSite) -> bool:
    """Whether a browser with the replay's resolver rules reaches the canary (one stylesheet
    loaded without a replayer); its hits are reset after."""
    host = await launch(_resolve(canary), deterministic=False)
    try:
        context = await _context(host)
        page = await context.new_page()
        await page.goto(canary.start_url + "static/site.css", wait_until="load")
        await context.close()
    finally:
        await host.aclose()
    reached = canary.hits > 0
    canary.reset()
    return reached


async def run_cache_bench(
    config: CacheBenchConfig | None = None, work: Path | None = None, log: Log | None = None
) -> CacheBenchResult:
    """The whole benchmark (files in ``work``, or a temporary directory)."""
    config = config or CacheBenchConfig()
    say = log or (lambda _: None)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="webdojo-cache-bench-") as tmp:
        root = Path(work) if work is not None else Path(tmp)
        with VolatileSite() as site, VolatileSite() as canary:
            report = await record_url(
                site.start_url, root / "site", config.visits, _resolve(site), overwrite=True
            )
            say(f"recorded {report.meta.exchanges} exchanges in {config.visits} visits")
            learned = learn_step(root / "site")
            armed = await arm_canary(canary)
            with Archive.open(root / "site") as archive:
                loads, live_lists = await load_race(site, canary, archive, config)
                say(f"timed {config.loads} page loads each live, replayed and routed")
                score = volatile_score(archive.index, archive.rules)
                modes = [
                    await replay_mode(archive, site.start_url, canary, config, det, live_lists)
                    for det in (True, False)
                ]
            say(f"replayed {2 * config.replays} times; canary hits {canary.hits}")
            canary_hits = canary.hits
        lookup = run_lookup_bench(root / "lookup", config.entries, config.probes)
        say(f"lookup archive of {config.entries:,} exchanges built in {lookup.build_s:.1f} s")
        result = CacheBenchResult(
            config.replays,
            report.meta.exchanges,
            score,
            learned,
            modes[0],
            modes[1],
            lookup,
            canary_hits,
            armed,
            loads,
        )
        result.seconds = time.perf_counter() - started
        return result
