"""Scoring one eval: success with its interval, faults apart, parsing, pass@k, tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from eval import eval_builders as eb
from store import record_builders as rb
from webdojo.eval.stats import EvalScores, score, score_run, score_tables
from webdojo.models.usage import Price
from webdojo.store.records import to_line
from webdojo.store.run_store import EPISODES, STEPS


def test_success_is_the_mean_over_tasks_with_its_interval() -> None:
    scores = score(eb.episodes({"a": [True, True], "b": [False, True], "c": [False, False]}), [])
    assert scores.success.mean == pytest.approx(0.5)
    assert scores.success.lo is not None and scores.success.hi is not None
    assert scores.success.lo <= 0.5 <= scores.success.hi
    assert [t.task_id for t in scores.tasks] == ["a", "b", "c"]
    assert [t.share for t in scores.tasks] == [1.0, 0.5, 0.0]
    assert (
        scores.success
        == score(eb.episodes({"c": [False] * 2, "a": [True] * 2, "b": [False, True]}), []).success
    )
    assert not scores.invalid and scores.invalid_reasons == []


def test_faults_are_never_attempts_nor_failures() -> None:
    records = eb.episodes({"a": [True, None, False], "b": [None, None]})
    scores = score(records, [], max_faults=1.0)
    a, b = scores.tasks
    assert (a.successes, a.attempts, a.faults, a.share) == (1, 2, 1, 0.5)
    assert (b.attempts, b.faults, b.share, b.steps) == (0, 2, None, None)
    assert (scores.episodes, scores.scored, scores.faults) == (5, 2, 3)
    assert scores.fault_share == pytest.approx(0.6)
    assert scores.fault_codes == {"browser_closed": 3}
    assert scores.success.mean == 0.5 and scores.success.n_tasks == 1  # b has no score
    assert scores.wall_s == pytest.approx(5 * 1.5)


def test_too_many_faults_make_the_eval_invalid() -> None:
    at_limit = {f"t{i}": [True] for i in range(95)} | {f"f{i}": [None] for i in range(5)}
    assert not score(eb.episodes(at_limit), []).invalid  # 5% is allowed
    above = {f"t{i}": [True] for i in range(94)} | {f"f{i}": [None] for i in range(6)}
    scores = score(eb.episodes(above), [])
    assert scores.invalid
    assert scores.invalid_reasons[0].startswith("6 of 100 episodes (6%) were not scored")
    assert not score(eb.episodes(above), [], max_faults=0.1).invalid


def test_nothing_scored_is_invalid() -> None:
    scores = score(eb.episodes({"a": [None]}), [], max_faults=1.0)
    assert scores.invalid and scores.invalid_reasons == [
        "no episode was scored: there is no success rate"
    ]
    empty = score([], [])
    assert empty.invalid and empty.success.mean is None and empty.fault_share is None
    assert empty.pass_at_k == {} and empty.mean_steps is None
    json.dumps(empty.to_json())


def test_a_reply_format_that_never_parses_is_warned_about() -> None:
    scores = score(eb.episodes({"t000": [False]}), eb.unparsed_steps(30))
    parse = scores.parse
    assert (parse.replies, parse.parsed, parse.rate) == (30, 0, 0.0)
    warning = parse.warning()
    assert warning is not None and warning.startswith("only 0 of 30 policy replies (0%)")
    assert "--template" in warning and scores.to_json()["parse_warning"] == warning
    assert parse.errors == {"parse_error": 30}
    parsed = [rb.step("p", i, key="t000#0") for i in range(30)]
    fine = score(eb.episodes({"t000": [False]}), parsed)
    assert fine.parse.rate == 1.0 and fine.parse.warning() is None
    half = score([], eb.unparsed_steps(15) + parsed[:15])
    assert half.parse.rate == 0.5 and half.parse.warning() is None
    assert score([], []).parse.rate is None


def test_pass_at_k_over_three_repeats() -> None:
    records = eb.episodes(
        {"a": [True, False, False], "b": [False, False, False], "c": [True, True, True]}
    )
    scores = score(records, [])
    assert scores.pass_at_k == {"1": pytest.approx(0.4444), "3": pytest.approx(0.6667)}
    assert score(eb.episodes({"a": [True], "b": [False]}), []).pass_at_k == {"1": 0.5}


def test_graded_rewards_count_by_the_one_success_rule() -> None:
    graded = [
        rb.episode("a#0", True, reward=0.6),
        rb.episode("b#0", True, reward=0.5),  # an F1 of exactly 0.5 is not a success
    ]
    assert [t.successes for t in score(graded, []).tasks] == [1, 0]


def test_breakdowns_by_site_source_difficulty_and_level() -> None:
    records = [
        *eb.episodes({"s1": [True], "s2": [False]}, site="shop", difficulty=2),
        *eb.episodes({"w1": [True], "w2": [True]}, site="wiki", difficulty=5),
    ]
    sources = {"s1": "shop-set", "s2": "shop-set", "w1": "wiki-set"}
    scores = score(records, [], sources=sources)
    assert {k: v.mean for k, v in scores.by_site.items()} == {"shop": 0.5, "wiki": 1.0}
    assert {k: v.n_tasks for k, v in scores.by_source.items()} == {
        "shop-set": 2,
        "unknown": 1,
        "wiki-set": 1,
    }
    assert set(scores.by_difficulty) == {"2", "5"}
    assert set(scores.by_level) == {"easy", "medium"}
    assert score(records, []).by_source == {}


def test_tokens_cost_and_steps() -> None:
    steps = [
        rb.step("e", i, key="a#0", usage={"prompt_tokens": 1000, "completion_tokens": 100})
        for i in range(30)
    ]
    records = eb.episodes({"a": [True, False]})
    priced = score(records, steps, price=Price(1.0, 2.0))
    assert priced.tokens == {"prompt": 30_000, "completion": 3_000, "total": 33_000}
    assert priced.cost == pytest.approx(0.036)
    assert priced.mean_steps == 3.0
    assert score(records, steps).cost is None


def test_to_json_is_json_safe_and_rounded() -> None:
    records = eb.episodes({"a": [True, False, False], "b": [True, None, True]})
    data = score(records, eb.unparsed_steps(3), sources={"a": "x"}, max_faults=0.5).to_json()
    json.dumps(data)
    needed = {
        "episodes", "scored", "success", "ci95", "ci_method", "pass_at_k", "by_task", "by_site",
        "by_difficulty", "by_level", "by_source", "faults", "fault_share", "fault_codes",
        "invalid", "invalid_reasons", "mean_steps", "tokens", "cost", "wall_s", "parse_rate",
        "parse_warning", "step_errors",
    }  # fmt: skip
    assert needed <= data.keys()
    assert data["success"] == pytest.approx(0.6667) and data["by_task"]["a"] == 0.3333
    assert len(data["ci95"]) == 2 and data["faults"] == 1 and data["fault_share"] == 0.1667
    # one task of three repeats: its interval is that of its repeats alone
    assert data["by_source"]["x"] == {"success": 0.3333, "ci95": [0.0, 1.0], "tasks": 1}
    assert data["pass_at_k"] == {"1": 0.6667, "2": 0.8333}  # k: the fewest scored attempts


def render(scores: EvalScores) -> str:
    console = Console(record=True, width=160)
    for table in score_tables(scores):
        console.print(table)
    return console.export_text()


def test_tables_list_only_imperfect_tasks_past_thirty() -> None:
    many = eb.uniform(40, True) | {"zz-broken": [False, True]}
    text = render(score(eb.episodes(many), eb.unparsed_steps(4)))
    assert "zz-broken" in text and "t000" not in text
    assert "40 of 41 tasks, all attempts successful, not listed" in text
    assert "parsed into an action" in text
    few = render(score(eb.episodes(eb.uniform(5, True)), []))
    assert "t004" in few and "not listed" not in few


def test_a_run_directory_is_scored_from_its_records(tmp_path: Path) -> None:
    records = eb.episodes({"a": [True, False], "b": [True, True]})
    stale = rb.episode("a#1", True, episode="a#1-old")  # superseded by the later line
    (tmp_path / EPISODES).write_text(
        "".join(to_line(r) + "\n" for r in [stale, *records]), encoding="utf-8"
    )
    steps = [rb.step(r.episode or "", 0, key=r.key) for r in records]
    (tmp_path / STEPS).write_text("".join(to_line(s) + "\n" for s in steps), encoding="utf-8")
    scores = score_run(tmp_path, resamples=500)
    assert scores.success.mean == 0.75 and scores.episodes == 4 and scores.parse.replies == 4
