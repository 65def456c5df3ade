"""The tiny models and the encoding of examples: built offline, saved and loaded back, and the
loss mask on exactly the reply's tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from train_fixtures import example, examples

from webdojo.errors import ConfigError, ExampleTooLong, MissingImages, ModelMismatch
from webdojo.training.batches import corpus_texts
from webdojo.training.encoding import (
    IGNORE,
    IMAGE_PLACEHOLDER,
    collate,
    encode_example,
    encode_prompt,
)
from webdojo.training.processing import IM_END, IMAGE_PAD, train_tokenizer
from webdojo.training.tiny_models import ModelBundle, check_bundle, load_bundle

CORPUS = corpus_texts(examples())


@pytest.fixture(scope="module", params=["tiny", "tiny-vl"])
def bundle(request: pytest.FixtureRequest) -> ModelBundle:
    return load_bundle(request.param, corpus=CORPUS, seed=0)


def test_tiny_models_are_small_and_of_the_right_architecture(bundle: ModelBundle) -> None:
    names = {"tiny": "Qwen2ForCausalLM", "tiny-vl": "Qwen2VLForConditionalGeneration"}
    assert type(bundle.model).__name__ == names[bundle.kind]
    assert bundle.vision == (bundle.kind == "tiny-vl") == (bundle.processor is not None)
    assert sum(p.numel() for p in bundle.model.parameters()) < 500_000
    assert 256 < len(bundle.tokenizer) <= 4096  # bytes + merges + specials


def test_loss_mask_covers_exactly_the_reply_and_its_end_of_turn(bundle: ModelBundle) -> None:
    for ex in examples():
        encoded = encode_example(bundle, ex, max_tokens=1024)
        positions = (encoded.labels != IGNORE).nonzero().flatten().tolist()
        assert positions == list(range(positions[0], positions[-1] + 1))  # one contiguous span
        reply_ids = bundle.tokenizer(ex.reply, add_special_tokens=False)["input_ids"]
        end = bundle.tokenizer.convert_tokens_to_ids(IM_END)
        assert encoded.labels[positions].tolist() == [*reply_ids, end]
        assert encoded.input_ids[positions].tolist() == [*reply_ids, end]
        assert positions[-1] == encoded.n_tokens - 2  # only the template's closing newline after


def test_images_become_image_tokens_or_a_text_placeholder(bundle: ModelBundle) -> None:
    encoded = encode_example(bundle, example(1), max_tokens=1024)
    text = bundle.tokenizer.decode(encoded.input_ids)
    image_id = bundle.tokenizer.convert_tokens_to_ids(IMAGE_PAD)
    n_image_tokens = int((encoded.input_ids == image_id).sum())
    if bundle.vision:
        grid = encoded.extras["image_grid_thw"]
        assert grid.shape == (1, 3) and n_image_tokens == int(grid.prod()) // 4  # 2x2 merge
        assert int(encoded.extras["mm_token_type_ids"].sum()) == n_image_tokens
        assert encoded.extras["pixel_values"].shape[0] == int(grid.prod())
        assert IMAGE_PLACEHOLDER not in text
    else:
        assert n_image_tokens == 0 and not encoded.extras and IMAGE_PLACEHOLDER in text


def test_a_1280x720_screenshot_costs_few_tokens() -> None:
    from train_fixtures import png_url

    vl = load_bundle("tiny-vl", corpus=CORPUS)
    ex = example(0)
    ex.prompt[1]["content"][1]["image_url"]["url"] = png_url(size=(1280, 720))
    encoded = encode_example(vl, ex, max_tokens=1024)
    image_id = vl.tokenizer.convert_tokens_to_ids(IMAGE_PAD)
    assert int((encoded.input_ids == image_id).sum()) <= 16


def test_batches_run_through_the_model_and_prompts_generate(bundle: ModelBundle) -> None:
    encoded = [encode_example(bundle, ex, max_tokens=1024) for ex in examples(3)]
    batch = collate(encoded, bundle.tokenizer.pad_token_id)
    assert batch["input_ids"].shape == (3, max(e.n_tokens for e in encoded))
    with torch.no_grad():
        assert torch.isfinite(bundle.model(**batch).loss)
    inputs = encode_prompt(bundle, example(0).prompt)
    start = inputs["input_ids"].shape[1]
    assert bundle.tokenizer.decode(inputs["input_ids"][0]).endswith("<|im_start|>assistant\n")
    out = bundle.model.generate(**inputs, max_new_tokens=3, do_sample=False)
    assert out.shape == (1, start + 3) or int(out[0, -1]) == bundle.tokenizer.eos_token_id


def test_saved_bundle_loads_back_with_the_same_outputs(bundle: ModelBundle, tmp_path: Path) -> None:
    bundle.save(tmp_path / "m")
    again = load_bundle(tmp_path / "m")
    assert (again.kind, again.vision) == (bundle.kind, bundle.vision)
    batch = collate([encode_example(b, example(2), 1024) for b in (bundle,)], 0)
    other = collate([encode_example(again, example(2), 1024)], 0)
    assert torch.equal(batch["input_ids"], other["input_ids"])
    with torch.no_grad():
        assert torch.allclose(bundle.model(**batch).logits, again.model(**other).logits)


def test_a_saved_tokenizer_encodes_as_it_was_trained(tmp_path: Path) -> None:
    """Numbers merged into one token by our BPE stay merged: loading by the model type's
    tokenizer class (Qwen2's splits digits) would encode pages differently than in training."""
    page = "[12] link 'Home' url: http://127.0.0.1:40757/wiki/index.html#cat-2024  (3,450 km)"
    bundle = load_bundle("tiny", corpus=[page] * 20)
    again = load_bundle(bundle.save(tmp_path / "m"))
    assert again.tokenizer(page)["input_ids"] == bundle.tokenizer(page)["input_ids"]


def test_too_long_examples_lose_prompt_from_the_left_or_are_refused() -> None:
    text = load_bundle("tiny", corpus=CORPUS)
    full = encode_example(text, example(3), max_tokens=4096)
    cut = encode_example(text, example(3), max_tokens=full.n_tokens - 10)
    assert cut.n_tokens == full.n_tokens - 10
    assert torch.equal(cut.input_ids, full.input_ids[10:])
    assert cut.n_reply_tokens == full.n_reply_tokens
    with pytest.raises(ExampleTooLong, match="reply alone"):
        encode_example(text, example(3), max_tokens=full.n_reply_tokens)
    vision = load_bundle("tiny-vl", corpus=CORPUS)
    whole = encode_example(vision, example(3), max_tokens=4096)
    with pytest.raises(ExampleTooLong, match="image"):
        encode_example(vision, example(3), max_tokens=whole.n_reply_tokens + 4)


def test_a_mismatched_tokenizer_is_refused() -> None:
    small = load_bundle("tiny", corpus=["click"])
    bigger = train_tokenizer(CORPUS * 3 + [f"word{i} token{i}" for i in range(500)])
    assert len(bigger) > small.model.get_input_embeddings().num_embeddings
    with pytest.raises(ModelMismatch, match="different models"):
        check_bundle(ModelBundle(small.model, bigger, None, "tiny", vision=False))


def test_undecodable_images_and_unknown_models_are_refused(tmp_path: Path) -> None:
    vision = load_bundle("tiny-vl", corpus=CORPUS)
    broken = example(0)
    broken.prompt[1]["content"][1]["image_url"]["url"] = "data:image/png;base64,bm90IGEgcG5n"
    with pytest.raises(MissingImages, match="does not decode"):
        encode_example(vision, broken, max_tokens=1024)
    with pytest.raises(ConfigError, match="not 'tiny'"):
        load_bundle(tmp_path / "nothing-here")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"no config\.json"):
        load_bundle(tmp_path / "empty")


def test_the_small_model_is_wider_and_deeper_with_fewer_merges() -> None:
    small = load_bundle("small", corpus=CORPUS)
    config = small.model.config
    assert (config.num_hidden_layers, config.hidden_size) == (4, 128) and small.kind == "small"
    assert len(small.tokenizer) <= 1024 < 4096
