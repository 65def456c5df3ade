"""``webdojo cache record|replay|lookup|learn|import|stats``: thin shells over ``webdojo.cache``.

Exit codes: 0 done; 1 a strict replay missed; 2 bad input (a ``WebdojoError``).
With ``--json`` the last stdout line is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.errors import CacheMiss, WebdojoError


class Via(StrEnum):
    """``webdojo cache replay --via``: ``ReplayOptions.via``."""

    PROXY = "proxy"
    ROUTE = "route"


cache_app = typer.Typer(no_args_is_help=True, help="Record websites and replay them offline.")
console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)

ResolveOpt = Annotated[
    list[str] | None,
    typer.Option("--resolve", help="HOST=ADDR:PORT: map a host name to a loopback address"),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="print the result as JSON last")]
RulesOpt = Annotated[
    list[Path] | None, typer.Option("--rules", help="extra YAML rule files (per domain and path)")
]


@contextmanager
def _exits() -> Iterator[None]:
    try:
        yield
    except CacheMiss as exc:
        errors.print(f"[red]miss[/red] {escape(str(exc))}")
        for near in exc.details.get("nearest", []):
            errors.print(f"  nearest: {escape(near['url'])} (score {near['score']})")
        raise typer.Exit(code=1) from exc
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=2) from exc


def _emit(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(data))


@cache_app.command("record")
def record_command(
    target: Annotated[str, typer.Argument(help="a URL to load, or a task file/spec to run")],
    out: Annotated[Path, typer.Option(help="the archive directory to write")],
    visits: Annotated[int, typer.Option(min=1, help="record the session this many times")] = 1,
    policy: Annotated[
        str | None, typer.Option(help="task files: scripted | random | openai (default: scripted)")
    ] = None,
    resolve: ResolveOpt = None,
    overwrite: Annotated[bool, typer.Option(help="replace an archive already at --out")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Archive every request and response of a browsing session (WARC + index): load a URL
    until its network settles, or run a policy over a task file (one visit per episode). Only
    the URL's or tasks' hosts and the --resolve hosts are contacted."""
    with _exits():
        if target.startswith(("http://", "https://")):
            result = _record_url(target, out, visits, tuple(resolve or ()), overwrite)
        else:
            from webdojo.cli.cache_record import record_tasks

            result = record_tasks(
                target, out, visits, policy, tuple(resolve or ()), overwrite, console
            )
            console.print(
                f"recorded {result['episodes']} episodes, {result['exchanges']} exchanges"
            )
    console.print(f"archive: {out}")
    _emit(result, as_json)


def _record_url(
    url: str, out: Path, visits: int, resolve: tuple[str, ...], overwrite: bool
) -> dict[str, Any]:
    from webdojo.record_replay import DriveConfig, record_url

    report = asyncio.run(record_url(url, out, visits, DriveConfig(resolve=resolve), overwrite))
    table = Table(title=f"recorded {url}", title_justify="left")
    table.add_column("visit", justify="right")
    table.add_column("exchanges", justify="right")
    for visit, count in enumerate(report.per_visit):
        table.add_row(str(visit), str(count))
    console.print(table)
    if report.blocked:
        console.print(f"not contacted (host not allowed): {dict(report.blocked)}")
    return report.to_json(out)


