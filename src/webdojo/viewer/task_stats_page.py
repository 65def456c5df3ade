"""``webdojo tasks stats FILE --html OUT``: one self-contained HTML page about a task set.

Sections: the totals, websites (the top ones and the frequency curve), domains and
subdomains, difficulty (original and decomposed tasks stacked), levels and sources. Each has
its plot (inline SVG) and a sortable table with the numbers; nothing is loaded from elsewhere.
"""

from __future__ import annotations

import time
from html import escape
from pathlib import Path
from string import Template

from webdojo.store.run_store import write_atomic
from webdojo.tasks.stats import TaskStats
from webdojo.viewer import task_plots
from webdojo.viewer.report import STATIC, _stat_cards

PAGE = Template("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title><style>$css</style></head>
<body><header class="topbar"><span class="brand">webdojo task set</span>
<span class="muted">$path</span></header><main>
<div class="section"><h1>$name</h1></div>
<div class="stats" id="summary">$stats</div>
<section class="card" id="websites"><h2>Websites</h2>
<div class="plots">$plot_curve$plot_top</div>$top_table</section>
<section class="card" id="domains"><h2>Domains and subdomains</h2>
<div class="plots">$plot_domains$plot_subdomains</div>$domain_table</section>
<section class="card" id="difficulty"><h2>Difficulty</h2>
<div class="plots">$plot_difficulty</div>$difficulty_table$level_table</section>
<section class="card" id="sources"><h2>Sources</h2>
<div class="plots">$plot_sources</div>$source_table</section>
<footer>Written by webdojo on $when from $path.</footer>
</main><script>$js</script></body></html>
""")


def write_stats_page(stats: TaskStats, out: Path) -> Path:
    """Write the page to ``out`` (parents created, atomically); returns ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, render_stats_page(stats))
    return out


def _pct(part: int, whole: int) -> str:
    return "–" if not whole else f"{100 * part / whole:.1f}%"


def _table(table_id: str, head: list[str], rows: list[list[object]]) -> str:
    """A sortable table; every column but the first is numeric."""
    th = "".join(f"<th{' class=num' if i else ''}>{escape(h)}</th>" for i, h in enumerate(head))
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='num'>{escape(str(c))}</td>" if i else f"<td>{escape(str(c))}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return (
        f'<div class="table-wrap"><table class="sortable" id="{table_id}">'
        f"<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def render_stats_page(stats: TaskStats) -> str:
    n = stats.tasks
    top = stats.top_websites
    subs = [(f"{d} / {s}", c) for d, by in stats.subdomains.items() for s, c in by.items()]
    subs.sort(key=lambda kv: (-kv[1], kv[0]))
    cards = [
        ("tasks", n),
        ("websites", stats.websites),
        (f"held by the top {len(top)} websites", _pct(sum(c for _, c in top), n)),
        ("original tasks", stats.original),
        ("decomposed tasks", stats.decomposed),
        ("domains", sum(1 for d in stats.domains if not d.startswith("("))),
        ("sources", len(stats.sources)),
    ]
    return PAGE.substitute(
        title=escape(f"{Path(stats.path).name} · webdojo task set"),
        css=(STATIC / "style.css").read_text(encoding="utf-8"),
        js=(STATIC / "sort.js").read_text(encoding="utf-8"),
        path=escape(stats.path),
        name=escape(Path(stats.path).name),
        stats=_stat_cards(cards),
        plot_curve=task_plots.website_frequency(stats.frequency),
        plot_top=task_plots.count_bars(top, f"Top {len(top)} websites", "top-websites"),
        top_table=_table(
            "top-websites", ["website", "tasks", "share"], [[w, c, _pct(c, n)] for w, c in top]
        ),
        plot_domains=task_plots.count_bars(list(stats.domains.items()), "Domains", "domains"),
        plot_subdomains=task_plots.count_bars(subs, "Subdomains", "subdomains"),
        domain_table=_table(
            "subdomain-table",
            ["domain / subdomain", "tasks", "share"],
            [[s, c, _pct(c, n)] for s, c in subs],
        ),
        plot_difficulty=task_plots.difficulty_stacked(stats.difficulty),
        difficulty_table=_table(
            "difficulty-table",
            ["difficulty", "original", "decomposed", "all"],
            [["unknown" if d == 0 else d, o, c, o + c] for d, (o, c) in stats.difficulty.items()],
        ),
        level_table=_table(
            "level-table",
            ["level", "tasks", "share"],
            [[lv, c, _pct(c, n)] for lv, c in stats.levels.items()],
        ),
        plot_sources=task_plots.count_bars(list(stats.sources.items()), "Sources", "sources"),
        source_table=_table(
            "source-table",
            ["source", "tasks", "share"],
            [[s, c, _pct(c, n)] for s, c in stats.sources.items()],
        ),
        when=time.strftime("%Y-%m-%d %H:%M"),
    )
