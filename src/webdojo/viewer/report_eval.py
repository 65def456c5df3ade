"""The report's evaluation and verdict sections: every reward source side by side.

A reward source is the stored verifier or one judge (``webdojo judge``). For each, the report
shows the scored episodes, the success rate, Weblica's mean ± std over repeats, pass@k (the
unbiased estimator) when tasks have several episodes, and success by difficulty, level, domain
and site. Rewards of None (faults, website failures, blocked) are counted apart, never as 0.
The example episodes list each judge's verdict: label, reward, its failed and unchecked
criteria with their reasons and evidence steps, its error, notes and model usage.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from html import escape
from typing import Any

from webdojo.eval.bootstrap import Interval, nested_bootstrap
from webdojo.store.eval_stats import (
    Rate,
    group_rewards,
    over_repeats,
    pass_at_ks,
    rates_by,
    succeeded,
)
from webdojo.store.records import EpisodeRecord
from webdojo.store.verdicts import LABELS, Verdict
from webdojo.tasks.schema import LEVELS
from webdojo.viewer.runs import RunData
from webdojo.viewer.views import current_verdict


@dataclass(frozen=True)
class Source:
    """One reward per finished episode: the verifier's or a judge's."""

    name: str
    rewards: list[tuple[EpisodeRecord, float | None]]


def reward_sources(run: RunData) -> list[Source]:
    """The verifier (when it scored anything) and every judge with verdicts on this run."""
    records = list(run.episodes.values())
    sources = []
    if any(r.reward is not None for r in records):
        sources.append(Source("verifier", [(r, r.reward) for r in records]))
    for judge in sorted(run.verdicts):
        pairs = []
        for record in records:
            verdict = current_verdict(run, judge, record.key, record.episode)
            if verdict is not None:
                pairs.append((record, verdict.reward))
        if pairs:
            sources.append(Source(f"judge {judge}", pairs))
    return sources


_SOURCE_COLUMNS = (
    "source",
    "scored",
    "unscored",
    "success",
    "95% CI",
    "mean ± std over repeats",
    "pass@k",
)


def evaluation_section(run: RunData) -> str:
    """The ``Evaluation`` card: one row per reward source, then the breakdowns."""
    sources = reward_sources(run)
    if not sources:
        return ""
    rows = "".join(_source_row(s) for s in sources)
    head = "".join(f"<th>{h}</th>" for h in _SOURCE_COLUMNS)
    domain: Callable[[EpisodeRecord], Hashable] = lambda r: _domain(run, r)  # noqa: E731
    level_order = [*LEVELS, "unknown"]
    breakdowns = "".join(
        _breakdown(title, sources, group, order)
        for title, group, order in (
            ("Success by difficulty", lambda r: r.difficulty, None),
            ("Success by level", lambda r: r.level, level_order),
            ("Success by domain", domain, None),
            ("Success by site", lambda r: r.site, None),
        )
    )
    return (
        '<div class="card section" data-testid="evaluation"><h2>Evaluation</h2>'
        f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
        f'<p class="muted small">Unscored episodes (faults, website failures, blocked) are left '
        f"out of every rate. pass@k uses the unbiased estimator. The 95% CI is a bootstrap over "
        f"tasks with each task's repeats resampled within it (10000 resamples, seed 0): the "
        f"success rate is the mean of the per-task success shares.</p>{breakdowns}</div>"
    )


def _domain(run: RunData, record: EpisodeRecord) -> str:
    info = run.tasks.get(record.task_id)
    return (info.domain if info is not None else None) or "unknown"


def _source_row(source: Source) -> str:
    total = Rate()
    for _, reward in source.rewards:
        total = total.add(reward)
    spread = over_repeats((record.repeat, reward) for record, reward in source.rewards)
    repeats = "–" if spread is None else f"{spread[0]:.3f} ± {spread[1]:.3f} ({spread[2]} repeats)"
    groups = group_rewards((record.task_id, reward) for record, reward in source.rewards)
    passes = ", ".join(f"pass@{k} {v:.3f}" for k, v in pass_at_ks(groups).items()) or "–"
    interval = nested_bootstrap(
        [[float(succeeded(r)) for r in rewards] for rewards in groups.values() if rewards]
    )
    cells = [escape(str(c)) for c in (source.name, total.scored, total.unscored, _rate(total))]
    cells += [_ci_cell(interval), escape(repeats), escape(passes)]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _ci_cell(interval: Interval) -> str:
    """The interval as text and drawn: a bar on a 0-100% axis, the estimate as a dot."""
    if interval.mean is None or interval.lo is None or interval.hi is None:
        return "–"
    lo, mean, hi = (round(v * 100, 1) for v in (interval.lo, interval.mean, interval.hi))
    svg = (
        '<svg class="ci" width="120" height="14" viewBox="0 0 100 14" role="img" '
        f'aria-label="95% CI {lo}% to {hi}%">'
        '<line x1="0" y1="7" x2="100" y2="7" stroke="#ddd" stroke-width="1"/>'
        f'<line x1="{lo}" y1="7" x2="{hi}" y2="7" stroke="#356" stroke-width="3"/>'
        f'<circle cx="{mean}" cy="7" r="3" fill="#c40"/></svg>'
    )
    return f'<span data-testid="ci">{lo:.1f}–{hi:.1f}%</span> {svg}'


def _breakdown(
    title: str,
    sources: list[Source],
    group: Callable[[EpisodeRecord], Hashable],
    order: list[str] | None = None,
) -> str:
    """One row per group (in ``order`` when given, else sorted), one column per source."""
    tables = [rates_by((group(record), reward) for record, reward in s.rewards) for s in sources]
    found = {k for t in tables for k in t}
    if order is not None:
        keys = [k for k in order if k in found] + sorted(found - set(order), key=str)
    else:
        keys = sorted(found, key=lambda k: (str(type(k)), k))
    if len(keys) < 2:
        return ""  # one group says nothing the overall row does not
    head = "".join(f"<th>{escape(s.name)}</th>" for s in sources)
    body = "".join(
        f"<tr><td>{escape(str(key))}</td>"
        + "".join(f"<td>{_rate(t.get(key, Rate()))}</td>" for t in tables)
        + "</tr>"
        for key in keys
    )
    return (
        f"<h3>{escape(title)}</h3><table class='sortable' data-testid='{_slug(title)}'>"
        f"<thead><tr><th>{escape(title.rsplit(' ', 1)[-1])}</th>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table>"
    )


def _slug(title: str) -> str:
    return title.lower().replace(" ", "-")  # "Success by site" -> "success-by-site"


def _rate(rate: Rate) -> str:
    value = rate.rate
    return "–" if value is None else f"{value * 100:.1f}% ({rate.successes}/{rate.scored})"


def judges_section(summaries: list[dict[str, Any]]) -> str:
    """The ``Judges`` card from ``views.judge_summaries``: labels per judge, mean reward,
    agreement with the verifier."""
    if not summaries:
        return ""
    head = "".join(
        f"<th>{escape(x)}</th>"
        for x in ("judge", "verdicts", *LABELS, "reward mean", "agrees with verifier")
    )
    rows = "".join(_judge_row(s) for s in summaries)
    return (
        '<div class="card section" data-testid="judges"><h2>Judges</h2>'
        f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'
    )


def _judge_row(s: dict[str, Any]) -> str:
    agree = f"{s['agree_with_verifier']}/{s['with_verifier']}" if s["with_verifier"] else "–"
    mean = "–" if s["reward_mean"] is None else f"{s['reward_mean']:.3f}"
    cells = [
        s["judge"],
        s["verdicts"],
        *(s["labels"].get(label, 0) for label in LABELS),
        mean,
        agree,
    ]
    return "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>"


def verdict_lines(run: RunData, key: str) -> str:
    """Each judge's verdict on an example episode (see ``_verdict_block``)."""
    record = run.episodes.get(key)
    if record is None:
        return ""
    steps = len(run.steps_of(key))
    parts = []
    for judge in sorted(run.verdicts):
        verdict = current_verdict(run, judge, key, record.episode)
        if verdict is not None:
            parts.append(_verdict_block(verdict, steps))
    return "".join(parts)


