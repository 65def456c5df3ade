"""Text and image processing for the tiny models: a ChatML chat template that marks the model's
turns, a byte-level BPE tokenizer trained on the fly, and a Qwen2-VL processor without video.

The template is Qwen's ChatML (``<|im_start|>role\\n...<|im_end|>\\n``), so the tiny models see
their prompts laid out as Qwen2.5-VL does. Each image part becomes one
``<|vision_start|><|image_pad|><|vision_end|>``, which the processor expands to as many
``<|image_pad|>`` tokens as the image has merged patches. Assistant turns are wrapped in
``{% generation %}...{% endgeneration %}`` (their closing ``<|im_end|>`` included: stopping is
the model's to learn), so ``apply_chat_template(..., return_assistant_tokens_mask=True)`` gives
the loss mask.

Why a processor of our own: transformers' ``Qwen2VLProcessor`` insists on a video processor,
and its video processor needs torchvision, which has no CPU build on the package index here (the
index's wheels are CUDA builds that do not load next to the CPU torch). Training only ever
shows images, so ``ImageOnlyQwen2VLProcessor`` is ``Qwen2VLProcessor`` minus the video
processor; it tokenizes, expands image tokens and masks exactly as the original does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerBase, PreTrainedTokenizerFast, Qwen2VLProcessor
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil
from transformers.processing_utils import ProcessorMixin

PAD, IM_START, IM_END = "<|endoftext|>", "<|im_start|>", "<|im_end|>"
VISION_START, VISION_END = "<|vision_start|>", "<|vision_end|>"
IMAGE_PAD, VIDEO_PAD = "<|image_pad|>", "<|video_pad|>"
SPECIAL_TOKENS = [PAD, IM_START, IM_END, VISION_START, VISION_END, IMAGE_PAD, VIDEO_PAD]

# Qwen-style ChatML. ``{{ '\n' }}`` rather than literal newlines: transformers renders with
# trim_blocks, which would eat a newline that follows a tag.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}"
    "{% if message['role'] == 'assistant' %}"
    "{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{% else %}{{ message['content'] + '<|im_end|>' }}{% endif %}"
    "{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] in ('image', 'image_url') %}"
    "{{ '<|vision_start|><|image_pad|><|vision_end|>' }}"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}"
    "{{ '<|im_end|>' }}"
    "{% endif %}"
    "{{ '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

# a few lines of the agents' vocabulary, so a tokenizer trained without a corpus still has merges
FALLBACK_CORPUS = (
    "You are a web agent. Read the page and choose the next action.",
    "click [12]  type [3] hello world  scroll down  go_back  stop [the answer]",
    '{"action": "click", "x": 640, "y": 360}  {"action": "type", "text": "search"}',
    "Task: find the price of the blue shirt and add it to the cart.",
)

TINY_VL_MIN_PIXELS = 28 * 28 * 4  # a screenshot becomes 4..16 merged patches = tokens
TINY_VL_MAX_PIXELS = 28 * 28 * 16


def train_tokenizer(
    corpus: Iterable[str] | None, vocab_size: int = 4096
) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer trained on ``corpus`` (any text encodes: every byte is in the
    base alphabet), with the ChatML and vision special tokens and ``CHATML_TEMPLATE``. Training
    is deterministic for a given corpus in a given order."""
    texts = [t for t in corpus or () if t] or list(FALLBACK_CORPUS)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token=IM_END,
        pad_token=PAD,
        chat_template=CHATML_TEMPLATE,
        extra_special_tokens={"image_token": IMAGE_PAD, "video_token": VIDEO_PAD},
    )


class ImageOnlyQwen2VLProcessor(Qwen2VLProcessor):
    """``Qwen2VLProcessor`` without its video processor (see the module docstring)."""

    def __init__(
        self,
        image_processor: Any = None,
        tokenizer: Any = None,
        chat_template: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.image_token = IMAGE_PAD
        self.video_token = VIDEO_PAD
        self.image_token_id = tokenizer.convert_tokens_to_ids(IMAGE_PAD)
        self.video_token_id = tokenizer.convert_tokens_to_ids(VIDEO_PAD)
        ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template)


def tiny_vl_processor(tokenizer: PreTrainedTokenizerBase) -> ImageOnlyQwen2VLProcessor:
    """Qwen2-VL's image processing (14-pixel patches, 2x2 merge) with a small pixel budget, so a
    1280x720 screenshot costs 15 tokens."""
    images = Qwen2VLImageProcessorPil(min_pixels=TINY_VL_MIN_PIXELS, max_pixels=TINY_VL_MAX_PIXELS)
    return ImageOnlyQwen2VLProcessor(images, tokenizer, chat_template=CHATML_TEMPLATE)


def has_generation_marks(template: str | None) -> bool:
    return bool(template) and "{% generation %}" in str(template)


def is_chatml(tokenizer: PreTrainedTokenizerBase) -> bool:
    """Whether the tokenizer knows ChatML's turn markers (the Qwen family)."""
    vocab = tokenizer.get_vocab()
    return IM_START in vocab and IM_END in vocab
