"""``webdojo report``: one self-contained HTML file to share.

It holds the overview's tables (sortable), matplotlib plots inlined as SVG, and a few example
episodes whose screenshots are downscaled with Pillow and embedded as data URLs, with the
same action overlays as the viewer. With ``compare_to``, a section sets the run against another
one, task by task (as ``webdojo view A --compare B`` does). Nothing is loaded from anywhere when
it is opened.
"""

from __future__ import annotations

import base64
import io
import time
from html import escape
from pathlib import Path
from string import Template
from typing import Any

from webdojo.store.records import EpisodeRecord
from webdojo.store.run_store import write_atomic
from webdojo.viewer import plots
from webdojo.viewer.compare import compare_runs
from webdojo.viewer.overlay import overlay_svg
from webdojo.viewer.report_eval import evaluation_section, judges_section, verdict_lines
from webdojo.viewer.runs import RunData, load_run, safe_path
from webdojo.viewer.views import episode_detail, overview

STATIC = Path(__file__).parent / "static"
MAX_ROWS = 2000  # episode table rows in the report; the viewer shows all
THUMB_WIDTH = 560  # pixels of embedded screenshots
HEAD_STEPS, TAIL_STEPS = 7, 3  # steps shown per example episode
EXAMPLE_ORDER = ("failure", "success", "fault", "unfinished")

