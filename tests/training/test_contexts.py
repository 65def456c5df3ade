"""The context of each selected step, rebuilt from real runs, is exactly what the model received."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from export_runs import (
    ModelRun,
    as_schema_v2,
    copy_run,
    first_screenshot,
    request_index,
    retarget,
    rewrite_steps,
    select_bc,
)
from typer.testing import CliRunner

import webdojo.training.contexts as contexts
from webdojo.cli import app
from webdojo.errors import ConfigError, MissingObservation
from webdojo.store.run_reader import read_run
from webdojo.training.contexts import selection_examples
from webdojo.training.examples import image_refs
from webdojo.training.samples import SAMPLES, read_samples

pytestmark = pytest.mark.browser


def assert_no_drift(run: ModelRun, selection: Path, **kw: Any) -> None:
    """Every example's prompt is the body the fake received at that step, and its reply is
    what the fake answered."""
    examples = selection_examples(selection, **kw)
    index = request_index(run.root)
    assert len(index) == len(run.requests) and examples
    for example in examples:
        i = index[(example.sample.episode, example.sample.step)]
        assert example.prompt == run.requests[i]["messages"], (example.sample.key, i)
        assert example.reply == run.replies[i]


def test_webgym_memory_prompts_match_what_the_model_received(
    webgym_run: ModelRun, tmp_path: Path
) -> None:
    args = ["select", str(webgym_run.root), "--rule", "bc", "--out", str(tmp_path / "sel")]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert_no_drift(webgym_run, tmp_path / "sel", template_options={"max_images": 2})
    # the paths worth testing were taken: older steps as text, memory in the model's key order
    last = selection_examples(tmp_path / "sel", template_options={"max_images": 2})[-1]
    texts = json.dumps(last.prompt)
    assert "Steps taken earlier (screenshots no longer shown)" in texts
    first = re.search(r"zeta (\d+)", texts)
    assert first is not None and texts.index(f"alpha {first[1]}") > first.start()
    assert len(image_refs(last.prompt)) == 2


def test_the_wrong_options_do_drift(webgym_run: ModelRun, tmp_path: Path) -> None:
    """The comparison can fail: with the template's default of 3 images the long episode's
    later prompts differ from what the model received with 2."""
    selection = select_bc(webgym_run.root, tmp_path / "sel")
    with pytest.raises(AssertionError):
        assert_no_drift(webgym_run, selection)


def test_browseragent_prompts_match_what_the_model_received(
    browseragent_run: ModelRun, tmp_path: Path
) -> None:
    selection = select_bc(browseragent_run.root, tmp_path / "sel")
    assert_no_drift(browseragent_run, selection)
    last = selection_examples(selection)[-1]
    user = last.prompt[-1]["content"]
    assert "Accessibility tree:" in user and re.search(r"Fact \d+: the page is titled", user)
    assert image_refs(last.prompt) == []


def test_scripted_examples_show_each_step_and_its_screenshot(
    scripted: Path, tmp_path: Path
) -> None:
    selection = select_bc(scripted, tmp_path / "sel")
    examples = selection_examples(selection)
    stored = read_run(scripted)
    assert len(examples) == len(list(read_samples(selection))) > 0
    for example in examples:
        step = stored.attempts[example.sample.episode][example.sample.step]
        assert example.reply == step.text
        assert step.screenshot is not None
        assert image_refs(example.prompt)[-1].data == (scripted / step.screenshot).read_bytes()
        assert example.prompt[0]["role"] == "system"  # qwen: the run's config names no template


def test_a_run_is_read_once_for_all_its_samples(
    scripted: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    selection = select_bc(scripted, tmp_path / "sel")
    reads: list[Path] = []
    real = contexts.read_run
    monkeypatch.setattr(contexts, "read_run", lambda root: reads.append(root) or real(root))
    assert len(selection_examples(selection)) > 1 and reads == [scripted]


def test_schema_v2_runs_rebuild_screenshot_only_contexts(scripted: Path, tmp_path: Path) -> None:
    """A v2 run stored no observation: the qwen prompts rebuilt from its records are the same as
    from the stored observations; a template that shows the accessibility tree is refused."""
    old = as_schema_v2(scripted, tmp_path / "v2")
    selection = select_bc(scripted, tmp_path / "sel")
    v3 = selection_examples(selection)
    v2 = selection_examples(retarget(selection, old, tmp_path / "sel2"))
    assert [e.prompt for e in v2] == [e.prompt for e in v3]
    with pytest.raises(MissingObservation, match=r"predates schema v3.*'browseragent'"):
        selection_examples(tmp_path / "sel2", template="browseragent")


def test_a_template_that_shows_what_the_run_did_not_capture_is_refused(
    scripted: Path, tmp_path: Path
) -> None:
    selection = select_bc(scripted, tmp_path / "sel")
    with pytest.raises(MissingObservation, match="without an accessibility tree") as info:
        selection_examples(selection, template="browseragent")
    assert info.value.code == "missing_observation"


def test_a_missing_screenshot_is_named(scripted: Path, tmp_path: Path) -> None:
    run = copy_run(scripted, tmp_path / "run")
    selection = retarget(select_bc(scripted, tmp_path / "sel"), run, tmp_path / "sel2")
    gone = first_screenshot(run)
    gone.unlink()
    with pytest.raises(MissingObservation, match=re.escape(str(gone))):
        selection_examples(selection)


def test_a_sample_whose_attempt_or_step_is_gone_is_an_error(scripted: Path, tmp_path: Path) -> None:
    selection = select_bc(scripted, tmp_path / "sel")
    rows = (selection / SAMPLES).read_text().splitlines()
    first = json.loads(rows[0])
    for change, message in (
        ({"episode": "feedfacecafe"}, "not among the finished episodes"),
        ({"step": 99}, "cannot be rebuilt"),
        ({"run": str(tmp_path / "nowhere")}, "not a run directory"),
        ({"task_id": "login.gone"}, "not in the run's task set"),
    ):
        (selection / SAMPLES).write_text(json.dumps({**first, **change}) + "\n")
        with pytest.raises(ConfigError, match=message):
            selection_examples(selection)


def test_memory_falls_back_to_the_stored_value(webgym_run: ModelRun, tmp_path: Path) -> None:
    """A reply that no longer reads back to the stored memory (edited text) keeps the stored
    memory: the record, not the reading, is the truth."""
    run = copy_run(webgym_run.root, tmp_path / "run")
    rewrite_steps(run, lambda s: s.model_copy(update={"text": "edited"}))
    selection = select_bc(run, tmp_path / "sel")
    prompt = json.dumps(
        selection_examples(selection, template_options={"max_images": 2})[-1].prompt
    )
    first = re.search(r"zeta (\d+)", prompt)
    assert first is not None and prompt.index(f"alpha {first[1]}") < first.start()  # sorted
