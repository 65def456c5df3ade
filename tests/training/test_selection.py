"""``webdojo select``: the three rules on run directories written with the real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from store import record_builders as rb
from webdojo.actions import Stop
from webdojo.cli import app
from webdojo.errors import ConfigError
from webdojo.store.run_config import RunConfigRecord
from webdojo.store.run_store import RunStore
from webdojo.store.verdicts import Criterion, Verdict, VerdictWriter
from webdojo.training.samples import SUMMARY, read_samples
from webdojo.training.select_runs import SelectSettings, select
from webdojo.training.selection import BcSettings

Outcome = bool | None | str  # True/False scored, None unverified, "fault"


def write_run(root: Path, episodes: dict[str, tuple[Outcome, int]]) -> Path:
    """Episodes key -> (outcome, steps). Step 1 of every episode repeats its page (its next
    screenshot is its own), and an episode of 4+ steps has an unparsed step 2."""
    with RunStore(root) as store:
        store.write_config(
            RunConfigRecord.model_validate({"tasks": "builtin", "policy": "scripted", "seed": 0})
        )
        for key, (outcome, n) in episodes.items():
            uid = key + "-e"
            for i in range(n):
                extra: dict[str, object] = {}
                if i == 1:
                    extra["next_screenshot"] = f"screenshots/{uid}-{i}.jpg"
                if i == 2 and n >= 4:
                    extra["action"] = None
                if i == n - 1:
                    extra["action"] = Stop(answer="x")
                store.append_step(rb.step(uid, i, key=key, **extra))  # type: ignore[arg-type]
            fault = "infra" if outcome == "fault" else None
            success = outcome if isinstance(outcome, bool) else None
            store.append_episode(rb.episode(key, success, fault=fault, steps=n))
    return root


def run_select(runs: list[Path], out: Path, rule: str, **kw: object) -> dict[str, object]:
    summary = select(runs, out, SelectSettings(rule=rule, **kw))  # type: ignore[arg-type]
    return summary.to_json(out)


def test_bc_keeps_successful_steps_minus_repeats_and_unparsed(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r0", {
        "a#0": (True, 4), "b#0": (False, 3), "c#0": ("fault", 2), "d#0": (None, 2),
    })  # fmt: skip
    summary = run_select([run], tmp_path / "sel", "bc")
    # a#0: 4 steps, step 1 repeated, step 2 unparsed -> steps 0 and 3
    assert summary["kept"] == 2 and summary["episodes"] == 1
    assert summary["dropped"] == {
        "failure": 1, "fault": 1, "unverified": 1, "repeated_step": 1, "unparsed_step": 1
    }  # fmt: skip
    assert summary["reward_source"] == "verifier"
    assert [(s.key, s.step, s.weight) for s in read_samples(tmp_path / "sel")] == [
        ("a#0", 0, 4.0), ("a#0", 3, 4.0)
    ]  # fmt: skip


def test_bc_buffer_keeps_the_last_k_iterations_weighted_by_recency(tmp_path: Path) -> None:
    runs = [write_run(tmp_path / f"r{i}", {f"t{i}#0": (True, 3)}) for i in range(3)]
    settings = BcSettings(power=2.0, last_k=2)
    summary = run_select(runs, tmp_path / "sel", "bc", bc=settings)
    assert summary["dropped"]["older_than_buffer"] == 1
    weights = {(s.iteration, s.weight) for s in read_samples(tmp_path / "sel")}
    assert weights == {(1, 1.0), (2, 4.0)}  # (k - age) ** power: newest 2**2, then 1**2
    drawn = run_select(runs, tmp_path / "few", "bc", bc=BcSettings(2.0, 2, samples=3, seed=1))
    again = run_select(runs, tmp_path / "again", "bc", bc=BcSettings(2.0, 2, samples=3, seed=1))
    assert drawn["kept"] == 3 and drawn["dropped"]["not_sampled_step"] == 1
    assert list(read_samples(tmp_path / "few")) == list(read_samples(tmp_path / "again"))
    assert again["kept"] == 3


def test_the_same_episodes_finished_in_another_order_give_the_same_selection(
    tmp_path: Path,
) -> None:
    """A run stores episodes as they finish, and concurrency varies that order: each rule, a
    seeded bc draw included, must select the same samples in the same order either way."""
    episodes: dict[str, tuple[Outcome, int]] = {
        "a#0": (True, 3),
        "a#1": (False, 2),
        "b#0": (True, 5),
        "b#1": (True, 2),
        "c#0": (False, 3),
        "c#1": (True, 4),
    }
    forward = write_run(tmp_path / "forward", episodes)
    backward = write_run(tmp_path / "backward", dict(reversed(episodes.items())))
    rules: dict[str, dict[str, object]] = {
        "bc": {"bc": BcSettings(samples=4, seed=1)},
        "rft": {},
        "grpo": {"group_size": 2},
    }
    for rule, kw in rules.items():
        picked = []
        for run in (forward, backward):
            run_select([run], tmp_path / f"{rule}-{run.name}", rule, **kw)
            rows = read_samples(tmp_path / f"{rule}-{run.name}")
            picked.append([(s.key, s.step, s.weight, s.advantage) for s in rows])
        assert picked[0] == picked[1] and picked[0], rule


def test_rft_takes_the_longest_correct_trajectory_of_mixed_tasks(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", {
        "a#0": (True, 2), "a#1": (True, 3), "a#2": (False, 2), "a#3": (False, 5),
        "b#0": (True, 2), "b#1": (True, 2),
    })  # fmt: skip
    summary = run_select([run], tmp_path / "rft", "rft")
    assert {s.key for s in read_samples(tmp_path / "rft")} == {"a#1"}
    assert summary["kept"] == 3  # rft keeps repeated steps: all three of a#1
    assert summary["dropped"] == {"not_chosen": 3, "uniform_group": 2}
    sft = run_select([run], tmp_path / "sft", "bc")
    mixed = run_select([run], tmp_path / "mix", "rft", sft=tmp_path / "sft", sft_share=0.5)
    rules = [s.rule for s in read_samples(tmp_path / "mix")]
    assert rules.count("sft") == round(sft["kept"] * 0.5) and mixed["kept"] == len(rules)  # type: ignore[operator]


def test_grpo_advantages_and_website_failures_left_out(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", {f"a#{i}": (False, 2) for i in range(4)} | {
        "b#0": (False, 2), "b#1": (False, 2), "c#0": (False, 2)})  # fmt: skip
    labels = {"a#0": "success", "a#1": "failure", "a#2": "failure", "a#3": "website_failure",
              "b#0": "failure", "b#1": "failure", "c#0": "success"}  # fmt: skip
    with VerdictWriter(run, "rubric") as writer:
        for key, label in labels.items():
            writer.write(Verdict(
                judge="rubric", key=key, episode=key + "-e", task_id=key[0], label=label,  # type: ignore[arg-type]
                reward={"success": 1.0, "failure": 0.0}.get(label),
                criteria=[Criterion(name="t", kind="task", passed=None, reason="r")],
            ))  # fmt: skip
    summary = run_select([run], tmp_path / "g", "grpo")
    assert summary["reward_source"] == "judge rubric"
    advantages = {(s.key, round(s.advantage or 0, 4)) for s in read_samples(tmp_path / "g")}
    # task a: rewards 1, 0, 0 (a#3 is a website failure: not in the group); mean 1/3
    assert advantages == {("a#0", 0.6667), ("a#1", -0.3333), ("a#2", -0.3333)}
    assert summary["dropped"] == {"website_failure": 1, "uniform_group": 3}  # b twice, c once
    with pytest.raises(ConfigError, match=r"empty: .*6 incomplete_group"):  # a keeps only 3
        run_select([run], tmp_path / "g4", "grpo", group_size=4)
    sized = run_select([run], tmp_path / "g3", "grpo", group_size=3)
    assert sized["dropped"]["incomplete_group"] == 2 + 1 and sized["kept"] == 6


def test_rewards_need_one_source(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", {"a#0": (True, 2)})
    for judge in ("rubric", "exact"):
        with VerdictWriter(run, judge) as writer:
            writer.write(Verdict(judge=judge, key="a#0", episode="a#0-e", task_id="a",
                                 label="failure", reward=0.0, criteria=[]))  # fmt: skip
    with pytest.raises(ConfigError, match=r"several judges .* --judge"):
        run_select([run], tmp_path / "s", "bc")
    with pytest.raises(ConfigError, match="selection is empty: everything was dropped"):
        run_select([run], tmp_path / "s", "bc", judge="exact")  # its verdict: a failure
    assert not (tmp_path / "s").exists()
    with pytest.raises(ConfigError, match="no verdicts of judge 'f1'"):
        run_select([run], tmp_path / "s", "bc", judge="f1")


def test_the_command_prints_a_table_and_the_json_line(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", {"a#0": (True, 3), "b#0": (False, 2)})
    out = tmp_path / "sel"
    args = ["select", str(run), "--rule", "bc", "--out", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert (summary["kept"], summary["dropped"], summary["out"]) == (
        2, {"failure": 1, "repeated_step": 1}, str(out)
    )  # fmt: skip
    assert "repeated_step" in result.stdout and (out / SUMMARY).is_file()
    bad = CliRunner().invoke(app, ["select", str(tmp_path), "--rule", "bc", "--out", str(out)])
    assert bad.exit_code == 2 and "not a run directory" in bad.stderr
    wrong = CliRunner().invoke(app, ["select", str(run), "--rule", "ppo", "--out", str(out)])
    assert wrong.exit_code == 2 and "unknown rule 'ppo'" in wrong.stderr
