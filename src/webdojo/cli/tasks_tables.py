"""Terminal tables (rich) for ``webdojo tasks split / sample / stats``."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table

from webdojo.tasks.sampling import SampleResult
from webdojo.tasks.split import SplitResult
from webdojo.tasks.stats import FrequencyRun, TaskStats, frequency_runs


def _pct(part: int, whole: int) -> str:
    return "–" if not whole else f"{100 * part / whole:.1f}%"


def _counts(title: str, first: str, rows: list[tuple[str, int]], total: int) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(first)
    table.add_column("tasks", justify="right")
    table.add_column("share", justify="right")
    for name, count in rows:
        table.add_row(name, f"{count:,}", _pct(count, total))
    return table


def frequency_table(runs: list[FrequencyRun], title: str) -> Table:
    """The frequency curve in words: tasks of the websites at a few ranks."""
    table = Table(title=title, title_justify="left")
    table.add_column("website rank", justify="right")
    table.add_column("tasks there", justify="right")
    last = runs[-1].last if runs else 0
    marks = sorted(
        {r for r in (1, 2, 5, 10, 20, 50, 100, 1000, 10_000, 100_000, last) if r <= last}
    )
    for rank in marks:
        tasks = next(run.tasks for run in runs if run.first <= rank <= run.last)
        table.add_row(f"{rank:,}", f"{tasks:,}")
    return table


def split_table(result: SplitResult) -> Group:
    table = Table(title="OOD split by website", title_justify="left")
    table.add_column("")
    table.add_column("tasks", justify="right")
    table.add_column("websites", justify="right")
    table.add_row("train", f"{result.train:,}", f"{len(result.frequency):,}")
    table.add_row(
        "test (one per website group)", f"{result.test:,}", f"{len(result.test_websites):,}"
    )
    table.add_row("removed (train tasks on test websites)", f"{result.removed:,}", "")
    table.add_row(
        "input", f"{result.train + result.test + result.removed:,}", f"{result.websites:,}"
    )
    notes = Table.grid()
    notes.add_row(
        f"[dim]{result.merged} websites joined to another by parent/child links; "
        f"{result.orphans} tasks name a parent not in the file; seed {result.seed}[/dim]"
    )
    curve = frequency_table(frequency_runs(result.frequency), "Train tasks per website")
    return Group(table, notes, curve)


def sample_table(result: SampleResult) -> Group:
    table = Table(title=f"Sample, round {result.round}", title_justify="left")
    table.add_column("level")
    table.add_column("wanted", justify="right")
    table.add_column("sampled", justify="right")
    for level, wanted in result.wanted.items():
        table.add_row(level, f"{wanted:,}", f"{result.levels.get(level, 0):,}")
    table.add_row("[b]all[/b]", f"{sum(result.wanted.values()):,}", f"[b]{result.sampled:,}[/b]")
    notes = Table.grid()
    for line in (
        f"near-duplicates rejected: {result.near_dup_rejected:,}",
        f"tasks on blocked websites left out: {result.blocked:,}",
        f"tasks of unknown level left out: {result.unknown_level:,}",
        f"new this round: {result.new:,}; effective task set size: {result.effective_size:,}",
    ):
        notes.add_row(line)
    if result.short:
        short = ", ".join(f"{k} {v:,}" for k, v in result.short.items())
        notes.add_row(f"[yellow]ran out of tasks[/yellow]: {short} fewer than wanted")
    return Group(table, notes)


def stats_tables(stats: TaskStats) -> Group:
    n = stats.tasks
    summary = Table(title=f"{stats.path}", title_justify="left")
    summary.add_column("")
    summary.add_column("", justify="right")
    top_sum = sum(c for _, c in stats.top_websites)
    for key, value in (
        ("tasks", f"{n:,}"),
        ("websites", f"{stats.websites:,}"),
        (f"held by the top {len(stats.top_websites)} websites", _pct(top_sum, n)),
        ("original / decomposed", f"{stats.original:,} / {stats.decomposed:,}"),
    ):
        summary.add_row(key, value)
    difficulty = Table(title="Difficulty", title_justify="left")
    for col in ("difficulty", "original", "decomposed"):
        difficulty.add_column(col, justify="right")
    for d, (o, c) in stats.difficulty.items():
        difficulty.add_row("unknown" if d == 0 else str(d), f"{o:,}", f"{c:,}")
    subs = [(f"{d} / {s}", c) for d, by in stats.subdomains.items() for s, c in by.items()]
    subs.sort(key=lambda kv: (-kv[1], kv[0]))
    return Group(
        summary,
        _counts("Top websites", "website", stats.top_websites, n),
        frequency_table(stats.frequency, "Tasks per website"),
        _counts("Domains", "domain", list(stats.domains.items()), n),
        _counts("Subdomains", "domain / subdomain", subs, n),
        difficulty,
        _counts("Levels", "level", list(stats.levels.items()), n),
        _counts("Sources", "source", list(stats.sources.items()), n),
    )
