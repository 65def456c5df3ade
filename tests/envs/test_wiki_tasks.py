"""QA task sets for the wiki: any importable format, an exact-match verifier, the start page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from envs_data import NQ_SAMPLE, shared

from webdojo.errors import TaskFileError
from webdojo.observation import FinalState
from webdojo.tasks.qa_tasks import load_qa_tasks, on_wiki, with_answer_check
from webdojo.tasks.schema import AnswerCheck, Task, Verifier
from webdojo.tasks.verify import verify


def test_flashrag_questions_get_an_exact_match_verifier() -> None:
    tasks = load_qa_tasks(str(shared(NQ_SAMPLE))).tasks
    assert len(tasks) == 17 and tasks[0].id == "flashrag:test_0"
    assert tasks[0].verifier == Verifier(
        checks=[AnswerCheck(match="em", values=["Wilhelm Conrad Röntgen"])]
    )
    moved = on_wiki(load_qa_tasks(str(NQ_SAMPLE)), "http://127.0.0.1:1/search").tasks
    assert {t.start_url for t in moved} == {"http://127.0.0.1:1/search"}


@pytest.mark.parametrize(
    ("answer", "passed", "f1"),
    [
        ("wilhelm conrad röntgen.", True, "1.000"),  # SQuAD normalization: case, punctuation
        ("The Wilhelm Conrad Röntgen", True, "1.000"),  # articles dropped
        ("Röntgen", False, "0.500"),
        (None, False, None),
    ],
)
def test_the_reward_is_exact_match_and_the_reason_gives_f1(
    answer: str | None, passed: bool, f1: str | None
) -> None:
    task = with_answer_check(
        Task.model_validate(
            {
                "id": "q",
                "instruction": "who got the first nobel prize in physics",
                "reference_answers": [{"type": "golden", "answer": "Wilhelm Conrad Röntgen"}],
            }
        )
    )
    result = verify(task, FinalState(url="http://127.0.0.1/", answer=answer))
    assert result is not None and result.passed is passed
    if f1 is not None:
        assert f"F1 {f1}" in result.reasons[0]


def test_our_task_files_keep_their_own_verifier(tmp_path: Path) -> None:
    row = {"id": "own", "instruction": "Say hi", "verifier": {"checks": [{"kind": "answer",
           "value": "hi"}]}, "reference_answers": [{"type": "golden", "answer": "x"}]}  # fmt: skip
    path = tmp_path / "own.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (task,) = load_qa_tasks(str(path)).tasks
    assert task.verifier is not None and task.verifier.checks[0].match == "exact"


def test_a_bad_qa_record_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    rows = [{"id": "a", "question": "q?", "golden_answers": ["x"]},
            {"id": "b", "question": "q?", "golden_answers": []}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(TaskFileError, match=r"bad.jsonl:2.*golden_answers"):
        load_qa_tasks(str(path))
