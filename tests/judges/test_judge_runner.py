"""``judge_run``: verdicts written whole, resumable, faults never judged, endpoint checked first."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_runs import LabelJudge, lines, write_run

from webdojo.errors import ConfigError, ModelError
from webdojo.judges import spec as judge_spec
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.models import ModelConfig
from webdojo.store.verdicts import read_verdicts, verdict_path

JUDGE = "scripted"


@pytest.fixture(autouse=True)
def scripted_judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(judge_spec.JUDGES, JUDGE, (LabelJudge, {}))
    LabelJudge.LABELS, LabelJudge.calls = {}, []
    yield


def judge(run: Path, spec: str = JUDGE, **kw: object) -> dict[str, object]:
    report = asyncio.run(judge_run(run, spec, JudgeOptions(), **kw))  # type: ignore[arg-type]
    return report.to_json()


def test_every_episode_gets_one_verdict_and_faults_are_not_judged(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True, "b#0": False, "c#0": "fault"})
    LabelJudge.LABELS = {"b": "website_failure"}
    summary = judge(run)
    assert sorted(LabelJudge.calls) == ["a#0", "b#0"]  # the faulted episode was never asked
    assert summary["judged"] == 3 and summary["new"] == 3
    assert summary["labels"] == {
        "success": 1, "failure": 0, "website_failure": 1, "blocked": 0, "infra_error": 1
    }  # fmt: skip
    assert summary["reward_mean"] == 1.0  # website_failure and infra_error are not scored
    verdicts = read_verdicts(run, JUDGE)
    assert verdicts["b#0"].reward is None and verdicts["a#0"].reward == 1.0
    fault = verdicts["c#0"]
    assert fault.label == "infra_error" and fault.error is not None
    assert fault.error.code == "browser_closed" and "never scored" in fault.criteria[0].reason


def test_a_second_run_resumes_and_force_judges_again(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True, "b#0": True})
    judge(run)
    LabelJudge.calls = []
    again = judge(run)
    assert LabelJudge.calls == [] and again["new"] == 0 and again["judged"] == 2
    LabelJudge.LABELS = {"a": "failure"}
    forced = judge(run, force=True)
    assert forced["labels"]["failure"] == 1 and len(lines(verdict_path(run, JUDGE))) == 4


def test_a_verdict_cut_short_by_a_kill_is_judged_again(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True, "b#0": True})
    judge(run)
    path = verdict_path(run, JUDGE)
    text = path.read_text()
    path.write_text(text[: len(text) - 40])  # the second line loses its end
    LabelJudge.calls = []
    summary = judge(run)
    assert LabelJudge.calls == ["b#0"] and summary["judged"] == 2
    assert len(path.read_text().splitlines()) == 2  # the torn line was cut off, b judged again
    assert set(read_verdicts(run, JUDGE)) == {"a#0", "b#0"}


def test_an_endpoint_dying_midway_stops_with_whole_verdicts_and_resumes(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {f"t{i}#0": True for i in range(6)})
    LabelJudge.LABELS = {"t3": "down"}
    with pytest.raises(ModelError, match=r"stopped after \d of 6 verdicts .* resume"):
        judge(run, concurrency=1)
    written = lines(verdict_path(run, JUDGE))  # every line parses: nothing half-written
    assert [v["key"] for v in written] == ["t0#0", "t1#0", "t2#0"]
    LabelJudge.LABELS = {}
    assert judge(run)["new"] == 3


def test_a_model_judge_with_its_endpoint_down_writes_nothing(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True})
    LabelJudge.needs_model = True
    try:
        down = ModelConfig(base_url="http://127.0.0.1:9/v1", model="m", max_retries=0, timeout_s=2)
        with pytest.raises(ModelError, match="cannot reach"):
            asyncio.run(judge_run(run, JUDGE, JudgeOptions(model=down)))
        with pytest.raises(ConfigError, match="needs a model endpoint"):
            asyncio.run(judge_run(run, JUDGE, JudgeOptions()))
    finally:
        LabelJudge.needs_model = False
    assert LabelJudge.calls == [] and not verdict_path(run, JUDGE).exists()


def test_pass_at_k_when_tasks_have_several_episodes(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True, "a#1": True, "b#0": True, "b#1": True})
    LabelJudge.LABELS = {"b": "failure"}
    summary = judge(run)
    assert summary["pass_at_k"] == {"1": 0.5, "2": 0.5}


def test_consensus_of_scripted_judges_reports_the_split(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True})
    spec = f"consensus:{JUDGE},{JUDGE}@other,{JUDGE}"
    options = JudgeOptions(model=ModelConfig(base_url="http://127.0.0.1:9/v1", model="m"))
    report = asyncio.run(judge_run(run, spec, options))
    verdict = report.verdicts["a#0"]
    assert verdict.label == "success" and [c.kind for c in verdict.criteria] == ["vote"] * 3
    assert verdict.usage.calls == 3 and report.to_json()["disagreements"] == 0
    assert verdict_path(run, spec).name == "consensus-scripted-scripted-other-scripted.jsonl"


def test_bad_inputs_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a run directory"):
        judge(tmp_path)
    run = write_run(tmp_path / "run", {"a#0": True})
    for spec, message in [
        ("nope", "unknown judge 'nope'; known: .*exact"),
        (f"consensus:{JUDGE}", "at least two judges"),
        ("majority:exact,f1", "unknown judge"),
        (f"{JUDGE}@m2", "needs a model name and a model endpoint"),
    ]:
        with pytest.raises(ConfigError, match=message):
            judge(run, spec)
    (run / "config.json").write_text("{}")
    with pytest.raises(ConfigError, match="names no task set"):
        judge(run)
