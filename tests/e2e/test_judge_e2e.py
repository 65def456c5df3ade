"""A real run judged as users do it: ``webdojo run``, then ``webdojo judge`` with the model-free
judges and with model judges on the local fake endpoint, resumed from the reply cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import last_json, webdojo

from fakes.openai_server import FakeOpenAIServer
from judges.model_runs import Script
from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import calls_path, read_verdicts

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_real_run_through_every_kind_of_judge(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    run = tmp_path / "run"
    ran = last_json(
        webdojo("run", "--tasks", "builtin:login", "--limit", "3", "--out", run, "--json")
    )
    assert ran["episodes"] == 3 and ran["success_rate"] == 1.0
    steps = {k: len(read_run(run).steps_of(k)) for k in read_run(run).episodes}

    programmatic = last_json(webdojo("judge", run, "--judge", "programmatic", "--json"))
    assert programmatic["labels"]["success"] == 3 and programmatic["model_calls"] == 0

    script = Script(
        facts={}, replies={"fact": "1. Analysis: not visible.\n2. Verdict: NOT SUCCESS"}
    )
    fake_openai.respond_with(script)
    model = ("--model-base-url", fake_openai.base_url, "--model", fake_openai.model)
    rubric = last_json(webdojo("judge", run, "--judge", "rubric", *model, "--json"))
    assert rubric["labels"]["failure"] == 3 and rubric["reward_mean"] == 0.0
    assert rubric["model_calls"] == len(fake_openai.requests) > 0
    for key, verdict in read_verdicts(run, "rubric").items():
        failed = [c for c in verdict.criteria if c.passed is False]
        assert failed and failed[0].kind in ("fact", "task") and "not visible" in failed[0].reason
        assert all(0 <= step <= steps[key] for c in verdict.criteria for step in c.evidence)
    assert calls_path(run, "rubric").is_file()

    sent = len(fake_openai.requests)
    forced = last_json(webdojo("judge", run, "--judge", "rubric", *model, "--force", "--json"))
    assert len(fake_openai.requests) == sent  # every reply came from the run's cache
    assert forced["labels"] == rubric["labels"] and forced["new"] == 3

    vote = "consensus:programmatic,rubric,website-failure"
    split = last_json(webdojo("judge", run, "--judge", vote, *model, "--json"))
    # programmatic and website-failure (scripted SUCCESS) outvote the rubric judge, 2 of 3
    assert split["labels"]["success"] == 3 and split["disagreements"] == 3
