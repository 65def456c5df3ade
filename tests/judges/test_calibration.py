"""Calibration metrics, computed by hand on small label lists; ground truth from run records."""

from __future__ import annotations

from pathlib import Path

import pytest
from judge_runs import write_run

from webdojo.judges.calibration import Pair, by_source, calibrate, compare, pair_up, run_truth
from webdojo.store.verdicts import LABELS, Verdict


def pairs(*rows: tuple[str, str], source: str = "s") -> list[Pair]:
    return [Pair(f"run/t{i}#0", t, j, source) for i, (t, j) in enumerate(rows)]  # type: ignore[arg-type]


S, F = "success", "failure"


def test_metrics_by_hand() -> None:
    # truth/judge: 3 TP, 1 FN, 2 FP, 3 TN, one failure the judge could not judge
    cal = calibrate(
        pairs((S, S), (S, S), (S, S), (S, F), (F, S), ("website_failure", S),
              (F, F), (F, F), (F, "website_failure"), (F, "infra_error"))
    )  # fmt: skip
    assert cal.n == 10
    assert (cal.true_positives, cal.false_positives, cal.false_negatives) == (3, 2, 1)
    assert cal.true_negatives == 4  # truth not success, judge not success
    assert cal.accuracy == pytest.approx(5 / 10)  # 3 success + 2 failure agree
    assert cal.precision == pytest.approx(3 / 5)
    assert cal.recall == pytest.approx(3 / 4)
    assert cal.judge_errors == 1
    out = cal.to_json()
    assert out["confusion"][F] == {S: 1, F: 2, "website_failure": 1, "blocked": 0, "infra_error": 1}
    assert out["confusion"]["website_failure"][S] == 1
    assert set(out["confusion"]) == set(LABELS) and out["precision"] == 0.6
    per = out["per_label"]
    assert per[S] == {"precision": 0.6, "recall": 0.75, "truth": 4, "judged": 5}
    assert per[F] == {"precision": round(2 / 3, 4), "recall": 0.4, "truth": 5, "judged": 3}
    assert per["blocked"] == {"precision": None, "recall": None, "truth": 0, "judged": 0}
    brief = cal.to_json(full=False)  # for breakdowns: no per-label figures, no zero cells
    assert "per_label" not in brief and brief["confusion"]["website_failure"] == {S: 1}
    assert set(brief["confusion"]) == {S, F, "website_failure"}


def test_a_judge_that_says_success_to_everything_shows_up() -> None:
    cal = calibrate(pairs(*[(S, S)] * 2, *[(F, S)] * 8))
    assert cal.recall == 1.0 and cal.precision == pytest.approx(0.2)
    assert cal.false_positives == 8 and cal.accuracy == pytest.approx(0.2)


def test_undefined_metrics_are_none_not_zero() -> None:
    cal = calibrate(pairs((F, F), (F, F)))
    assert cal.precision is None and cal.recall is None and cal.accuracy == 1.0
    empty = calibrate([])
    assert empty.n == 0 and empty.to_json()["accuracy"] is None


def test_by_source_and_compare() -> None:
    rubric = pairs((S, S), (F, F), (F, S), source="scripted")
    task = pairs((S, S), (F, S), (F, S), source="scripted")
    groups = by_source([*rubric, Pair("other#0", F, F, "random")])
    assert list(groups) == ["scripted", "random"] and groups["random"].accuracy == 1.0
    out = compare(rubric, [*task, Pair("extra#0", S, S)], ("rubric", "task"))
    assert out["n"] == 3 and out["only_one_judged"] == 1
    assert out["rubric"]["accuracy"] == round(2 / 3, 4) and out["task"]["accuracy"] == round(
        1 / 3, 4
    )
    assert out["delta"] == {"accuracy": round(2 / 3 - 1 / 3, 4), "precision": 0.1667, "recall": 0.0}
    assert out["same_label"] == 2


def verdict(key: str, label: str, episode: str | None) -> Verdict:
    return Verdict(judge="j", key=key, episode=episode, task_id=key.split("#")[0], label=label,  # type: ignore[arg-type]
                   reward=None, criteria=[])  # fmt: skip


def test_run_truth_leaves_out_faults_and_unverified_episodes(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True, "b#0": False, "c#0": "fault", "d#0": None})
    truth = run_truth(run)
    assert truth.labels == {"a#0": S, "b#0": F}
    assert (truth.faulted, truth.unverified) == (1, 1)
    verdicts = {
        "a#0": verdict("a#0", S, truth.episodes["a#0"]),
        "b#0": verdict("b#0", S, "an-older-attempt"),  # judged before a resume: stale
    }
    found, unjudged = pair_up(
        truth.labels, verdicts, prefix="run", source="scripted", attempts=truth.episodes
    )
    assert found == [Pair("run/a#0", S, S, "scripted")] and unjudged == 1
