"""``webdojo tasks split / sample / block / stats``: shape a task set (thin shells over
``webdojo.tasks.split``, ``sampling``, ``blocklist`` and ``stats``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from webdojo.cli.exits import emit_json as _emit_json
from webdojo.cli.exits import fail as _fail
from webdojo.errors import WebdojoError

console = Console()  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)
JSON_HELP = "print a JSON summary as the last stdout line"


@contextlib.contextmanager
def _reading(path: Path, quiet: bool) -> Iterator[Callable[[int], None] | None]:
    """A progress bar over the characters of ``path`` read so far (none when quiet)."""
    if quiet or not path.is_file():
        yield None
        return
    columns = (
        TextColumn("reading {task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=errors, transient=True) as bar:
        job = bar.add_task(path.name, total=path.stat().st_size)
        yield lambda done: bar.update(job, completed=done)


def split(
    file: Annotated[Path, typer.Argument(help="a JSONL task file")],
    out: Annotated[Path, typer.Option(help="directory for train.jsonl, test.jsonl, split.json")],
    seed: Annotated[int, typer.Option(help="seed of the draw")] = 0,
    test_sites: Annotated[
        int | None, typer.Option(help="test websites (one task each); default: --test-ratio")
    ] = None,
    test_ratio: Annotated[
        float | None, typer.Option(help="share of the websites to test on (default 0.01)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Out-of-distribution split by website (WebGym §3.3).

    One test task per test website, and no training task on a test website; decomposed tasks
    stay with their parents. Writes train.jsonl, test.jsonl, split.json and the
    website-frequency plot (website_frequency.svg) in --out. Exit code 2 for bad input."""
    from webdojo.cli.tasks_tables import split_table
    from webdojo.tasks.split import split_file
    from webdojo.tasks.stats import frequency_runs
    from webdojo.viewer.task_plots import website_frequency

    if test_sites is not None and test_ratio is not None:
        errors.print("[red]error[/red] give --test-sites or --test-ratio, not both")
        raise typer.Exit(code=2)
    try:
        with _reading(file, as_json) as progress:
            result = split_file(
                file,
                out,
                seed=seed,
                test_sites=test_sites,
                test_ratio=test_ratio,
                progress=progress,
            )
    except WebdojoError as exc:
        raise _fail(exc) from exc
    plot = out / "website_frequency.svg"
    runs = frequency_runs(result.frequency)
    plot.write_text(website_frequency(runs, "Train tasks per website"), encoding="utf-8")
    console.print(split_table(result))
    console.print(f"wrote {out / 'train.jsonl'}, {out / 'test.jsonl'}, {plot}")
    if as_json:
        _emit_json(result.to_json())


def sample(
    file: Annotated[Path, typer.Argument(help="a JSONL task file (e.g. a split's train.jsonl)")],
    n: Annotated[int, typer.Option("--n", help="tasks to sample")],
    out: Annotated[Path, typer.Option(help="the sampled task file to write")],
    ratio: Annotated[
        str, typer.Option(help="easy:medium:hard, or uniform, only-easy, only-medium, only-hard")
    ] = "uniform",
    caps: Annotated[
        str | None, typer.Option(help="step caps of easy,medium,hard tasks, e.g. 10,20,30")
    ] = None,
    seed: Annotated[int, typer.Option(help="seed of the draw")] = 0,
    blocklist: Annotated[
        Path | None, typer.Option(help="websites to leave out (see `webdojo tasks block`)")
    ] = None,
    state: Annotated[
        Path | None, typer.Option(help="state file: rounds so far and the effective set size")
    ] = None,
    dup_threshold: Annotated[
        float,
        typer.Option(
            help="instructions this similar (Jaccard of word 3-grams) are near-duplicates"
        ),
    ] = 0.8,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Difficulty-ratio sampling with step caps, a blocklist and near-duplicate rejection.

    Tasks of unknown level are left out unless --ratio is uniform; a level that runs out is
    reported short. The --state file keeps the distinct tasks sampled over rounds (the
    effective task set size). Exit code 2 for bad input."""
    from webdojo.cli.tasks_tables import sample_table
    from webdojo.tasks.blocklist import Blocklist
    from webdojo.tasks.sampling import parse_caps, parse_ratio, sample_file

    try:
        blocked = Blocklist.load(blocklist).active() if blocklist is not None else set()
        with _reading(file, as_json) as progress:
            result = sample_file(
                file,
                out,
                n,
                parse_ratio(ratio),
                seed=seed,
                caps=None if caps is None else parse_caps(caps),
                blocked_sites=blocked,
                state_path=state,
                dup_threshold=dup_threshold,
                progress=progress,
            )
    except WebdojoError as exc:
        raise _fail(exc) from exc
    console.print(sample_table(result))
    console.print(f"wrote {result.sampled:,} tasks to {out}")
    if as_json:
        _emit_json(result.to_json())


def block(
    website: Annotated[str, typer.Argument(help="a website: URL, host or registrable domain")],
    blocklist: Annotated[Path, typer.Option(help="the blocklist file (created if missing)")],
    for_: Annotated[str, typer.Option("--for", help="how long: 30m, 12h, 7d, 2w")] = "7d",
    reason: Annotated[str, typer.Option(help="why, for people reading the file")] = "",
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Keep a website out of sampling for a while (it keeps blocking agents).

    The website is stored by its registrable domain; a repeated report counts up and extends
    the entry. `webdojo tasks sample --blocklist FILE` skips active entries."""
    from webdojo.tasks.blocklist import block_website, parse_duration

    try:
        site, entry = block_website(blocklist, website, parse_duration(for_), reason)
    except WebdojoError as exc:
        raise _fail(exc) from exc
    console.print(
        f"blocked [b]{escape(site)}[/b] until {entry.until:%Y-%m-%d %H:%M} UTC "
        f"(reported {entry.count} time{'s' if entry.count != 1 else ''})"
    )
    if as_json:
        _emit_json({"website": site, **entry.to_json(), "blocklist": str(blocklist)})


def stats(
    file: Annotated[Path, typer.Argument(help="a JSONL task file")],
    html: Annotated[Path | None, typer.Option(help="also write an HTML page with plots")] = None,
    top: Annotated[int, typer.Option(help="websites in the top list")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """What a task set holds: websites, domains, difficulty, decomposed tasks, sources.

    Tables in the terminal; with --html, a self-contained page with the plots."""
    from webdojo.cli.tasks_tables import stats_tables
    from webdojo.tasks.stats import file_stats
    from webdojo.viewer.task_stats_page import write_stats_page

    try:
        with _reading(file, as_json) as progress:
            result = file_stats(file, top=top, progress=progress)
    except WebdojoError as exc:
        raise _fail(exc) from exc
    console.print(stats_tables(result))
    if html is not None:
        write_stats_page(result, html)
        console.print(f"wrote {html}")
    if as_json:
        _emit_json({**result.to_json(), "html": None if html is None else str(html)})


def register(tasks_app: typer.Typer) -> None:
    tasks_app.command("split")(split)
    tasks_app.command("sample")(sample)
    tasks_app.command("block")(block)
    tasks_app.command("stats")(stats)
