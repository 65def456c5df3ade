"""The answer judges (exact, f1): SQuAD v1.1 normalization and metrics, answers wrapped by the
policy, several golden answers, and the inputs they refuse to score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judges.rule_runs import clicks, write_episode
from shared_data import shared_file
from webdojo.judges.answer_match import (
    ExactJudge,
    F1Judge,
    exact_match,
    normalize_answer,
    token_f1,
    unwrap_answer,
)
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.judges.spec import build_judge
from webdojo.store.verdicts import read_verdicts
from webdojo.tasks.schema import Task


def qa_task(*golden: str, possible: tuple[str, ...] = (), task_id: str = "qa.capital") -> Task:
    refs = [{"type": "golden", "answer": g} for g in golden]
    refs += [{"type": "possible", "answer": p} for p in possible]
    return Task.model_validate(
        {"id": task_id, "instruction": "What is the capital of France?", "reference_answers": refs}
    )


PAGES = clicks("http://127.0.0.1/wiki/France")


# --- normalization and metrics (the official SQuAD v1.1 rules) --------------------------------


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The Eiffel Tower.", "eiffel tower"),
        ("  A   quick,  brown fox!! ", "quick brown fox"),
        ("an apple and the pie", "apple and pie"),
        ("Theory of Anatomy", "theory of anatomy"),  # articles only as whole words
        ("U.S.A.", "usa"),  # punctuation is dropped, not replaced by a space
        ("rock-'n'-roll", "rocknroll"),
        ("$1,000.50", "100050"),
        ("Wilhelm Conrad Röntgen", "wilhelm conrad röntgen"),  # non-ASCII letters stay
        ("“quoted”", "“quoted”"),  # string.punctuation is ASCII only, as in the script
        ("The", ""),
    ],
)
def test_normalization_follows_squad(text: str, normalized: str) -> None:
    assert normalize_answer(text) == normalized


def test_exact_match_compares_normalized_text() -> None:
    assert exact_match("the Eiffel  Tower!", "Eiffel Tower")
    assert not exact_match("Eiffel Tower, Paris", "Eiffel Tower")


def test_token_f1_by_hand() -> None:
    # [cat, sat, on, mat] vs [cat, on, mat]: 3 shared; P = 3/4, R = 1, F1 = 2PR/(P+R) = 6/7
    assert token_f1("the cat sat on the mat", "a cat on a mat") == pytest.approx(6 / 7)
    # shared tokens count with multiplicity: [dog, dog] vs [dog]: P = 1/2, R = 1 -> 2/3
    assert token_f1("the dog dog", "dog") == pytest.approx(2 / 3)
    assert token_f1("dog", "dog dog dog") == pytest.approx(0.5)  # P = 1, R = 1/3
    # [dog, dog] vs [dog, dog, cat]: 2 shared (not 1, as sets would say): P = 1, R = 2/3 -> 0.8
    assert token_f1("dog dog", "dog dog cat") == pytest.approx(0.8)
    assert token_f1("Paris", "London") == 0.0
    assert token_f1("the", "a") == 0.0  # both empty once normalized: no shared token


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("<answer>Paris</answer>", "Paris"),
        ("I checked two pages. <answer>Lyon</answer> No: <answer> Paris </answer>", "Paris"),
        ("<ANSWER>Paris", "Paris"),  # cut off before the closing tag
        ("Paris</answer>", "Paris"),
        ("Answer: Paris", "Paris"),
        ("**Final answer:** Paris", "Paris"),
        ("final answer：Paris", "Paris"),
        ("Answer:", "Answer:"),  # a label with nothing after it is the whole answer
        ("The answers vary: Paris", "The answers vary: Paris"),
        ("  Paris  ", "Paris"),
    ],
)
def test_wrapped_answers_are_unwrapped(raw: str, answer: str) -> None:
    assert unwrap_answer(raw) == answer


# --- the judges ----------------------------------------------------------------------------


async def test_exact_judge_matches_any_golden_answer(tmp_path: Path) -> None:
    task = qa_task("City of Light", "Paris")
    t = write_episode(tmp_path, task, PAGES, answer="<answer>paris.</answer>")
    verdict = await ExactJudge(JudgeOptions()).judge(t)
    assert (verdict.label, verdict.reward, verdict.judge) == ("success", 1.0, "exact")
    [criterion] = verdict.criteria
    assert criterion.kind == "answer" and criterion.passed is True
    assert "'Paris'" in criterion.reason and criterion.evidence == [1]  # the stop step
    assert verdict.notes == ["answer unwrapped from '<answer>paris.</answer>'"]


async def test_exact_judge_failure_names_the_closest_golden_answer(tmp_path: Path) -> None:
    task = qa_task("Lyon", "Paris France")
    t = write_episode(tmp_path, task, PAGES, answer="Paris")
    verdict = await ExactJudge(JudgeOptions()).judge(t)
    assert (verdict.label, verdict.reward) == ("failure", 0.0)
    reason = verdict.criteria[0].reason
    assert "none of 2 golden" in reason and "'Paris France' (F1 0.67)" in reason
    assert verdict.notes == [] and verdict.error is None


async def test_f1_reward_is_the_best_f1_and_the_label_follows_the_threshold(
    tmp_path: Path,
) -> None:
    # "the brass desk lamp" -> [brass, desk, lamp]; golden "brass lamp": P = 2/3, R = 1 -> 0.8;
    # golden "a desk lamp made of brass" -> [desk, lamp, made, of, brass]: P = 1, R = 3/5 -> 0.75
    task = qa_task("a desk lamp made of brass", "brass lamp")
    t = write_episode(tmp_path, task, PAGES, answer="The brass desk lamp")
    verdict = await F1Judge(JudgeOptions()).judge(t)
    assert verdict.label == "success" and verdict.reward == pytest.approx(0.8)
    assert "'brass lamp'" in verdict.criteria[0].reason
    strict = await F1Judge(JudgeOptions(), threshold=0.9).judge(t)
    assert strict.label == "failure" and strict.reward == pytest.approx(0.8)  # partial credit
    from_options = await F1Judge(JudgeOptions(f1_threshold=0.9)).judge(t)  # --f1-threshold
    assert from_options.label == "failure"


async def test_f1_without_overlap_is_a_zero_failure(tmp_path: Path) -> None:
    t = write_episode(tmp_path, qa_task("Paris"), PAGES, answer="London")
    verdict = await F1Judge(JudgeOptions()).judge(t)
    assert (verdict.label, verdict.reward) == ("failure", 0.0)


def test_the_f1_threshold_is_checked() -> None:
    with pytest.raises(ValueError, match="threshold"):
        F1Judge(JudgeOptions(), threshold=1.5)


@pytest.mark.parametrize("judge", [ExactJudge(), F1Judge()])
@pytest.mark.parametrize(
    ("answer", "golden", "possible", "why"),
    [
        ("Paris", (), (), "has no golden reference answer"),
        ("Paris", (), ("Paris",), "1 'possible' answer(s)"),
    ],
)
async def test_what_cannot_be_scored_is_an_infra_error_that_names_it(
    tmp_path: Path,
    judge: ExactJudge,
    answer: str | None,
    golden: tuple[str, ...],
    possible: tuple[str, ...],
    why: str,
) -> None:
    t = write_episode(tmp_path, qa_task(*golden, possible=possible), PAGES, answer=answer)
    verdict = await judge.judge(t)
    assert verdict.label == "infra_error" and verdict.reward is None
    assert verdict.error is not None and verdict.error.code == "trajectory_incomplete"
    assert why in verdict.error.message
    assert all(c.kind == "input" and c.passed is False for c in verdict.criteria)


@pytest.mark.parametrize("judge", [ExactJudge(), F1Judge()])
@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (None, "the agent gave no final answer"),
        ("   ", "the agent gave no final answer"),
        ("<answer> </answer>", "empty once unwrapped"),
    ],
)
async def test_an_attempt_without_an_answer_is_the_agents_failure(
    tmp_path: Path, judge: ExactJudge, answer: str | None, why: str
) -> None:
    """Not missing input: the agent stopped without answering (a faulted episode never gets
    here), so an eval counts it as a failure instead of excusing it as a fault."""
    t = write_episode(tmp_path, qa_task("Paris"), PAGES, answer=answer)
    verdict = await judge.judge(t)
    assert (verdict.label, verdict.reward, verdict.error) == ("failure", 0.0, None)
    assert [(c.name, c.passed) for c in verdict.criteria] == [("answered", False)]
    assert why in verdict.criteria[0].reason


async def test_a_task_gone_from_the_task_set_is_named(tmp_path: Path) -> None:
    t = write_episode(tmp_path, qa_task("Paris"), PAGES, answer="Paris")
    gone = type(t)(t.run, t.record, t.steps, None)
    verdict = await ExactJudge().judge(gone)
    assert verdict.label == "infra_error" and "not in the run's task set" in verdict.error.message  # type: ignore[union-attr]


async def test_specs_build_the_judges_and_the_runner_writes_their_verdicts(
    tmp_path: Path,
) -> None:
    assert isinstance(build_judge("exact", JudgeOptions()), ExactJudge)
    assert isinstance(build_judge("f1", JudgeOptions()), F1Judge)
    run = tmp_path / "run"
    write_episode(run, qa_task("Paris", task_id="qa.a"), PAGES, answer="Answer: Paris")
    write_episode(run, qa_task("Paris", task_id="qa.b"), PAGES, answer="Paris, France")
    write_episode(run, qa_task("Paris", task_id="qa.c"), PAGES, answer=None)
    report = await judge_run(run, "f1", JudgeOptions())
    summary = report.to_json()
    assert summary["judged"] == 3 and summary["model_calls"] == 0
    assert summary["labels"]["success"] == 2 and summary["labels"]["failure"] == 1
    rewards = {v.task_id: v.reward for v in read_verdicts(run, "f1").values()}
    # "Paris, France" -> [paris, france] vs [paris]: P = 1/2, R = 1 -> 2/3; no answer -> 0
    assert rewards == {"qa.a": 1.0, "qa.b": pytest.approx(2 / 3), "qa.c": 0.0}
    assert summary["reward_mean"] == pytest.approx(round((1 + 2 / 3) / 3, 4))


async def test_real_natural_questions_with_several_golden_answers(tmp_path: Path) -> None:
    """FlashRAG's NQ sample, imported as it is: the golden answers of a question are all tried."""
    source = shared_file("qa/flashrag_nq_test.jsonl")
    from webdojo.tasks.sources import import_tasks
    from webdojo.tasks.task_file import iter_tasks

    out = tmp_path / "nq.jsonl"
    import_tasks([str(source)], out)
    tasks = {t.id.rsplit(":", 1)[-1]: t for t in iter_tasks(out)}
    rows = {r["id"]: r for r in map(json.loads, source.read_text().splitlines()) if r}
    assert rows["test_2"]["golden_answers"] == ["Olivia", "MFSK"]
    second = write_episode(tmp_path / "run", tasks["test_2"], PAGES, answer="MFSK.")
    assert (await ExactJudge().judge(second)).label == "success"  # the second golden answer
    # "Wilhelm Röntgen" vs "Wilhelm Conrad Röntgen": P = 1, R = 2/3 -> F1 0.8
    first = write_episode(tmp_path / "run", tasks["test_0"], PAGES, answer="Wilhelm Röntgen")
    assert (await ExactJudge().judge(first)).label == "failure"
    assert (await F1Judge().judge(first)).reward == pytest.approx(0.8)
