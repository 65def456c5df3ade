"""``webdojo train loop``: a learning run on MiniWoB++ instances, for real, kept small.

The teacher's demonstrations, the tiny model served behind the OpenAI protocol, rollouts in
headless Chromium, the programmatic judge, ``select``, the trainer, and every round scored on
held-out instances with ``eval``'s intervals, beside the random policy. What the numbers are
does not matter here (a model this small, trained this briefly); that every stage ran, wrote
what the next one reads, and reports in the documented shape does. So does a resumed loop.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from e2e.cli_process import last_json, webdojo
from webdojo.browser.chromium import find_chromium
from webdojo.errors import ConfigError
from webdojo.loop.config import CONFIG_FILE, LoopConfig
from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import judges_of, read_verdicts
from webdojo.training.samples import read_samples
from webdojo.training.tiny_models import load_bundle

# One instance of each of two kinds, trained on and held out: every stage still sees both
# kinds, and the held-out ones are other instances of them.
TRAIN = "miniwob:click-test+click-button:1@0"
HELDOUT = "miniwob:click-test+click-button:1@5000"
OOD = "miniwob:focus-text:1@9000"
SMALL = ["--rounds", "1", "--group-size", "1", "--max-steps", "3", "--train-steps", "2",
         "--on-policy-steps", "3", "--batch-size", "2"]  # fmt: skip


@pytest.fixture(scope="module")
def loop_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("loop") / "run"
    report = last_json(webdojo("train", "loop", "--tasks", TRAIN, "--heldout", HELDOUT,
                               "--out", out, *SMALL, "--json"))  # fmt: skip
    return out, report


@pytest.mark.browser
@pytest.mark.slow
def test_every_round_is_scored_on_held_out_instances(loop_dir: tuple[Path, dict]) -> None:
    out, report = loop_dir
    assert [r["round"] for r in report["rounds"]] == [0, 1]
    assert [r["rule"] for r in report["rounds"]] == ["bc", "rft"]
    for row in report["rounds"]:
        for name in ("train", "heldout"):
            lo, hi = row[f"{name}_ci95"]
            assert 0.0 <= lo <= row[name] <= hi <= 1.0, (name, row)
        assert row["kept"] > 0 and row["loss_last"] > 0 and Path(row["checkpoint"]).is_dir()
    assert report["instances"] == {"train": 2, "heldout": 2, "train_all": 2, "demos": 2}
    lo, hi = report["random_heldout_ci95"]
    assert 0.0 <= lo <= report["random_heldout"] <= hi <= 1.0
    kinds = {"miniwob.click-test", "miniwob.click-button"}  # each kind scored on its own
    for by_kind in (report["rounds"][-1]["heldout_by_kind"], report["random_heldout_by_kind"]):
        assert by_kind.keys() == kinds and all(k["n"] == 1 for k in by_kind.values())
        assert all(k["success"] in (0.0, 1.0) for k in by_kind.values())
    assert "train_by_kind" not in report["rounds"][-1]
    assert json.loads((out / "loop.json").read_text()) == report
    assert (out / "loop.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    demos = read_run(out / "demos")
    assert len(demos.episodes) == 2 and all(e.success for e in demos.episodes.values())
    rollout = out / "round-1" / "rollout"
    assert len(read_run(rollout).episodes) == 2 and "programmatic" in judges_of(rollout)
    held = {e.task_id for e in read_run(out / "round-1" / "eval" / "heldout").episodes.values()}
    trained = {e.task_id for e in demos.episodes.values()}
    assert held == {f"miniwob.{p}.5000" for p in ("click-test", "click-button")}
    assert not held & trained
    for run in (out / "round-1" / "eval" / "heldout", out / "random" / "heldout", rollout):
        labels = {v.label for v in read_verdicts(run, "programmatic").values()}
        assert labels and labels <= {"success", "failure"}, (run, labels)  # its tasks found
    assert {s.rule for s in read_samples(out / "round-1" / "selection")} <= {"rft", "sft"}
    assert load_bundle(Path(report["rounds"][-1]["checkpoint"])).kind == "tiny"
    updates = [
        len((out / f"round-{n}/train/metrics.jsonl").read_text().splitlines()) for n in (0, 1)
    ]
    assert updates == [2, 3]  # --train-steps for behaviour cloning, --on-policy-steps after


@pytest.mark.browser
@pytest.mark.slow
async def test_the_page_shows_the_curve_and_a_row_per_round(loop_dir: tuple[Path, dict]) -> None:
    out, report = loop_dir
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(find_chromium()))
        page = await browser.new_page()
        await page.goto((out / "loop.html").as_uri())
        loaded = "() => { const i = document.querySelector('img'); return i.complete && i.naturalWidth > 0; }"
        assert await page.evaluate(loaded)
        rounds = await page.locator("table").nth(0).locator("tbody tr").all_inner_texts()
        kinds = await page.locator("table").nth(1).locator("tbody tr").all_inner_texts()
        await browser.close()
    assert len(rounds) == len(report["rounds"]) and rounds[0].startswith("0\tbc")
    pages = [row.split("\t")[:2] for row in kinds]
    assert pages == [["miniwob.click-button", "1"], ["miniwob.click-test", "1"]]


@pytest.mark.browser
@pytest.mark.slow
def test_a_resumed_loop_keeps_its_rounds_and_adds_more(loop_dir: tuple[Path, dict]) -> None:
    out, report = loop_dir
    more = [a if a != "1" or i != 1 else "2" for i, a in enumerate(SMALL)]  # --rounds 2
    (out / "round-2" / "rollout").mkdir(parents=True)  # a round a killed loop left half done
    (out / "round-2" / "rollout" / "episodes.jsonl").write_text("")
    resumed = last_json(webdojo("train", "loop", "--tasks", TRAIN, "--heldout", HELDOUT,
                                "--out", out, *more, "--resume", "--json"))  # fmt: skip
    assert resumed["rounds"][:2] == report["rounds"]  # nothing measured is lost or redone
    assert [r["round"] for r in resumed["rounds"]] == [0, 1, 2]
    assert resumed["random_heldout"] == report["random_heldout"]
    assert resumed["random_heldout_by_kind"] == report["random_heldout_by_kind"]
    (kept,) = out.glob("round-2.unfinished-*")  # set aside, not deleted
    assert (kept / "rollout" / "episodes.jsonl").is_file()


@pytest.mark.browser
@pytest.mark.slow
def test_a_page_with_no_demonstration_is_rolled_out_on_but_not_taught(tmp_path: Path) -> None:
    """--demos: the teacher shows click-test only; the on-policy round rolls out on click-button
    (the training instances), whose reward is all the loop learns it from."""
    out = tmp_path / "run"
    args = ["--tasks", "miniwob:click-button:1@0", "--demos", "miniwob:click-test:1@0"]
    args += ["--heldout", "miniwob:click-button:1@5000", "--no-random-baseline"]
    report = last_json(webdojo("train", "loop", *args, "--out", out, *SMALL, "--json"))
    assert report["instances"] == {"train": 1, "heldout": 1, "train_all": 1, "demos": 1}
    taught = {e.task_id for e in read_run(out / "demos").episodes.values()}
    rolled = {e.task_id for e in read_run(out / "round-1" / "rollout").episodes.values()}
    assert taught == {"miniwob.click-test.0"} and rolled == {"miniwob.click-button.0"}
    assert [r["round"] for r in report["rounds"]] == [0, 1]
    assert json.loads((out / CONFIG_FILE).read_text())["demos"] == "miniwob:click-test:1@0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--heldout", "miniwob:click-test:3@0"], "shares 1 instances"),
        (["--heldout", HELDOUT, "--heldout-ood", "miniwob:click-test:2@9000"], "kinds of task"),
        (["--heldout", HELDOUT, "--demos", "miniwob:click-button:2@4999"], "with --demos"),
        (
            ["--heldout", HELDOUT, "--demos", "miniwob:focus-text:1@0", "--heldout-ood", OOD],
            "--demos trains on",
        ),
        (["--rule", "ppo"], "choose one of"),
        (["--serve", "tgi"], "choose one of"),
        (["--lr-schedule", "step"], "choose one of"),
        (["--train-steps", "4", "--warmup-steps", "4"], "fewer than the 4 updates"),
        (["--on-policy-steps", "3", "--warmup-steps", "3"], "fewer than the 3 updates"),
        (["--max-steps", "2", "--tasks", "family:shop-cart-pair:2"], "fits --max-steps 2"),
    ],
)
def test_bad_settings_are_refused_before_any_work(
    tmp_path: Path, args: list[str], message: str
) -> None:
    base = {"--tasks": TRAIN}
    given = dict(zip(args[::2], args[1::2], strict=True))
    argv = [a for k, v in (base | given).items() for a in (k, v)]
    proc = webdojo("train", "loop", "--out", tmp_path / "new", *argv)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert not any((tmp_path / "new").rglob("*.jsonl"))  # no episode was run


@pytest.mark.slow  # runs webdojo as child processes (seconds): left out of make test-fast
def test_a_used_directory_is_refused_and_a_resume_must_match(tmp_path: Path) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "loop.json").write_text("{}")
    proc = webdojo("train", "loop", "--out", used)
    assert proc.returncode == 2 and "not empty" in proc.stderr
    proc = webdojo("train", "loop", "--out", used, "--resume")
    assert proc.returncode == 2 and "no loop to resume" in proc.stderr
    (used / "loop-config.json").write_text(json.dumps({"model": "tiny", "lr": 0.1}))
    proc = webdojo("train", "loop", "--out", used, "--resume")
    assert proc.returncode == 2 and "other settings" in proc.stderr


def test_a_loop_saved_before_a_setting_existed_resumes_with_it_at_its_default(
    tmp_path: Path,
) -> None:
    """A loop-config.json written before --lr-schedule, --warmup-steps and --on-policy-steps
    existed matches what it ran: their defaults (every round as many updates as round 0),
    and only them."""
    config = LoopConfig(out=tmp_path, resume=True)
    saved = json.loads(json.dumps(config.settings(), default=str))
    del saved["lr_schedule"], saved["warmup_steps"], saved["on_policy_steps"]
    (tmp_path / CONFIG_FILE).write_text(json.dumps(saved))
    config.check()
    with pytest.raises(ConfigError, match=r"other settings than .*: lr_schedule$"):
        replace(config, lr_schedule="cosine").check()
    with pytest.raises(ConfigError, match=r"other settings than .*: on_policy_steps$"):
        replace(config, on_policy_steps=60).check()
    replace(config, on_policy_steps=config.train_steps).check()  # as many as it ran then


def test_each_built_in_model_has_its_own_recipe_and_a_flag_wins(tmp_path: Path) -> None:
    """--model small defaults to the recipe measured for it (docs/learning.md, runs R and
    RD'); the others keep the tiny model's; a setting given on the command line is kept."""
    small = LoopConfig.for_model(out=tmp_path, model="small", rounds=None, lr=None)
    assert (small.rounds, small.train_steps, small.batch_size) == (2, 2400, 8)
    assert [small.steps(n) for n in (0, 1, 2)] == [2400, 1200, 1200]
    assert (small.lr, small.prompt_loss_weight) == (1e-3, 1.0)
    tiny = LoopConfig.for_model(out=tmp_path)
    assert (tiny.rounds, tiny.train_steps, tiny.lr, tiny.prompt_loss_weight) == (2, 120, 3e-3, 0.3)
    assert LoopConfig.for_model(out=tmp_path, model="tiny") == LoopConfig(out=tmp_path)
    given = LoopConfig.for_model(out=tmp_path, model="small", train_steps=300, rounds=1)
    assert (given.train_steps, given.rounds, given.lr) == (300, 1, 1e-3)
    assert [given.steps(n) for n in (0, 1, 2)] == [300, 300, 300]  # every round, as asked
    assert [tiny.steps(n) for n in (0, 1, 2)] == [120, 120, 120]  # as many in every round
    shorter = LoopConfig.for_model(out=tmp_path, model="small", on_policy_steps=100)
    assert [shorter.steps(n) for n in (0, 1, 2)] == [2400, 100, 100]
