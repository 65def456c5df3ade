"""The reference trainer on CPU: one SFT step and one RL step lower the loss on their batch and
move the chosen replies' log-probabilities the right way, for the tiny text model and the tiny
Qwen2-VL; a run killed with SIGKILL resumes without repeating or skipping data; bad input is
refused before the first step."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from train_fixtures import example, examples

from webdojo.errors import (
    ConfigError,
    EmptyTrainingData,
    MissingImages,
    ModelMismatch,
    NoRewards,
    OutOfMemory,
    ResumeMismatch,
)
from webdojo.training.batches import GROUP_SPAN, batch_indices, corpus_texts, length_batch
from webdojo.training.encoding import IGNORE, collate, encode_example
from webdojo.training.examples import Example
from webdojo.training.objectives import Mode, batch_loss, prompt_positions, token_logprobs
from webdojo.training.processing import train_tokenizer
from webdojo.training.tiny_models import ModelBundle, load_bundle
from webdojo.training.trainer import METRICS, TrainConfig, train

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"


def measure(bundle: ModelBundle, batch: list[Example], mode: Mode) -> tuple[float, torch.Tensor]:
    encoded = collate(
        [encode_example(bundle, e, 1024) for e in batch], bundle.tokenizer.pad_token_id
    )
    with torch.no_grad():
        loss, seq_logp = batch_loss(bundle.model, encoded, batch, mode)
    return float(loss), seq_logp


CASES = [  # mode, the batch's credit, which way the replies' log-probabilities must move
    pytest.param("sft", {}, 1, id="sft"),
    pytest.param("rl", {"rule": "grpo", "advantage": 0.5}, 1, id="rl-positive-advantage"),
    pytest.param("rl", {"rule": "grpo", "advantage": -0.5, "reward": 0.0}, -1, id="rl-negative"),
    pytest.param("rl", {"reward": 1.0}, 1, id="rl-reinforce-reward"),
]


# tiny-vl builds a vision tower and a processor per case (2-5 s each on 2 cores): make test
# runs it, make test-fast keeps the text model
KINDS = ["tiny", pytest.param("tiny-vl", marks=pytest.mark.slow)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("mode", "credit", "direction"), CASES)
def test_one_step_lowers_the_loss_and_moves_the_log_probabilities(
    kind: str, mode: Mode, credit: dict[str, object], direction: int, tmp_path: Path
) -> None:
    batch = examples(3, **credit)
    bundle = load_bundle(kind, corpus=corpus_texts(batch), seed=1)
    loss_before, logp_before = measure(bundle, batch, mode)
    config = TrainConfig(mode=mode, model=kind, out=tmp_path, steps=1, batch_size=3, lr=1e-3,
                         progress=False)  # fmt: skip
    result = train(config, batch, bundle=bundle)
    loss_after, logp_after = measure(bundle, batch, mode)
    assert result.steps == 1 and result.loss_first == pytest.approx(loss_before, rel=1e-4)
    assert loss_after < loss_before
    assert torch.all(torch.sign(logp_after - logp_before) == direction), (logp_before, logp_after)
    assert (tmp_path / "checkpoints" / "step-000001" / "model" / "config.json").is_file()


@pytest.mark.parametrize("kind", KINDS)
def test_a_prompt_loss_weight_adds_the_prompts_text_but_no_image_or_padding(kind: str) -> None:
    batch = examples(3)
    bundle = load_bundle(kind, corpus=corpus_texts(batch), seed=1)
    encoded = collate(
        [encode_example(bundle, e, 1024) for e in batch], bundle.tokenizer.pad_token_id
    )
    prompt = prompt_positions(encoded)
    reply = encoded["labels"][:, 1:] != IGNORE
    assert prompt.any() and not (prompt & reply).any()
    assert not (prompt & (encoded["attention_mask"][:, 1:] == 0)).any()
    if kind == "tiny-vl":
        images = encoded["mm_token_type_ids"][:, 1:] != 0
        assert images.any() and not (prompt & images).any()
    with torch.no_grad():
        logp = token_logprobs(bundle.model, encoded)
        reply_only, _ = batch_loss(bundle.model, encoded, batch, "sft")
        weighted, _ = batch_loss(bundle.model, encoded, batch, "sft", prompt_weight=0.5)
    reply_mean = -(logp * reply).sum() / reply.sum()
    prompt_mean = -(logp * prompt).sum() / prompt.sum()
    assert float(reply_only) == pytest.approx(float(reply_mean), rel=1e-5)
    assert float(weighted) == pytest.approx(float(reply_mean + 0.5 * prompt_mean), rel=1e-5)
    assert float(weighted) != pytest.approx(float(reply_only))


def test_a_prompt_loss_weight_is_refused_for_rl_and_below_zero(tmp_path: Path) -> None:
    for mode, weight in (("rl", 0.3), ("sft", -0.1)):
        config = TrainConfig(
            mode=mode,
            out=tmp_path / mode,
            steps=1,
            batch_size=2,
            prompt_loss_weight=weight,
            progress=False,
        )
        with pytest.raises(ConfigError, match="prompt loss weight"):
            train(config, examples(2, reward=1.0))


@pytest.mark.slow  # peft and a tiny-vl model: about 9 s on 2 cores
def test_lora_trains_an_adapter_and_its_checkpoint_loads_back(tmp_path: Path) -> None:
    batch = examples(3)
    config = TrainConfig(model="tiny-vl", out=tmp_path, steps=2, batch_size=3, lora=True,
                         lr=1e-2, progress=False)  # fmt: skip
    result = train(config, batch)
    assert result.loss_last is not None and result.loss_first is not None
    assert result.loss_last < result.loss_first
    assert result.checkpoint is not None
    loaded = load_bundle(result.checkpoint)
    assert hasattr(loaded.model, "peft_config") and loaded.vision
    trainable = {n for n, p in loaded.model.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n for n in trainable)
    assert (tmp_path / "base" / "config.json").is_file()


KILLED_RUN = """
import os, signal, sys
from pathlib import Path
from train_fixtures import examples
from webdojo.training.trainer import TrainConfig, train

