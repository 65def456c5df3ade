"""Verdict records on disk: round trip, versions, lines cut short, one file per judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webdojo.errors import ErrorInfo, RecordSchemaError
from webdojo.store.verdicts import (
    Criterion,
    JudgeUsage,
    Verdict,
    VerdictWriter,
    judge_slug,
    judges_of,
    parse_verdict,
    read_verdicts,
    verdict_path,
)


def verdict(key: str, label: str = "success", judge: str = "rubric", **extra: object) -> Verdict:
    return Verdict.model_validate(
        {
            "judge": judge,
            "key": key,
            "episode": key + "-e",
            "task_id": key.split("#")[0],
            "label": label,
            "reward": {"success": 1.0, "failure": 0.0}.get(label),
            "criteria": [
                Criterion(name="G1", kind="fact", passed=True, reason="seen", evidence=[2, 3])
            ],
            **extra,
        }
    )


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    error = ErrorInfo(code="model_output_invalid", fault="infra", message="m", details={"n": 3})
    original = verdict(
        "a#0",
        "infra_error",
        usage=JudgeUsage(calls=3, prompt_tokens=100, completion_tokens=20, cost=0.01),
        error=error,
        notes=["downscaled 2 images"],
    )
    with VerdictWriter(tmp_path, "rubric") as writer:
        writer.write(original)
    line = verdict_path(tmp_path, "rubric").read_text().strip()
    assert parse_verdict(line) == original and original.unparseable
    assert set(json.loads(line)) >= {"schema_version", "label", "reward", "criteria", "usage"}


def test_newer_schema_is_refused_and_cut_lines_are_skipped(tmp_path: Path) -> None:
    newer = verdict("a#0").model_dump() | {"schema_version": 99}
    with pytest.raises(RecordSchemaError, match="schema_version 99"):
        parse_verdict(json.dumps(newer))
    path = verdict_path(tmp_path, "rubric")
    path.parent.mkdir()
    good = verdict("a#0").model_dump_json()
    path.write_text(good + "\n" + verdict("b#0").model_dump_json()[:30])
    assert list(read_verdicts(tmp_path, "rubric")) == ["a#0"]
    with VerdictWriter(tmp_path, "rubric") as writer:  # ends the cut line before appending
        writer.write(verdict("b#0", "failure"))
    assert read_verdicts(tmp_path, "rubric")["b#0"].reward == 0.0


def test_later_verdicts_win_and_each_judge_has_its_file(tmp_path: Path) -> None:
    spec = "consensus:rubric,exact"
    with VerdictWriter(tmp_path, "rubric") as rubric, VerdictWriter(tmp_path, spec) as vote:
        rubric.write(verdict("a#0", "failure"))
        rubric.write(verdict("a#0", "success"))
        vote.write(verdict("a#0", "blocked", judge=spec))
    found = judges_of(tmp_path)
    assert found["rubric"]["a#0"].label == "success"
    assert found[spec]["a#0"].reward is None
    assert judge_slug(spec) == "consensus-rubric-exact" and judge_slug("::") == "judge"
