"""The task-set benchmark runs end to end on a small set (no timing asserts) and its synthetic
WebGym rows have the shape it claims."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from webdojo.bench.tasks_bench import PHASES, run_tasks_bench
from webdojo.bench.tasks_data import webgym_rows
from webdojo.tasks.task_file import iter_tasks
from webdojo.tasks.taxonomy import DOMAINS
from webdojo.tasks.websites import registrable_domain


def test_synthetic_rows_look_like_webgym() -> None:
    rows = list(webgym_rows(4000, seed=1))
    assert set(rows[0]) == {"task_id", "task_name", "domain", "subdomain", "website",
                            "difficulty", "evaluator_reference", "reference_answer"}  # fmt: skip
    for row in rows[:200]:
        facts = sum(len(g["facts"]) for g in row["evaluator_reference"])
        assert facts == row["difficulty"]
        assert row["subdomain"] in DOMAINS[row["domain"]]
    per_site = Counter(registrable_domain(r["website"]) for r in rows)
    top20 = sum(c for _, c in per_site.most_common(20))
    assert 0.4 < top20 / len(rows) < 0.6  # about half on the top 20 websites
    assert sum(1 for c in per_site.values() if c == 1) > 1000  # a long tail
    easy = sum(1 for r in rows if r["difficulty"] <= 3) / len(rows)
    assert 0.75 < easy < 0.85


@pytest.mark.slow
def test_bench_runs_every_phase(tmp_path: Path) -> None:
    result = run_tasks_bench(n=400, work=tmp_path)
    data = result.to_json()
    assert data["ok"], {k: p.output_tail for k, p in result.phases.items()}
    assert list(result.phases) == list(PHASES)
    assert all(data[f"{p}_s"] > 0 for p in PHASES) and data["peak_mb"] > 10
    imported = json.loads((tmp_path / "import.log").read_text().strip().splitlines()[-1])
    assert (imported["tasks"], imported["skipped"], imported["format"]) == (400, 0, "webgym")
    assert next(iter_tasks(tmp_path / "tasks.jsonl")).rubric is not None
    sample = json.loads((tmp_path / "sample.log").read_text().strip().splitlines()[-1])
    assert sample["sampled"] == 40
    assert (tmp_path / "stats.html").exists()
