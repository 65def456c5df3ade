"""Models for the trainer: the two tiny ones built from configs (random weights, a tokenizer
trained on the fly, no downloads) and any local Hugging Face model or checkpoint of ours.

    load_bundle("tiny")      a 2-layer Qwen2 causal LM: text observations, element-id actions
    load_bundle("small")     a 4-layer, 128-wide Qwen2 causal LM (0.8M parameters): for
                             learning runs on 2 CPU cores (docs/learning.md)
    load_bundle("tiny-vl")   a 2-layer Qwen2-VL (vision tower included): the screenshot path
                             that Qwen2-VL / Qwen2.5-VL users run, at toy size
    load_bundle(PATH)        a directory: a checkpoint the trainer wrote, a ``ModelBundle.save``,
                             or any local Hugging Face model (``local_files_only``)

A ``ModelBundle`` is what the trainer trains and what a server generates with: the model, its
tokenizer, its processor (vision models) and what kind it is. ``bundle.save(dir)`` writes a
directory that ``load_bundle(dir)`` reads back.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import torch
from transformers import (
    AutoConfig,
    AutoModelForCausalLM,
    AutoModelForImageTextToText,
    AutoProcessor,
    AutoTokenizer,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    PreTrainedTokenizerFast,
    Qwen2Config,
    Qwen2ForCausalLM,
    Qwen2VLConfig,
    Qwen2VLForConditionalGeneration,
)
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

from webdojo.errors import ConfigError, ModelMismatch
from webdojo.training import processing as proc

Kind = Literal["tiny", "small", "tiny-vl", "hf"]
BUNDLE_FILE = "webdojo_model.json"  # {"kind": ...}: written by save, read by load_bundle
CHECKPOINT_FILE = "checkpoint.json"  # marks a trainer checkpoint (see checkpoints.py)
QWEN_VL_TYPES = ("qwen2_vl", "qwen2_5_vl")

# toy sizes: a training step takes milliseconds on a CPU
TINY_TEXT: dict[str, Any] = dict(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=4096,
)
# for learning runs: copying a name from the objective to the element that bears it (MiniWoB++'s
# click-link, enter-text): four layers leave room for two chained copies (the name, then the id
# after it on the page).
# 128 wide: in offline runs it learned about as much per update as 256 wide, at 0.27 s against
# 0.65 s per step of 8 examples on 2 cores (docs/learning.md)
SMALL_TEXT: dict[str, Any] = dict(
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=4,
    num_attention_heads=4,
    num_key_value_heads=4,
    max_position_embeddings=4096,
)
TEXT_SIZES = {"tiny": TINY_TEXT, "small": SMALL_TEXT}
# small's tokenizer keeps few merges, so that a name it never saw splits into pieces it has
# copied before (held-out MiniWoB++ instances ask for names no training instance had); tried
# in one run so far, with no clear gain over 4,096 (docs/learning.md)
VOCAB_SIZES = {"tiny": 4096, "small": 1024, "tiny-vl": 4096}
TINY_VISION: dict[str, Any] = dict(
    depth=2,
    embed_dim=32,
    hidden_size=64,  # the merger projects to the text model's width
    num_heads=2,
    mlp_ratio=2,
    patch_size=14,
    spatial_merge_size=2,
    temporal_patch_size=2,
    in_channels=3,
)


@dataclass
class ModelBundle:
    """A model with what turns chat messages into its inputs."""

    model: Any  # a transformers PreTrainedModel (or a peft PeftModel around one)
    tokenizer: PreTrainedTokenizerBase
    processor: Any | None  # vision models: a transformers processor (images + tokenizer)
    kind: Kind
    vision: bool

    @property
    def encoder(self) -> Any:
        """What applies the chat template: the processor for vision models, else the tokenizer."""
        return self.processor if self.processor is not None else self.tokenizer

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def save(self, directory: Path | str) -> Path:
        """``save_pretrained`` of the model and its tokenizer or processor, plus the kind."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(out)
        self.encoder.save_pretrained(out)
        (out / BUNDLE_FILE).write_text(json.dumps({"kind": self.kind}) + "\n", encoding="utf-8")
        return out


