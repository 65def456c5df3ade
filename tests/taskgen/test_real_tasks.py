"""Rubrics then decomposition on real task instructions (Mind2Web-2's dev set), with a
deterministic stand-in model behind the fake endpoint."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from taskgen_helpers import last_user_text, read, write
from typer.testing import CliRunner

from fakes.openai_server import FakeOpenAIServer
from shared_data import shared_file
from webdojo.cli import app
from webdojo.tasks.schema import Task

DEV = "tasks/mind2web2/dev_set_tasks.jsonl"


def rubric_model(body: dict[str, Any]) -> str:
    """One group per sentence, one fact per comma-separated part: a crude but valid rubric."""
    instruction = last_user_text(body).removeprefix("Task: ").removesuffix("\nReply:")
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", instruction) if s.strip()][:6]
    groups = [
        {
            "id": i,
            "description": s[:40],
            "facts": [p.strip() for p in s.split(",") if p.strip()][:8],
        }
        for i, s in enumerate(sentences, 1)
    ]
    return "```json\n" + json.dumps({"fact_groups": groups, "difficulty": 0}) + "\n```"


def rewrite_model(body: dict[str, Any]) -> str:
    facts = re.findall(r"^- Group \d+(?: \(.*?\))?: (.*)$", last_user_text(body), re.M)
    return "Find out: " + "; ".join(facts)[:600]


def test_dev_set_rubrics_then_decomposition(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    dev = shared_file(DEV)
    rows = [json.loads(line) for line in dev.read_text(encoding="utf-8").splitlines() if line]
    tasks = [Task(id=f"mind2web2:{r['task_id']}", instruction=r["task_description"],
                  source="mind2web2") for r in rows]  # fmt: skip
    path = write(tmp_path / "dev.jsonl", tasks)
    rubrics, full = tmp_path / "rubrics.jsonl", tmp_path / "full.jsonl"
    base = ["--model-base-url", fake_openai.base_url, "--json"]
    fake_openai.respond_with(rubric_model)
    result = CliRunner().invoke(app, ["tasks", "rubric", str(path), "--out", str(rubrics), *base])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["generated"] == len(rows) == 10 and summary["difficulty_mismatch"] == 10
    with_rubrics = read(rubrics)
    assert all(t.difficulty == len(t.facts()) for t in with_rubrics)

    fake_openai.reset()
    fake_openai.respond_with(rewrite_model)
    result = CliRunner().invoke(
        app, ["tasks", "decompose", str(rubrics), "--out", str(full), *base]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    out = read(full)
    parents = {t.id: t for t in out if t.parent_id is None}
    children = [t for t in out if t.parent_id is not None]
    assert len(parents) == 10 and len(children) == summary["children"] > 0
    assert len({t.id for t in out}) == len(out)
    for child in children:
        parent = parents[child.parent_id]
        assert child.difficulty < parent.difficulty and child.difficulty >= 3
        assert {g.id for g in child.rubric.fact_groups} < {g.id for g in parent.rubric.fact_groups}
