"""``DIR/loop.html``: the loop's report as a page: the learning curve, a table of rounds and
the last round's held-out success by kind (family, MiniWoB++ page).

A static file (the plot beside it, no script), so it opens from disk and from CI artifacts.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from webdojo.loop.report import kind_rows, with_ci

SETS = (("train", "training"), ("heldout", "held-out"), ("heldout_ood", "held-out, other kinds"))
STYLE = """body{font-family:system-ui,sans-serif;margin:2rem;color:#111827}
table{border-collapse:collapse;margin-top:1rem}td,th{border:1px solid #d1d5db;padding:.3rem .6rem;
text-align:right}th:first-child,td:first-child{text-align:left}img{max-width:100%}"""


def write_loop_page(out: Path, report: dict[str, Any], plot: str) -> Path:
    sets = [
        (key, label) for key, label in SETS if any(r.get(key) is not None for r in report["rounds"])
    ]
    head = ["round", "rule", *(label for _, label in sets), "rollouts", "kept", "loss"]
    rows = [_row(r, sets) for r in report["rounds"]]
    random = with_ci(report.get("random_heldout"), report.get("random_heldout_ci95"))
    body = [
        "<h1>webdojo train loop</h1>",
        f"<p>Greedy success per round, 95% bootstrap intervals over instances. The random "
        f"policy on the held-out instances: <strong>{html.escape(random)}</strong>. Instances: "
        f"{html.escape(', '.join(f'{k} {v}' for k, v in report.get('instances', {}).items()))}."
        f" {report.get('seconds', 0):.0f} s in all.</p>",
        f'<img src="{html.escape(plot)}" alt="success per round and loss per update">',
        "<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>",
        "</thead><tbody>" + "".join(rows) + "</tbody></table>",
        *_kinds(report),
    ]
    page = "<!doctype html><meta charset=utf-8><title>webdojo train loop</title>"
    out.write_text(f"{page}<style>{STYLE}</style>{''.join(body)}\n", encoding="utf-8")
    return out


def _kinds(report: dict[str, Any]) -> list[str]:
    """The last round's held-out success by kind, beside the random policy's."""
    rows = kind_rows(report)
    if not rows:
        return []
    cells = ["kind", "instances", "model", "random policy"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cells)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    title = f"Held-out success by kind after round {report['rounds'][-1]['round']}"
    return [f"<h2>{title}</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"]


def _row(r: dict[str, Any], sets: list[tuple[str, str]]) -> str:
    loss = (
        "no update"
        if r.get("loss_last") is None
        else f"{r['loss_first']:.3f} → {r['loss_last']:.3f}"
    )
    rollout = r.get("rollout_success")
    cells = [
        str(r["round"]),
        r["rule"],
        *(with_ci(r.get(k), r.get(f"{k}_ci95")) for k, _ in sets),
        "" if rollout is None else f"{rollout:.0%}",
        str(r.get("kept", "")),
        loss,
    ]
    return "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