def load_bundle(
    spec: str | Path, *, corpus: Iterable[str] | None = None, seed: int = 0
) -> ModelBundle:
    """``tiny`` | ``tiny-vl`` | a directory (see the module docstring). ``corpus`` trains the
    tiny models' tokenizer (give it the texts they will see: prompts and replies); ``seed``
    draws their random weights. Raises ``ModelMismatch`` for a tokenizer that does not fit its
    model and ``ConfigError`` for a spec that names nothing."""
    if str(spec) in ("tiny", "small", "tiny-vl"):
        bundle = tiny_bundle(str(spec), corpus, seed)  # type: ignore[arg-type]
    else:
        bundle = _load_directory(Path(spec))
    check_bundle(bundle)
    return bundle


def tiny_bundle(
    kind: Literal["tiny", "small", "tiny-vl"], corpus: Iterable[str] | None, seed: int
) -> ModelBundle:
    tokenizer = proc.train_tokenizer(corpus, VOCAB_SIZES[kind])
    vocab = tokenizer.get_vocab()
    ids: dict[str, int] = {t: vocab[t] for t in proc.SPECIAL_TOKENS}
    special: dict[str, Any] = dict(
        bos_token_id=ids[proc.IM_START], eos_token_id=ids[proc.IM_END], pad_token_id=ids[proc.PAD]
    )
    with torch.random.fork_rng(devices=[]):  # the caller's random stream is left alone
        torch.manual_seed(seed)
        model = (
            _tiny_text(len(tokenizer), special, TEXT_SIZES[kind])
            if kind in TEXT_SIZES
            else _tiny_vl(len(tokenizer), ids, special)
        )
    model.generation_config.update(**special)
    processor = proc.tiny_vl_processor(tokenizer) if kind == "tiny-vl" else None
    return ModelBundle(model, tokenizer, processor, kind, vision=kind == "tiny-vl")


def _tiny_text(vocab_size: int, special: dict[str, Any], size: dict[str, Any]) -> PreTrainedModel:
    config = Qwen2Config(vocab_size=vocab_size, tie_word_embeddings=True, **size, **special)
    return Qwen2ForCausalLM(config)


def _tiny_vl(vocab_size: int, ids: dict[str, int], special: dict[str, Any]) -> PreTrainedModel:
    text = dict(TINY_TEXT, rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]})
    config = Qwen2VLConfig(
        text_config=dict(vocab_size=vocab_size, **text, **special),
        vision_config=TINY_VISION,
        image_token_id=ids[proc.IMAGE_PAD],
        video_token_id=ids[proc.VIDEO_PAD],
        vision_start_token_id=ids[proc.VISION_START],
        vision_end_token_id=ids[proc.VISION_END],
        tie_word_embeddings=True,
        **special,
    )
    return Qwen2VLForConditionalGeneration(config)


def _load_directory(path: Path) -> ModelBundle:
    if not path.is_dir():
        raise ConfigError(f"--model {path}: not 'tiny', 'tiny-vl' or a model directory")
    if (path / CHECKPOINT_FILE).is_file():  # a trainer checkpoint
        return _load_checkpoint(path)
    if not (path / "config.json").is_file():
        raise ConfigError(f"--model {path}: no config.json (not a Hugging Face model directory)")
    marker = path / BUNDLE_FILE
    kind: Kind = (
        json.loads(marker.read_text(encoding="utf-8"))["kind"] if marker.is_file() else "hf"
    )
    config = AutoConfig.from_pretrained(path, local_files_only=True)
    if getattr(config, "vision_config", None) is None:
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        tokenizer = _load_tokenizer(path, kind)
        return ModelBundle(model, _with_marks(tokenizer, path), None, kind, vision=False)
    model = AutoModelForImageTextToText.from_pretrained(path, local_files_only=True)
    processor = _load_processor(path, config.model_type, kind)
    processor.tokenizer = _with_marks(processor.tokenizer, path)
    processor.chat_template = processor.tokenizer.chat_template
    return ModelBundle(model, processor.tokenizer, processor, kind, vision=True)