def die(line):
    if line["step"] == 3:  # after step 3 is logged; the newest checkpoint is step 2's
        os.kill(os.getpid(), signal.SIGKILL)

config = TrainConfig(model="tiny", out=Path(sys.argv[1]), steps=7, batch_size=2,
                     checkpoint_every=2, seed=5, progress=False)
train(config, examples(5), on_step=die)
"""


def read_metrics(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / METRICS).read_text().splitlines()]


@pytest.mark.slow  # starts and kills processes: left out of make test-fast
def test_a_killed_run_resumes_without_repeating_or_skipping_data(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(HERE)])}
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_RUN, str(tmp_path / "killed")], env=env, timeout=240
    )
    assert killed.returncode == -signal.SIGKILL
    assert [m["step"] for m in read_metrics(tmp_path / "killed")] == [1, 2, 3]
    config = TrainConfig(model="tiny", out=tmp_path / "killed", steps=7, batch_size=2,
                         checkpoint_every=2, seed=5, progress=False, resume=True)  # fmt: skip
    resumed = train(config, examples(5))
    whole = train(replace(config, out=tmp_path / "whole", resume=False), examples(5))

    got, want = read_metrics(tmp_path / "killed"), read_metrics(tmp_path / "whole")
    assert [m["step"] for m in got] == list(range(1, 8))
    assert [m["sample_ids"] for m in got] == [m["sample_ids"] for m in want]
    assert [m["loss"] for m in got] == pytest.approx([m["loss"] for m in want], rel=1e-5)
    seen = [i for m in got[:5] for i in m["sample_ids"]]  # 10 positions = 2 epochs of 5
    assert sorted(seen[:5]) == sorted(seen[5:]) and len(set(seen[:5])) == 5
    assert resumed.steps == whole.steps == 7 and resumed.samples == 10  # steps 3..7 only
    assert resumed.loss_last == pytest.approx(whole.loss_last, rel=1e-5)
    assert {p.name for p in (tmp_path / "killed" / "checkpoints").iterdir()} == {
        "step-000006", "step-000007"
    }  # fmt: skip


def test_the_data_order_is_a_permutation_per_epoch_from_the_seed() -> None:
    stream = batch_indices(5, seed=3, cursor=0, size=15)
    assert [sorted(stream[i : i + 5]) for i in (0, 5, 10)] == [list(range(5))] * 3
    assert batch_indices(5, 3, 7, 4) == stream[7:11]
    assert stream != batch_indices(5, seed=4, cursor=0, size=15)


def test_length_grouped_batches_hold_similar_lengths_and_every_example_once_an_epoch() -> None:
    """Grouped by length, an epoch's batches (the short one last) are every example once, each
    batch from one sorted span, so it pads far less than a random batch; same seed, same order."""
    n, size = 2 * GROUP_SPAN * 4 + 3, 4  # two spans of 50 batches, the second short
    lengths = tuple((i * 7919) % 1500 + 20 for i in range(n))  # 20-1,519 tokens, shuffled
    epoch = [length_batch(lengths, 3, step, size) for step in range(-(-n // size))]
    assert sorted(i for batch in epoch for i in batch) == list(range(n))
    assert [len(b) for b in epoch] == [size] * (n // size) + [n % size]
    assert length_batch(lengths, 3, len(epoch), size) != epoch[0]  # the next epoch: seed + 1
    assert [length_batch(lengths, 3, s, size) for s in range(len(epoch))] == epoch
    plain = batch_indices(n, 3, 0, n)
    random_batches = [plain[k : k + size] for k in range(0, n, size)]

    def padded(batches: list[list[int]]) -> int:  # tokens a batch of its longest costs
        return sum(max(lengths[i] for i in b) * len(b) for b in batches)

    grouped, unsorted = padded(epoch), padded(random_batches)
    assert grouped < 1.05 * sum(lengths) < 0.7 * unsorted, (grouped, sum(lengths), unsorted)


def test_a_length_grouped_run_reads_each_example_once_an_epoch_and_resumes_only_grouped(
    tmp_path: Path,
) -> None:
    data = [example(i, reply="click [3]" + " and more" * i, image=False) for i in range(6)]
    config = TrainConfig(out=tmp_path, steps=4, batch_size=4, group_by_length=True, progress=False)
    train(config, data)
    steps = [m["sample_ids"] for m in read_metrics(tmp_path)]
    assert [len(s) for s in steps] == [4, 2, 4, 2]  # 6 examples: a batch of 4, then of 2
    assert (
        sorted(steps[0] + steps[1]) == sorted(steps[2] + steps[3])
        and len(set(steps[0] + steps[1])) == 6
    )
    with pytest.raises(ResumeMismatch):  # in another data order its step reads other examples
        train(replace(config, resume=True, steps=5, group_by_length=False), data)
    assert train(replace(config, resume=True, steps=5), data).steps == 5


def test_bad_input_is_refused_before_the_first_step(tmp_path: Path) -> None:
    config = TrainConfig(out=tmp_path / "a", steps=1, batch_size=2, progress=False)
    with pytest.raises(EmptyTrainingData):
        train(config, [])
    zero = examples(3, rule="grpo", advantage=0.0, reward=1.0)
    with pytest.raises(NoRewards):
        train(replace(config, mode="rl"), zero)
    with pytest.raises(NoRewards):
        train(replace(config, mode="rl"), examples(3, reward=0.0))
    with pytest.raises(MissingImages, match="none of the 3 prompts"):
        train(replace(config, model="tiny-vl"), examples(3, image=False))
    assert not (tmp_path / "a").exists()  # nothing was written

    small = load_bundle("tiny", corpus=["click"])
    bigger = train_tokenizer(corpus_texts(examples()) + [f"w{i} t{i}" for i in range(500)])
    with pytest.raises(ModelMismatch):
        train(config, examples(3), bundle=ModelBundle(small.model, bigger, None, "tiny", False))


def test_output_directories_are_not_overwritten_or_resumed_on_other_data(tmp_path: Path) -> None:
    config = TrainConfig(out=tmp_path, steps=1, batch_size=2, progress=False)
    train(config, examples(3))
    with pytest.raises(ConfigError, match="--resume"):
        train(config, examples(3))
    with pytest.raises(ResumeMismatch):
        train(replace(config, resume=True, steps=2), examples(4))
    done = train(replace(config, resume=True), examples(3))  # already at its last step
    assert done.steps == 1 and done.samples == 0


class OutOfMemoryModel(torch.nn.Module):
    """A model whose forward pass runs out of memory, as a too-large batch does on a GPU."""

    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner
        self.config = inner.config

    def get_input_embeddings(self) -> torch.nn.Module:
        return self.inner.get_input_embeddings()  # type: ignore[operator, no-any-return]

    def forward(self, **kwargs: object) -> None:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")


def test_out_of_memory_becomes_a_typed_error_with_advice(tmp_path: Path) -> None:
    tiny = load_bundle("tiny", corpus=corpus_texts(examples()))
    bundle = ModelBundle(OutOfMemoryModel(tiny.model), tiny.tokenizer, None, "tiny", False)
    config = TrainConfig(out=tmp_path, steps=1, batch_size=2, progress=False)
    with pytest.raises(OutOfMemory, match=r"--batch-size 2.*lower either"):
        train(config, examples(2), bundle=bundle)


def test_rl_groups_push_their_better_reply_up_and_worse_down(tmp_path: Path) -> None:
    good = example(0, "click [12]", rule="grpo", reward=1.0, advantage=0.5)
    bad = example(0, "scroll down", rule="grpo", reward=0.0, advantage=-0.5)
    bundle = load_bundle("tiny", corpus=corpus_texts([good, bad]), seed=2)
    _, before = measure(bundle, [good, bad], "rl")
    config = TrainConfig(mode="rl", out=tmp_path, steps=1, batch_size=2, progress=False)
    train(config, [good, bad], bundle=bundle)
    _, after = measure(bundle, [good, bad], "rl")
    assert after[0] > before[0] and after[1] < before[1]
