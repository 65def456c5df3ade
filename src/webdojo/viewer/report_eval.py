"""The report's evaluation and verdict sections: every reward source side by side.

A reward source is the stored verifier or one judge (``webdojo judge``). For each, the report
shows the scored episodes, the success rate, Weblica's mean ± std over repeats, pass@k (the
unbiased estimator) when tasks have several episodes, and success by difficulty, domain and
site. Rewards of None (faults, website failures, blocked) are counted apart, never as 0. The
example episodes list each judge's verdict with its failed criteria and their evidence steps.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from html import escape
from typing import Any

from webdojo.store.eval_stats import Rate, group_rewards, over_repeats, pass_at_ks, rates_by
from webdojo.store.records import EpisodeRecord
from webdojo.store.verdicts import LABELS, Verdict
from webdojo.viewer.runs import RunData
from webdojo.viewer.views import current_verdict, judge_summaries


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


def evaluation_section(run: RunData) -> str:
    """The ``Evaluation`` card: one row per reward source, then the breakdowns."""
    sources = reward_sources(run)
    if not sources:
        return ""
    rows = "".join(_source_row(s) for s in sources)
    head = "".join(f"<th>{h}</th>" for h in ("source", "scored", "unscored", "success",
                                             "mean ± std over repeats", "pass@k"))  # fmt: skip
    domain: Callable[[EpisodeRecord], Hashable] = lambda r: _domain(run, r)  # noqa: E731
    breakdowns = "".join(
        _breakdown(title, sources, group)
        for title, group in (
            ("Success by difficulty", lambda r: r.difficulty),
            ("Success by domain", domain),
            ("Success by site", lambda r: r.site),
        )
    )
    return (
        '<div class="card section" data-testid="evaluation"><h2>Evaluation</h2>'
        f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
        f'<p class="muted small">Unscored episodes (faults, website failures, blocked) are left '
        f"out of every rate. pass@k uses the unbiased estimator.</p>{breakdowns}</div>"
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
    cells = [source.name, total.scored, total.unscored, _rate(total), repeats, passes]
    return "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>"


def _breakdown(
    title: str, sources: list[Source], group: Callable[[EpisodeRecord], Hashable]
) -> str:
    tables = [rates_by((group(record), reward) for record, reward in s.rewards) for s in sources]
    keys = sorted({k for t in tables for k in t}, key=lambda k: (str(type(k)), k))
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
        f"<h3>{escape(title)}</h3><table class='sortable'><thead><tr><th></th>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table>"
    )


def _rate(rate: Rate) -> str:
    value = rate.rate
    return "–" if value is None else f"{value * 100:.1f}% ({rate.successes}/{rate.scored})"


def judges_section(run: RunData) -> str:
    """The ``Judges`` card: labels per judge, mean reward, agreement with the verifier."""
    summaries = judge_summaries(run)
    if not summaries:
        return ""
    head = "".join(f"<th>{escape(x)}</th>" for x in ("judge", "verdicts", *LABELS,
                                                     "reward mean", "agrees with verifier"))  # fmt: skip
    rows = "".join(_judge_row(s) for s in summaries)
    return (
        '<div class="card section" data-testid="judges"><h2>Judges</h2>'
        f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'
    )


def _judge_row(s: dict[str, Any]) -> str:
    agree = f"{s['agree_with_verifier']}/{s['with_verifier']}" if s["with_verifier"] else "–"
    mean = "–" if s["reward_mean"] is None else f"{s['reward_mean']:.3f}"
    cells = [s["judge"], s["verdicts"], *(s["labels"].get(label, 0) for label in LABELS), mean,
             agree]  # fmt: skip
    return "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>"


def verdict_lines(run: RunData, key: str) -> str:
    """Each judge's label on an example episode, with its failed or unchecked criteria."""
    record = run.episodes.get(key)
    if record is None:
        return ""
    parts = []
    for judge in sorted(run.verdicts):
        verdict = current_verdict(run, judge, key, record.episode)
        if verdict is not None:
            parts.append(_verdict_block(verdict))
    return "".join(parts)


def _verdict_block(verdict: Verdict) -> str:
    shown = [c for c in verdict.criteria if c.passed is not True] or verdict.criteria[:1]
    items = "".join(
        f"<li class='{'ok' if c.passed else 'fail'}'>{escape(c.name)}: {escape(c.reason)}"
        + (f" <span class='muted'>(steps {', '.join(map(str, c.evidence))})</span>"
           if c.evidence else "")
        + "</li>"
        for c in shown
    )  # fmt: skip
    error = f" <code>{escape(verdict.error.code)}</code>" if verdict.error is not None else ""
    return (
        f"<div class='judge-verdict'><span class='mono'>{escape(verdict.judge)}</span> "
        f"<span class='pill {verdict.label}'>{escape(verdict.label.replace('_', ' '))}</span>"
        f"{error}<ul class='reasons'>{items}</ul></div>"
    )