PAGE = Template("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title><style>$css</style></head>
<body><header class="topbar"><span class="brand">webdojo report</span>
<span class="muted">$path</span></header><main>
<div class="section"><h1>$name</h1><div class="muted">$meta</div></div>
$problems
<div class="stats">$stats</div>
<div class="grid2 section">$by_site$by_difficulty</div>
$evaluation$judges
<div class="card plots">$plot_difficulty$plot_lengths</div>
$comparison
<div class="card"><h2>Episodes</h2><div class="table-wrap">$episodes</div>$more</div>
<h2>Example episodes</h2>$examples
<footer>Written by webdojo on $when from $path. Open the run with
<code>webdojo view $path</code> to see every step.</footer>
</main><script>$js</script></body></html>
""")


def write_report(
    run_dir: Path, out: Path, examples: int = 3, compare_to: Path | None = None
) -> Path:
    """Write the report of ``run_dir`` to ``out`` (parents created); returns ``out``. With
    ``compare_to``, add a section comparing the run (A) with that one (B)."""
    out = Path(out)
    other = load_run(Path(compare_to)) if compare_to is not None else None
    html = render_report(load_run(Path(run_dir)), examples=examples, compare_to=other)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, html)
    return out


def render_report(run: RunData, examples: int = 3, compare_to: RunData | None = None) -> str:
    data = overview(run)
    meta, totals, rows = data["run"], data["totals"], data["episodes"]
    return PAGE.substitute(
        title=escape(f"{meta['name']} · webdojo report"),
        css=(STATIC / "style.css").read_text(encoding="utf-8"),
        js=(STATIC / "sort.js").read_text(encoding="utf-8"),
        path=escape(meta["path"]),
        name=escape(meta["name"]),
        meta=escape(
            f"policy {meta['policy'] or '?'} · tasks {meta['tasks'] or '?'} · "
            f"format v{meta['format_version'] or '?'}"
        ),
        problems=_problems(meta["problems"]),
        stats=_stats(totals),
        by_site=_bucket_table("Success by site", "site", data["by_site"]),
        by_difficulty=_bucket_table("Success by difficulty", "difficulty", data["by_difficulty"]),
        evaluation=evaluation_section(run),
        judges=judges_section(data["judges"]),  # the overview computed them
        plot_difficulty=plots.success_by_difficulty(data["by_difficulty"]),
        plot_lengths=plots.episode_lengths(rows),
        comparison=_comparison(compare_runs(run, compare_to)) if compare_to is not None else "",
        episodes=_episode_table(rows[:MAX_ROWS]),
        more=f'<p class="muted">{len(rows) - MAX_ROWS} more episodes not listed.</p>'
        if len(rows) > MAX_ROWS
        else "",
        examples=_examples(run, rows, examples),
        when=time.strftime("%Y-%m-%d %H:%M"),
    )


# --- pieces -------------------------------------------------------------------------------


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.1f}%"


def _v(value: Any) -> str:
    return escape("" if value is None else str(value))


def _problems(problems: list[str]) -> str:
    if not problems:
        return ""
    items = "".join(f"<li>{escape(p)}</li>" for p in problems)
    return (
        f'<div class="problems"><strong>Some of this run is missing</strong><ul>{items}</ul></div>'
    )


def _stats(t: dict[str, Any]) -> str:
    mean = "–" if t["mean_steps"] is None else f"{t['mean_steps']:.1f}"
    cards = [
        ("episodes (finished)", t["all_episodes"]),
        (f"success rate ({t['successes']}/{t['episodes']} verified)", _pct(t["success_rate"])),
        ("faults (unscored)", t["faults"]),
        ("unfinished", t["unfinished"]),
        ("mean steps", mean),
        (f"repeated steps ({t['repeated_steps']}/{t['total_steps']})", _pct(t["repetition_share"])),
        ("episode wall time (sum)", f"{t['wall_s']:.1f} s"),
    ]
    return _stat_cards(cards)


def _stat_cards(cards: list[tuple[str, Any]]) -> str:
    return "".join(
        f'<div class="stat"><div class="v">{_v(v)}</div><div class="k">{escape(k)}</div></div>'
        for k, v in cards
    )


def _rate_cell(rate: float | None) -> str:
    width = 0 if rate is None else round(rate * 100)
    return (
        f'<td class="num" data-v="{_v(rate)}"><div class="rate"><span>{_pct(rate)}</span>'
        f'<span class="bar"><i style="width:{width}%"></i></span></div></td>'
    )


def _bucket_table(title: str, first: str, rows: list[dict[str, Any]]) -> str:
    body = "".join(
        f"<tr><td>{_v(r['name'])}</td><td class='num'>{r['episodes']}</td>"
        f"<td class='num'>{r['successes']}</td>{_rate_cell(r['success_rate'])}"
        f"<td class='num'>{_v(r['mean_steps'])}</td><td class='num'>{r['faults']}</td></tr>"
        for r in rows
    )
    head = "".join(
        f"<th{' class=num' if i else ''}>{c}</th>"
        for i, c in enumerate([first, "episodes", "successes", "success", "mean steps", "faults"])
    )
    return (
        f'<div class="card"><h2>{escape(title)}</h2><table class="sortable">'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _wall(seconds: Any) -> str:
    return f" · {seconds:.1f} s" if isinstance(seconds, int | float) else ""


def _pill(status: str, text: str | None = None) -> str:
    return f'<span class="pill {escape(status)}">{escape(text or status)}</span>'


def _codes(codes: list[str]) -> str:
    return "".join(f'<span class="code">{escape(c)}</span>' for c in codes)


def _episode_table(rows: list[dict[str, Any]]) -> str:
    cols = [
        "episode",
        "site",
        "difficulty",
        "status",
        "steps",
        "repeats",
        "wall time",
        "error codes",
        "answer",
    ]
    head = "".join(f"<th>{c}</th>" for c in cols)
    body = "".join(
        f"<tr><td class='mono'>{_v(r['key'])}</td><td>{_v(r['site'])}</td>"
        f"<td class='num'>{_v(r['difficulty'])}</td><td data-v='{r['status']}'>{_pill(r['status'])}</td>"
        f"<td class='num'>{_v(r['steps'])}</td><td class='num'>{r['repeats'] or ''}</td>"
        f"<td class='num' data-v='{_v(r['wall_s'])}'>{_v(r['wall_s'])}{' s' if r['wall_s'] is not None else ''}</td>"
        f"<td>{_codes(r['error_codes'])}</td><td class='small'>{_v((r['answer'] or '')[:80])}</td></tr>"
        for r in rows
    )
    return f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


# --- comparison -----------------------------------------------------------------------------


def _comparison(c: dict[str, Any]) -> str:
    """Run A (this report's) against run B: rates, how outcomes moved, the tasks that moved."""
    counts, rate = c["counts"], c["success_rate"]
    cards = [
        ("A success rate", _pct(rate["a"])),
        ("B success rate", _pct(rate["b"])),
        ("B gained (A failed)", counts["gained"]),
        ("B lost (A succeeded)", counts["lost"]),
        ("same outcome", counts["same"]),
        ("in one run only", counts["only_a"] + counts["only_b"]),
    ]
    stats = _stat_cards(cards)
    sites = "".join(
        f"<tr><td>{_v(s['name'])}</td>"
        f"{_rate_cell(s['a']['success_rate'] if s['a'] else None)}"
        f"{_rate_cell(s['b']['success_rate'] if s['b'] else None)}</tr>"
        for s in c["by_site"]
    )
    moved = [r for r in c["rows"] if r["change"] != "same"]
    body = "".join(
        f"<tr data-change='{r['change']}'><td class='mono'>{_v(r['key'])}</td>"
        f"<td>{_v(r['site'])}</td><td class='num'>{_v(r['difficulty'])}</td>"
        f"{_side_cells(r['a'])}{_side_cells(r['b'])}"
        f"<td data-v='{r['change']}'>{_pill(r['change'], r['change'].replace('_', ' '))}</td></tr>"
        for r in moved[:MAX_ROWS]
    )
    head = "".join(
        f"<th>{h}</th>"
        for h in ("episode", "site", "difficulty", "A", "A steps", "B", "B steps", "change")
    )
    none = '<p class="muted">Every task has the same outcome in both runs.</p>'
    return (
        f'<h2 class="section">Compared with {escape(c["b"]["name"])}</h2>'
        f'<div class="muted">A: {escape(c["a"]["path"])} ({_v(c["a"]["policy"])}) · '
        f"B: {escape(c['b']['path'])} ({_v(c['b']['policy'])})</div>"
        f"{_problems(c['b']['problems'])}"
        f'<div class="stats">{stats}</div>'
        f'<div class="card"><h2>Success by site</h2><table class="sortable"><thead><tr>'
        f"<th>site</th><th class=num>A</th><th class=num>B</th></tr></thead>"
        f"<tbody>{sites}</tbody></table></div>"
        f'<div class="card"><h2>Tasks whose outcome differs ({len(moved)})</h2>'
        + (
            f'<div class="table-wrap"><table class="sortable" data-testid="report-compare">'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
            if moved
            else none
        )
        + "</div>"
    )


def _side_cells(side: dict[str, Any] | None) -> str:
    if side is None:
        return "<td data-v=''><span class='muted'>absent</span></td><td class='num'></td>"
    return (
        f"<td data-v='{side['status']}'>{_pill(side['status'])} {_codes(side['error_codes'])}</td>"
        f"<td class='num'>{_v(side['steps'])}</td>"
    )


# --- example episodes ---------------------------------------------------------------------


def pick_examples(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Up to ``n`` episodes with steps, varied: statuses in turn (failures first), and a site
    not shown yet where there is one."""
    pool = [r for r in rows if r["steps"]]
    chosen: list[dict[str, Any]] = []
    while len(chosen) < n and pool:
        for status in EXAMPLE_ORDER:
            if len(chosen) >= n:
                break
            same = [r for r in pool if r["status"] == status]
            seen = {c["site"] for c in chosen}
            pick = next((r for r in same if r["site"] not in seen), same[0] if same else None)
            if pick is not None:
                chosen.append(pick)
                pool.remove(pick)
    return chosen


def _examples(run: RunData, rows: list[dict[str, Any]], n: int) -> str:
    picked = pick_examples(rows, n)
    if not picked:
        return '<p class="muted">No episode with recorded steps.</p>'
    return "".join(_example(run, row["key"]) for row in picked)


def _example(run: RunData, key: str) -> str:
    ep = episode_detail(run, key)
    if ep is None:
        return ""
    record = run.episodes.get(key)  # None: the episode never finished
    task = ep["task"]
    steps = ep["steps"]
    shown = steps
    if len(steps) > HEAD_STEPS + TAIL_STEPS:
        shown = steps[:HEAD_STEPS] + steps[-TAIL_STEPS:]
    skipped = len(steps) - len(shown)
    cards = "".join(_step_card(run, s) for s in shown[:HEAD_STEPS])
    if skipped:
        cards += f'<div class="report-step muted">… {skipped} steps not shown …</div>'
    cards += "".join(_step_card(run, s) for s in shown[HEAD_STEPS:])
    instruction = (
        escape(task["instruction"])
        if task
        else "<span class='muted'>instruction not available</span>"
    )
    wall = _wall(None if record is None else record.wall_s)
    return (
        f'<div class="card"><div class="ep-head"><span class="title mono">{escape(key)}</span>'
        f"{_pill(ep['status'])}<span class='muted'>{_v(ep.get('site'))} · difficulty "
        f"{_v(ep.get('difficulty'))} · {len(steps)} steps{wall}</span></div>"
        f'<div class="ep-top"><div><h3>Task</h3><div class="instruction">{instruction}</div></div>'
        f"<div><h3>Verdict</h3>{_verdict(record)}{verdict_lines(run, key)}</div></div>"
        f'<h3>Steps</h3><div class="report-steps">{cards}</div></div>'
    )


def _verdict(record: EpisodeRecord | None) -> str:
    """The answer, and the verifier's reasons or why there are none (a fault, no record)."""
    answer = ""
    if record is not None and record.answer:
        answer = f"<div>answer: <code>{escape(record.answer)}</code></div>"
    verifier = None if record is None else record.verifier
    if verifier is None:
        error = None if record is None else record.error
        answer += _pill("fault", "not verified") + (
            f" {_codes([error.code])} {escape(error.message)}"
            if error is not None
            else " <span class='muted'>the episode never finished</span>"
        )
    reasons = "".join(
        f"<li class='{'ok' if r.startswith('ok') else 'fail'}'>{escape(r)}</li>"
        for r in (verifier.reasons if verifier is not None else [])
    )
    return f'{answer}<ul class="reasons">{reasons}</ul>'


def _step_card(run: RunData, step: dict[str, Any]) -> str:
    w, h = step["viewport"]
    image = _thumbnail(run, step.get("screenshot"))
    img = (
        f'<img src="{image}" alt="">' if image else '<div class="missing">screenshot missing</div>'
    )
    error = step.get("error") or {}
    flags = _pill("repeat", "⟳ page unchanged") if step["repeat"] else ""
    text = str(step.get("text") or "")
    text = text if len(text) <= 600 else text[:600] + " …"
    return (
        f'<div class="report-step"><div class="stage">{img}<svg viewBox="0 0 {w} {h}" '
        f'preserveAspectRatio="none">{overlay_svg(step["overlay"], (w, h), scale=2.0)}</svg></div>'
        f"<div><strong>{step['step']}</strong> <code>{escape(step['action_text'])}</code> {flags} "
        f"{_codes([error['code']]) if error.get('code') else ''}</div>"
        f"<div class='small muted mono'>{escape(str(step.get('url') or ''))}</div>"
        f"<pre>{escape(text)}</pre></div>"
    )


def _thumbnail(run: RunData, rel: Any) -> str | None:
    """A screenshot downscaled to THUMB_WIDTH as a JPEG data URL, or None if missing."""
    path = safe_path(run.root, rel) if isinstance(rel, str) else None
    if path is None:
        return None
    from PIL import Image

    try:
        with Image.open(path) as source:
            img = source.convert("RGB")
        if img.width > THUMB_WIDTH:
            size = (THUMB_WIDTH, round(img.height * THUMB_WIDTH / img.width))
            img = img.resize(size, Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=70, optimize=True)
    except OSError:
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
