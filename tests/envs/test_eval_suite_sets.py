"""A suite file that mixes sets which run differently: QA on an offline wiki (a ZIM served for
that set only; our task format and FlashRAG's; judged by exact match) and built-in tasks scored by a judge instead of their verifiers. Each runs as
its own part; the eval scores them together, by set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_wiki_qa import qa_task, solution

from e2e.cli_process import last_json, webdojo
from webdojo.store.verdicts import read_verdicts

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_wiki_set_and_a_judged_set_in_one_suite(indexed_zim: Path, tmp_path: Path) -> None:
    rows = [
        qa_task("curie", "In which city was Marie Curie born?", ["Warsaw"],
                solution("Marie Curie", "Marie Curie", "Warsaw")),
        qa_task("kili", "What is the highest mountain in Africa?", ["Kilimanjaro"],
                solution("Kilimanjaro", "Mount Kilimanjaro", "Kilimanjaro")),
    ]  # fmt: skip
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    # a question in FlashRAG's format (no solution: the scripted policy answers nothing)
    flash = {"id": "nq1", "question": "Who wrote Hamlet?", "golden_answers": ["Shakespeare"]}
    (tmp_path / "flash.jsonl").write_text(json.dumps(flash) + "\n")
    suite = tmp_path / "mixed.yaml"
    suite.write_text(
        "name: mixed\nsets:\n"
        f"  - {{name: qa, tasks: 'qa.jsonl,flash.jsonl', wiki: {indexed_zim}, judge: exact}}\n"
        "  - {name: login, tasks: 'builtin:login', judge: programmatic}\n"
    )
    out = tmp_path / "eval"
    result = last_json(webdojo("eval", "--suite", suite, "--policy", "scripted", "--out", out,
                               "--json"))  # fmt: skip
    assert result["episodes"] == result["scored"] == 14 and result["faults"] == 0
    assert result["by_task"]["flashrag:nq1"] == 0.0  # read as QA again to be judged: no answer
    assert result["success"] == round(13 / 14, 4)
    assert {k: v["tasks"] for k, v in result["by_source"].items()} == {"qa": 3, "login": 11}
    assert len(read_verdicts(out / "parts" / "qa", "exact")) == 3
    assert (out / "parts" / "qa" / "episodes.jsonl").is_file()
    verdicts = read_verdicts(out / "parts" / "login", "programmatic")
    assert len(verdicts) == 11 and {v.reward for v in verdicts.values()} == {1.0}
    # the same command again resumes: nothing left to run, the same scores
    again = last_json(webdojo("eval", "--suite", suite, "--policy", "scripted", "--out", out,
                              "--json"))  # fmt: skip
    assert again["by_task"] == result["by_task"] and again["suite_hash"] == result["suite_hash"]
