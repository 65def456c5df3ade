"""The targets of ``webdojo eval`` on the shipped ``core`` suite, through the real CLI: the
scripted policy scores 1.0 (so every task in it can be solved); on a part of it, the random
policy scores near 0, the paired comparison of the two is significant, and a second eval gives
the same per-task results, actions and screenshots. (That every built-in task can be failed is
``webdojo sites check``'s test, tests/sites/test_builtin_check.py; the whole-suite random
figure is in docs/evaluation.md.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.eval.manifest import read_manifest
from webdojo.eval.results_csv import read_results
from webdojo.store.run_reader import read_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]


# A part of core: the pages whose screenshots used to differ from run to run (radio buttons and
# number inputs just clicked: partial raster; MiniWoB's jQuery accordion: an animation on timers).
PART = (
    "name: part\nsets:\n  - {name: forms, tasks: 'builtin:forms+login'}\n"
    "  - {name: miniwob, tasks: 'miniwob:click-collapsible,click-tab,enter-text,choose-list'}\n"
)


@pytest.fixture(scope="module")
def evals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The scripted policy on the whole of core; the scripted and the random policy on a part
    of it (the random policy plays every step up to the cap, so all of core would cost it four
    times the part, and the comparison needs no more tasks to be decisive)."""
    root = tmp_path_factory.mktemp("evals")
    part = root / "part.yaml"
    part.write_text(PART, encoding="utf-8")

    def run(*args: Any) -> dict[str, Any]:
        return last_json(webdojo("eval", *args, "--json"))

    return {
        "root": root,
        "scripted": run("--policy", "scripted", "--out", root / "scripted"),
        "again": run("--suite", part, "--policy", "scripted", "--out", root / "again"),
        "random": run("--suite", part, "--policy", "random", "--out", root / "random"),
    }


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
    random, again = evals["random"], evals["again"]
    tasks = len(again["by_task"])
    assert random["scored"] == tasks >= 20 and random["success"] < 0.2
    root = evals["root"]
    compared = last_json(webdojo("eval", "compare", root / "again", root / "random", "--json"))
    assert compared["tasks"] == tasks and compared["p_value"] < 0.001
    assert compared["difference"] < -0.8 and compared["ci95"][1] < 0
    assert compared["flipped_up"] == [] and len(compared["flipped_down"]) >= 0.8 * tasks
    assert "sign-flip" in compared["test"]
    assert any("policy" in w for w in compared["warnings"])  # the manifests differ
    assert Path(compared["plot"]).stat().st_size > 10_000
    rows = read_results(root / "results.csv")
    assert [r["policy"] for r in rows] == ["scripted", "scripted", "random"]


def test_a_second_eval_gives_the_same_results_and_actions(evals: dict[str, Any]) -> None:
    """The same seed and policy on a part of core (every episode's seed comes from the run
    seed and its key, not from the suite): the same per-task results and, step by step, the
    same actions and screenshot bytes."""
    again, first = evals["again"], evals["scripted"]
    assert len(again["by_task"]) >= 20
    assert again["by_task"] == {t: first["by_task"][t] for t in again["by_task"]}
    one, two = read_run(Path(first["out"])), read_run(Path(again["out"]))
    for key in two.episodes:
        steps_one, steps_two = one.steps_of(key), two.steps_of(key)
        assert [s.action for s in steps_one] == [s.action for s in steps_two]
        shots_one = [(s.screenshot, s.next_screenshot) for s in steps_one]
        assert shots_one == [(s.screenshot, s.next_screenshot) for s in steps_two], key
