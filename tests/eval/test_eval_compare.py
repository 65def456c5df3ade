"""The paired comparison of two evals: difference, interval, p-value, flips, plot and table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from eval import eval_builders as eb
from webdojo.eval.compare import Comparison, compare, comparison_plot, comparison_table

PNG = b"\x89PNG\r\n\x1a\n"


def test_identical_runs_do_not_differ() -> None:
    run = eb.episodes({"a": [True, False], "b": [True, True], "c": [False, False]})
    cmp = compare(run, run)
    assert cmp.difference.mean == 0.0 and cmp.p_value == 1.0
    assert cmp.difference.lo is not None and cmp.difference.hi is not None
    assert cmp.difference.lo <= 0.0 <= cmp.difference.hi
    assert cmp.flipped_up == [] and cmp.flipped_down == [] and cmp.warnings == []
    assert cmp.tasks == 3 and cmp.test.endswith("(two-sided, exact)")


def test_scripted_against_random_on_63_tasks_is_significant() -> None:
    scripted = eb.episodes(eb.uniform(63, True))
    random = eb.episodes(eb.uniform(63, False))
    cmp = compare(random, scripted)  # A: random, B: scripted
    assert cmp.p_value is not None and cmp.p_value < 0.001
    assert "200000 random sign flips" in cmp.test
    assert len(cmp.flipped_up) == 63 and cmp.flipped_down == []
    assert cmp.difference.mean == 1.0 and cmp.difference.ci95() == [1.0, 1.0]
    assert (cmp.a.mean, cmp.b.mean) == (0.0, 1.0)
    reverse = compare(scripted, random)
    assert reverse.difference.mean == -1.0 and len(reverse.flipped_down) == 63
    assert reverse.p_value == cmp.p_value


def test_few_changed_tasks_get_the_exact_test() -> None:
    a = eb.episodes(eb.uniform(10, False) | eb.uniform(30, True, prefix="same"))
    b = eb.episodes(eb.uniform(10, True) | eb.uniform(30, True, prefix="same"))
    cmp = compare(a, b)
    assert cmp.test == "paired sign-flip permutation test over tasks (two-sided, exact)"
    assert cmp.p_value == pytest.approx(2 / 2**10)  # only the 10 changed tasks are flipped
    assert cmp.difference.mean == pytest.approx(0.25)
    assert cmp.tasks == 40 and len(cmp.flipped_up) == 10


def test_repeats_are_resampled_within_each_task() -> None:
    a = eb.episodes({f"t{i}": [True, False, False] for i in range(12)})
    b = eb.episodes({f"t{i}": [True, True, False] for i in range(12)})
    cmp = compare(a, b)
    assert cmp.difference.mean == pytest.approx(1 / 3)
    lo, hi = cmp.difference.lo, cmp.difference.hi
    assert lo is not None and hi is not None and lo < 1 / 3 < hi  # the repeats' noise


def test_tasks_of_one_run_only_are_left_out_with_a_warning() -> None:
    a = eb.episodes({"both": [True], "a1": [True], "a2": [False], "gone": [True]})
    b = eb.episodes({"both": [False], "b1": [True], "gone": [None]})  # gone: faulted in B
    cmp = compare(a, b)
    assert cmp.tasks == 1 and cmp.flipped_down == ["both"]
    assert cmp.only_a == ["a1", "a2", "gone"] and cmp.only_b == ["b1"]
    assert cmp.warnings == [
        "3 task(s) scored in A only (absent from B, or only faults there) are left out of the "
        "comparison: a1, a2, gone",
        "1 task(s) scored in B only (absent from A, or only faults there) are left out of the "
        "comparison: b1",
    ]


def test_no_common_task_means_nothing_to_compare(tmp_path: Path) -> None:
    cmp = compare(eb.episodes({"a": [True]}), eb.episodes({"b": [True]}))
    assert cmp.difference.mean is None and cmp.p_value is None and cmp.tasks == 0
    assert cmp.warnings[0] == "no task was scored in both runs: there is nothing to compare"
    data = cmp.to_json()
    assert data["difference"] is None and data["ci95"] == [None, None]
    json.dumps(data)
    assert comparison_plot(cmp, tmp_path / "empty.png", ("a", "b")).read_bytes()[:8] == PNG


def test_to_json_keys_and_caller_warnings() -> None:
    cmp = compare(eb.episodes(eb.uniform(5, False)), eb.episodes(eb.uniform(5, True)))
    cmp.warnings.append("model differs")  # the caller adds the manifests' differences
    data = cmp.to_json()
    json.dumps(data)
    keys = {"difference", "ci95", "p_value", "test", "tasks", "flipped_up", "flipped_down"}
    assert keys | {"warnings"} <= data.keys()
    assert data["warnings"] == ["model differs"] and data["tasks"] == 5
    assert data["p_value"] == 0.0625 and data["difference"] == 1.0 and data["ci95"] == [1.0, 1.0]


def comparison(tasks: int = 40) -> Comparison:
    a = {f"t{i:02d}": [i % 2 == 0, i % 3 == 0] for i in range(tasks)}
    b = {f"t{i:02d}": [i % 2 == 0 or i % 5 == 0, True] for i in range(tasks)}
    return compare(eb.episodes(a), eb.episodes(b), resamples=2000)


def test_the_plot_is_a_png(tmp_path: Path) -> None:
    path = comparison_plot(comparison(), tmp_path / "plots" / "compare.png", ("base", "tuned"))
    data = path.read_bytes()
    assert path == tmp_path / "plots" / "compare.png"
    assert data[:8] == PNG and len(data) > 10_000


def test_the_table_names_both_runs_and_the_test() -> None:
    cmp = comparison()
    cmp.warnings.append("suite_hash differs")
    console = Console(record=True, width=200)
    console.print(comparison_table(cmp, labels=("base", "tuned")))
    text = console.export_text()
    assert "tuned vs base" in text and "p-value" in text and "sign-flip" in text
    assert "rose in B" in text and f"{len(cmp.flipped_up)}: t01, t02" in text
    assert "suite_hash differs" in text