@cache_app.command("import")
def import_command(
    files: Annotated[list[Path], typer.Argument(help="HAR, WARC or ARC files (gzipped or not)")],
    out: Annotated[Path, typer.Option(help="the archive directory to write")],
    overwrite: Annotated[bool, typer.Option(help="replace an archive already at --out")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Turn HAR captures (Chrome, Firefox, Safari, Charles, Insomnia) and WARC/ARC files into
    one archive. Records that cannot be read are skipped and counted; a file that cannot be
    read at all is an error."""
    from webdojo.cache.import_archive import import_archive

    with _exits():
        result, meta = import_archive(files, out, overwrite)
    table = Table(title=f"imported into {out}", title_justify="left")
    for name in ("file", "exchanges", "skipped"):
        table.add_column(name, justify="left" if name == "file" else "right")
    for name in result.files:
        skipped = sum(1 for s in result.skipped if s.file == name)
        table.add_row(escape(name), str(result.counts.get(name, 0)), str(skipped))
    console.print(table)
    for skip in result.skipped[:20]:
        console.print(
            f"[yellow]skipped[/yellow] {escape(skip.file)} {skip.where}: {escape(skip.reason)}"
        )
    summary = {
        "out": str(out),
        "exchanges": meta.exchanges,
        "skipped": len(result.skipped),
        "files": len(result.files),
    }
    _emit(summary, as_json)


@cache_app.command("replay")
def replay_command(
    archive: Annotated[Path, typer.Argument(help="an archive directory")],
    url: Annotated[str, typer.Option(help="the page to load from the archive")],
    repeat: Annotated[int, typer.Option(min=1, help="load it this many times")] = 1,
    resolve: ResolveOpt = None,
    strict: Annotated[bool, typer.Option(help="a miss is an error (exit 1)")] = False,
    deterministic: Annotated[
        bool, typer.Option(help="seeded clock and randomness, no animations")
    ] = True,
    via: Annotated[
        Via,
        typer.Option(
            help="how requests reach the archive: webdojo as the page's HTTP proxy, or "
            "Playwright's route (slower; for comparison)",
        ),
    ] = Via.PROXY,
    rules: RulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load a page from an archive with no network at all; report what was served at which
    level, what missed, what was refused, and a screenshot hash per repeat."""
    from webdojo.cache.replayer import ReplayOptions
    from webdojo.record_replay import DriveConfig, replay_url

    options = ReplayOptions(
        on_miss="strict" if strict else "404",
        deterministic=deterministic,
        via="route" if via is Via.ROUTE else "proxy",
    )
    with _exits():
        config = DriveConfig(resolve=tuple(resolve or ()))
        report = asyncio.run(replay_url(archive, url, repeat, config, options, tuple(rules or ())))
    stats = report.stats
    console.print(_levels_table(stats.to_json(), f"replayed {url} x{repeat}"))
    for miss in stats.missed[:10]:
        console.print(f"[yellow]miss[/yellow] {escape(miss['method'])} {escape(miss['url'])}")
    distinct = len(set(report.screenshot_hashes))
    console.print(f"screenshots: {distinct} distinct of {len(report.screenshot_hashes)}")
    _emit(report.to_json(), as_json)


def _levels_table(stats: dict[str, Any], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("what")
    table.add_column("requests", justify="right")
    table.add_column("share", justify="right")
    total = max(1, int(stats.get("requests", 0)))
    rows = [(f"served at {k}", v) for k, v in stats.get("by_level", {}).items()]
    rows += [
        ("missed", stats.get("misses", 0)),
        ("aborted (host not in the archive)", stats.get("aborted_outbound", 0)),
    ]
    for name, count in rows:
        table.add_row(name, str(count), f"{100 * count / total:.1f}%")
    table.add_row("all", str(stats.get("requests", 0)), "")
    return table


@cache_app.command("lookup")
def lookup_command(
    archive: Annotated[Path, typer.Argument(help="an archive directory")],
    url: Annotated[str, typer.Argument(help="the request URL")],
    method: Annotated[str, typer.Option(help="the request method")] = "GET",
    body: Annotated[Path | None, typer.Option(help="a file holding the request body")] = None,
    header: Annotated[
        list[str] | None, typer.Option(help="NAME: VALUE, a request header (repeatable)")
    ] = None,
    rules: RulesOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Which recorded request an incoming one matches, at which level; the nearest
    candidates and how they differ when it misses."""
    from webdojo.cache.lookup import lookup

    with _exits():
        result = lookup(archive, url, method, body, tuple(header or ()), tuple(rules or ()))
    console.print(_lookup_text(result))
    _emit(result, as_json)


def _lookup_text(result: dict[str, Any]) -> str:
    lines = [f"{result['method']} {escape(result['url'])}"]
    if result["level"]:
        lines.append(f"[green]match at {result['level']}[/green]: {escape(str(result['match']))}")
    else:
        lines.append("[red]miss[/red]")
    for near in result["nearest"]:
        lines.append(f"  nearest (score {near['score']}): {escape(near['url'])}")
        for where, name, mine, theirs in near["differences"]:
            lines.append(f"    {where} {escape(name)}: {escape(mine)} != {escape(theirs)}")
    return "\n".join(lines)


@cache_app.command("learn")
def learn_command(
    archive: Annotated[Path, typer.Argument(help="an archive directory, best with --visits 2+")],
    max_rounds: Annotated[int, typer.Option(min=1, help="replay-propose-verify passes")] = 5,
    dry_run: Annotated[bool, typer.Option(help="report the rules without saving them")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Replay an archive against itself, align each miss with its nearest recorded request,
    propose rules for the fields that differ, keep those that fix misses without merging
    different responses, and save them to the archive's rules.yaml (matching level L2)."""
    from webdojo.cache.learn import LearnConfig, learn_archive

    with _exits():
        report = learn_archive(archive, LearnConfig(max_rounds=max_rounds), save=not dry_run)
    table = Table(
        title=f"learned {len(report.rules)} rules in {report.rounds} rounds", title_justify="left"
    )
    for name in ("host", "path", "where", "name", "evidence"):
        table.add_column(name)
    for rule in report.rules:
        evidence = "\n".join(escape(e) for e in rule.evidence)
        table.add_row(escape(rule.host), escape(rule.path), rule.where, escape(rule.name), evidence)
    console.print(table)
    for rule, why in report.rejected[:20]:
        console.print(
            f"[yellow]not kept[/yellow] {escape(rule.host)}{escape(rule.path)} "
            f"{rule.where} {escape(rule.name)}: {escape(why)}"
        )
    console.print(
        f"offline misses: {report.misses_before} -> {report.misses_after} (learned "
        f"rules alone); {report.replay_misses_before} -> {report.replay_misses_after} "
        "(all rules)" + ("" if report.saved else "; not saved")
    )
    _emit(report.to_json(), as_json)


@cache_app.command("stats")
def stats_command(
    archive: Annotated[Path, typer.Argument(help="an archive directory")],
    as_json: JsonOpt = False,
) -> None:
    """Entries, hosts and bytes of an archive, and the hit rates of its last replay."""
    from webdojo.cache.stats import archive_stats

    with _exits():
        stats = archive_stats(archive)
    hosts = Table(
        title=f"{archive}: {stats['entries']} entries, {stats['bytes']} body bytes",
        title_justify="left",
    )
    for name in ("host", "entries", "bytes"):
        hosts.add_column(name, justify="left" if name == "host" else "right")
    for row in stats["hosts"]:
        hosts.add_row(escape(row["host"]), str(row["entries"]), str(row["bytes"]))
    console.print(hosts)
    if stats["last_replay"]:
        console.print(_levels_table(stats["last_replay"], "last replay"))
    else:
        console.print("no replay yet")
    _emit(stats, as_json)