def _verdict_block(verdict: Verdict, steps: int) -> str:
    """Label and reward, the criteria that did not pass (or the first, when all did) with their
    reasons and evidence steps, the error, the notes and what the judge's model calls cost."""
    shown = [c for c in verdict.criteria if c.passed is not True] or verdict.criteria[:1]
    items = "".join(
        f"<li class='{_state(c.passed)}'>{escape(c.name)}: "
        + ("not checked · " if c.passed is None else "")
        + f"{escape(c.reason)}{_evidence(c.evidence, steps)}</li>"
        for c in shown
    )
    error = (
        f" <code>{escape(verdict.error.code)}</code> {escape(verdict.error.message)}"
        if verdict.error is not None
        else ""
    )
    reward = "none" if verdict.reward is None else f"{verdict.reward:g}"
    notes = "".join(f"<li>{escape(n)}</li>" for n in verdict.notes)
    return (
        f"<div class='judge-verdict' data-judge='{escape(verdict.judge)}'>"
        f"<span class='mono'>{escape(verdict.judge)}</span> "
        f"<span class='pill {verdict.label}'>{escape(verdict.label.replace('_', ' '))}</span>"
        f" reward {reward}{error} <span class='muted small'>{escape(_usage(verdict))}</span>"
        f"<ul class='reasons'>{items}</ul>"
        + (f"<ul class='small muted'>{notes}</ul>" if notes else "")
        + "</div>"
    )


def _state(passed: bool | None) -> str:
    return "ok" if passed else "unchecked" if passed is None else "fail"


def _evidence(evidence: list[int], steps: int) -> str:
    """``(evidence: step 1, final page)``: step ``steps`` is the page after the last step."""
    if not evidence:
        return ""
    named = ", ".join("final page" if i >= steps else f"step {i}" for i in evidence)
    return f" <span class='muted'>(evidence: {named})</span>"


def _usage(verdict: Verdict) -> str:
    usage = verdict.usage
    if not usage.calls and not usage.cached:
        return ""
    cost = "" if usage.cost is None else f", cost {usage.cost:.4f}"
    model = f"{verdict.model}: " if verdict.model else ""
    return f"{model}{usage.calls} calls, {usage.cached} cached, {usage.tokens} tokens{cost}"
