"""The targets of ``webdojo eval`` on the shipped ``core`` suite, through the real CLI: the
scripted policy scores 1.0 (so every task in it can be solved), the random policy scores
near 0 (so they can be failed), the paired comparison of the two is significant, and a second
eval gives the same per-task results, actions and screenshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.eval.manifest import read_manifest
from webdojo.eval.results_csv import read_results
from webdojo.store.run_reader import read_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def evals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("evals")
    scripted = last_json(
        webdojo("eval", "--policy", "scripted", "--out", root / "scripted", "--json")
    )
    random = last_json(webdojo("eval", "--policy", "random", "--out", root / "random", "--json"))
    return {"root": root, "scripted": scripted, "random": random}


def test_the_scripted_policy_solves_every_task_of_core(evals: dict[str, Any]) -> None:
    result = evals["scripted"]
    assert result["suite"] == "core" and result["suite_hash"].startswith("sha256:")
    assert result["episodes"] == result["scored"] == 83 and result["faults"] == 0
    assert result["success"] == 1.0 and result["ci95"] == [1.0, 1.0]
    assert set(result["by_task"].values()) == {1.0} and not result["invalid"]
    assert set(result["by_source"]) == {"builtin", "miniwob"}
    out = Path(result["out"])
    manifest = read_manifest(out)
    assert manifest is not None and manifest.suite_hash == result["suite_hash"]
    assert manifest.policy == "scripted" and manifest.chromium_flags
    assert (out / "eval.json").is_file() and (out / "report.html").is_file()
    assert 'data-testid="ci"' in (out / "report.html").read_text(encoding="utf-8")


def test_the_random_policy_fails_most_and_the_comparison_is_significant(
    evals: dict[str, Any],
) -> None:
    random = evals["random"]
    assert random["scored"] == 83 and random["success"] < 0.2
    root = evals["root"]
    compared = last_json(webdojo("eval", "compare", root / "scripted", root / "random", "--json"))
    assert compared["tasks"] == 83 and compared["p_value"] < 0.001
    assert compared["difference"] < -0.8 and compared["ci95"][1] < 0
    assert compared["flipped_up"] == [] and len(compared["flipped_down"]) >= 70
    assert "sign-flip" in compared["test"]
    assert any("policy" in w for w in compared["warnings"])  # the manifests differ
    assert Path(compared["plot"]).stat().st_size > 10_000
    rows = read_results(root / "results.csv")
    assert [r["policy"] for r in rows] == ["scripted", "random"]


def test_a_second_eval_gives_the_same_results_and_actions(
    evals: dict[str, Any], tmp_path: Path
) -> None:
    """The same seed and policy on a part of core (every episode's seed comes from the run
    seed and its key, not from the suite): the same per-task results and, step by step, the
    same actions and screenshot bytes. The part holds the pages whose screenshots used to
    differ: radio buttons and number inputs just clicked (partial raster), MiniWoB's jQuery
    accordion (an animation on timers)."""
    suite = tmp_path / "part.yaml"
    suite.write_text(
        "name: part\nsets:\n  - {name: forms, tasks: 'builtin:forms+login'}\n"
        "  - {name: miniwob, tasks: 'miniwob:click-collapsible,click-tab,enter-text,choose-list'}\n"
    )
    again = last_json(webdojo("eval", "--suite", suite, "--out", tmp_path / "again", "--json"))
    first = evals["scripted"]
    assert len(again["by_task"]) >= 20
    assert again["by_task"] == {t: first["by_task"][t] for t in again["by_task"]}
    one, two = read_run(Path(first["out"])), read_run(tmp_path / "again")
    for key in two.episodes:
        steps_one, steps_two = one.steps_of(key), two.steps_of(key)
        assert [s.action for s in steps_one] == [s.action for s in steps_two]
        shots_one = [(s.screenshot, s.next_screenshot) for s in steps_one]
        assert shots_one == [(s.screenshot, s.next_screenshot) for s in steps_two], key