def _load_tokenizer(path: Path, kind: Kind) -> PreTrainedTokenizerBase:
    """Our tiny models' tokenizer exactly as trained (``tokenizer.json``). AutoTokenizer would
    pick the class of the model type (Qwen2's), which rebuilds its own pre-tokenizer (digits
    one by one) and so encodes the same text into other tokens than the model learned."""
    if kind == "hf":
        return AutoTokenizer.from_pretrained(path, local_files_only=True)
    return PreTrainedTokenizerFast.from_pretrained(path, local_files_only=True)


def _load_processor(path: Path, model_type: str, kind: Kind) -> Any:
    """Qwen-VL models get the image-only processor (``processing`` says why); others theirs."""
    if model_type not in QWEN_VL_TYPES:
        return AutoProcessor.from_pretrained(path, local_files_only=True)
    tokenizer = _load_tokenizer(path, kind)
    images = Qwen2VLImageProcessorPil.from_pretrained(path, local_files_only=True)
    template = _saved_template(path) or tokenizer.chat_template
    return proc.ImageOnlyQwen2VLProcessor(images, tokenizer, chat_template=template)


def _saved_template(path: Path) -> str | None:
    file = path / "chat_template.jinja"
    return file.read_text(encoding="utf-8") if file.is_file() else None


def _with_marks(tokenizer: PreTrainedTokenizerBase, path: Path) -> PreTrainedTokenizerBase:
    """The loss mask needs ``{% generation %}`` marks. Published templates mostly lack them; a
    ChatML (Qwen) tokenizer gets our ChatML template, which lays turns out the same way."""
    template = _saved_template(path) or tokenizer.chat_template
    if proc.has_generation_marks(template):
        tokenizer.chat_template = template
    elif proc.is_chatml(tokenizer):
        tokenizer.chat_template = proc.CHATML_TEMPLATE
    else:
        raise ModelMismatch(
            f"{path}: its chat template does not mark assistant turns with "
            "{% generation %}...{% endgeneration %} and is not ChatML, so the loss mask cannot be "
            "built; add the marks to chat_template.jinja"
        )
    return tokenizer


def _load_checkpoint(path: Path) -> ModelBundle:
    """model/ (full training), or LoRA's adapter/ on the base model it names."""
    if (path / "model").is_dir():
        return _load_directory(path / "model")
    info = json.loads((path / CHECKPOINT_FILE).read_text(encoding="utf-8"))
    bundle = _load_directory((path / info["base"]).resolve())
    from peft import PeftModel

    with peft_quiet():
        bundle.model = PeftModel.from_pretrained(bundle.model, path / "adapter", is_trainable=True)
    return bundle


@contextmanager
def peft_quiet() -> Iterator[None]:
    """peft asks transformers 5 a deprecated question (``is_gradient_checkpointing``)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`is_gradient_checkpointing`", FutureWarning)
        yield


def check_bundle(bundle: ModelBundle) -> None:
    """``ModelMismatch`` when the tokenizer's ids do not fit the model's embedding table, or a
    vision model's image token is not the processor's."""
    rows = bundle.model.get_input_embeddings().num_embeddings
    if len(bundle.tokenizer) > rows:
        raise ModelMismatch(
            f"the tokenizer has {len(bundle.tokenizer)} tokens but the model embeds only {rows}: "
            "they come from different models (load both from the same directory)"
        )
    token = getattr(bundle.processor, "image_token", None)
    expected = getattr(bundle.model.config, "image_token_id", None)
    if bundle.vision and token is not None and expected is not None:
        got = bundle.tokenizer.convert_tokens_to_ids(token)
        if expected != got:
            raise ModelMismatch(
                f"the model's image token id is {expected} but the processor's {token} is "
                f"{got}: the processor belongs to another model"
            )
