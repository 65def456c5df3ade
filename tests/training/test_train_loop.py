"""``webdojo train loop --model tiny``: every stage of WebGym's loop, for real, kept small.

The teacher's demonstrations, the tiny model served behind the OpenAI protocol, rollouts in
headless Chromium on the built-in sites, the programmatic judge, ``select --rule bc`` and the
trainer. What the numbers are does not matter here (a model this small, trained this briefly,
learns little); that every stage ran and wrote what the next one reads does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import judges_of
from webdojo.training.samples import read_samples
from webdojo.training.tiny_models import load_bundle


@pytest.mark.browser
@pytest.mark.slow
def test_the_loop_runs_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "loop"
    report = last_json(webdojo(
        "train", "loop", "--model", "tiny", "--out", out, "--iterations", "1",
        "--train-tasks", "3", "--held-out", "2", "--max-steps", "4", "--train-steps", "4",
        "--json",
    ))  # fmt: skip
    rates = [report[k] for k in ("before", "after", "valid_before", "valid_after")]
    assert all(set(r) == {"train", "held_out"} for r in rates)
    assert all(0.0 <= v <= 1.0 for r in rates for v in r.values())
    assert report["valid_before"] == {"train": 0.0, "held_out": 0.0}  # random weights: noise
    (iteration,) = report["iterations"]
    assert iteration["kept"] > 0 and iteration["loss_last"] > 0
    assert json.loads((out / "loop.json").read_text()) == report
    assert (out / "loop.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    demos = read_run(out / "demos")
    assert len(demos.episodes) == 3 and all(e.success for e in demos.episodes.values())
    rollout = out / "iter-1" / "rollout"
    assert len(read_run(rollout).episodes) == 3
    assert "programmatic" in judges_of(rollout)  # judged before it was selected from
    samples = list(read_samples(out / "iter-1" / "selection"))
    assert {s.run for s in samples} >= {str(out / "demos")}  # the demonstrations are in the buffer
    for split in ("train", "held_out"):
        assert read_run(out / "eval-after" / split).episodes
    # the trained model is saved where a later `--model PATH` (or vLLM) can load it
    checkpoints = sorted((out / "iter-1" / "train").glob("**/config.json"))
    assert checkpoints, list((out / "iter-1").rglob("*"))
    assert load_bundle(checkpoints[-1].parent).kind == "tiny"


def test_the_loop_refuses_a_used_directory_and_an_unknown_server(tmp_path: Path) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "loop.json").write_text("{}")
    proc = webdojo("train", "loop", "--out", used)
    assert proc.returncode == 2 and "not empty" in proc.stderr
    proc = webdojo("train", "loop", "--out", tmp_path / "new", "--serve", "tgi")
    assert proc.returncode == 2 and "choose one of" in proc.stderr
    assert not (tmp_path / "new").exists()
