"""Chat messages -> model inputs, for training (``encode_example``, ``collate``) and for
generation (``encode_prompt``).

Both go through the bundle's chat template (``apply_chat_template``), so what the trainer
learns on and what a server generates from are laid out the same way. Labels are -100 except
on the tokens the template marks as the model's (``{% generation %}``): the reply and its
closing end-of-turn token. The marks are read from the tokenizer's rendering, not from the
processor's mask, which transformers before 5.24 misplaces once images are expanded
(``reply_mask``).

Images: a vision model gets the prompt's image parts as images (decoded from their data URLs;
``MissingImages`` when one does not decode). A text-only model gets each image part replaced by
``IMAGE_PLACEHOLDER``, a short text, so the prompt keeps its shape.

Too long: an example longer than ``max_tokens`` loses tokens from the left of its prompt (the
system prompt goes first; the reply is always kept whole). It is refused with
``ExampleTooLong`` when the reply alone does not fit, or when the cut would reach an image's
tokens (the image's pixels and its tokens must stay together).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import torch
from PIL import Image

from webdojo.errors import ExampleTooLong, MissingImages, ModelMismatch
from webdojo.models.content import decode_image_part
from webdojo.training import processing as proc
from webdojo.training.examples import Example, Message
from webdojo.training.tiny_models import ModelBundle

IMAGE_PLACEHOLDER = "[screenshot not shown: this model reads text only]"
IGNORE = -100  # the label of a token that carries no loss
SEQUENCE_KEYS = ("input_ids", "attention_mask", "mm_token_type_ids")  # one value per token
IMAGE_KEYS = ("pixel_values", "image_grid_thw")  # one row per patch / per image


@dataclass
class Encoded:
    """One example as tensors without a batch dimension."""

    input_ids: torch.Tensor  # (L,)
    attention_mask: torch.Tensor  # (L,)
    labels: torch.Tensor  # (L,) -100 except the reply's tokens
    extras: dict[str, torch.Tensor] = field(default_factory=dict)  # mm_token_type_ids (L,),
    # pixel_values (patches, dim), image_grid_thw (images, 3): vision models only

    @property
    def n_tokens(self) -> int:
        return int(self.input_ids.numel())

    @property
    def n_reply_tokens(self) -> int:
        return int((self.labels != IGNORE).sum())


def encode_example(bundle: ModelBundle, example: Example, max_tokens: int) -> Encoded:
    """The whole conversation (prompt + reply) with the loss mask on the reply; see the module
    docstring for images and length."""
    where = f"sample {example.sample.episode} step {example.sample.step}"
    messages = model_messages(bundle, example.messages, where)
    out = _apply(bundle, messages, generation_prompt=False)
    ids = out.pop("input_ids")[0]
    mask = reply_mask(bundle, messages, ids, where)
    if not mask.any():
        raise ModelMismatch(f"{where}: the chat template marked no token as the model's reply")
    encoded = Encoded(
        input_ids=ids,
        attention_mask=out.pop("attention_mask")[0],
        labels=torch.where(mask, ids, torch.full_like(ids, IGNORE)),
        extras={k: (v[0] if k in SEQUENCE_KEYS else v) for k, v in out.items()},
    )
    if encoded.n_tokens > max_tokens:
        encoded = _cut_left(bundle, encoded, encoded.n_tokens - max_tokens, where, max_tokens)
    return encoded


def encode_prompt(bundle: ModelBundle, messages: list[Message]) -> dict[str, torch.Tensor]:
    """Inputs for ``bundle.model.generate(**inputs)``: the messages with the assistant turn
    opened (``add_generation_prompt``), a batch of one, on the model's device. The new tokens
    start at ``inputs["input_ids"].shape[1]``."""
    out = _apply(bundle, model_messages(bundle, messages, "prompt"), generation_prompt=True)
    return {k: v.to(bundle.device) for k, v in out.items()}


def collate(batch: list[Encoded], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-pad a batch into model inputs (``labels`` included). Images are concatenated in
    order, which is how Qwen2-VL matches them to their tokens."""
    length = max(e.n_tokens for e in batch)
    out: dict[str, torch.Tensor] = {
        "input_ids": _stack([e.input_ids for e in batch], length, pad_id),
        "attention_mask": _stack([e.attention_mask for e in batch], length, 0),
        "labels": _stack([e.labels for e in batch], length, IGNORE),
    }
    if any(e.extras for e in batch):
        out["mm_token_type_ids"] = _stack(
            [e.extras.get("mm_token_type_ids", torch.zeros_like(e.input_ids)) for e in batch],
            length,
            0,
        )
        for key in IMAGE_KEYS:
            parts = [e.extras[key] for e in batch if key in e.extras]
            if parts:
                out[key] = torch.cat(parts)
    return out


def model_messages(bundle: ModelBundle, messages: list[Message], where: str) -> list[Message]:
    """The messages as this model takes them: images decoded (vision) or replaced by text."""
    result = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [_part(bundle, part, where) for part in content]
        result.append({**message, "content": content})
    return result


def _part(bundle: ModelBundle, part: dict[str, Any], where: str) -> dict[str, Any]:
    if part.get("type") != "image_url":
        return part
    if not bundle.vision:
        return {"type": "text", "text": IMAGE_PLACEHOLDER}
    try:
        ref = decode_image_part(part)
        image = Image.open(io.BytesIO(ref.data))
        image.load()
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise MissingImages(f"{where}: an image of the prompt does not decode ({exc})") from exc
    return {"type": "image", "image": image.convert("RGB")}


def _apply(bundle: ModelBundle, messages: list[Message], *, generation_prompt: bool) -> Any:
    return bundle.encoder.apply_chat_template(
        messages,
        tokenize=True,
        return_dict=True,
        return_tensors="pt",
        add_generation_prompt=generation_prompt,
    )


def reply_mask(
    bundle: ModelBundle, messages: list[Message], ids: torch.Tensor, where: str
) -> torch.Tensor:
    """Which of ``ids`` (the encoder's tokens) the template marks as the model's.

    Taken from the tokenizer's rendering, where each image is still one placeholder token, and
    stretched over each image's expanded tokens (never the model's). The processor's own mask
    cannot be trusted: before transformers 5.24 it does not shift the template's character
    spans past the expanded image tokens, and comes out empty or misplaced."""
    plain: Any = bundle.tokenizer.apply_chat_template(
        messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    image_token = getattr(bundle.processor, "image_token", None)
    image_id: Any = (
        None if image_token is None else bundle.tokenizer.convert_tokens_to_ids(image_token)
    )
    marks = _stretch(plain["input_ids"], plain["assistant_masks"], ids.tolist(), image_id)
    if marks is None:
        raise ModelMismatch(
            f"{where}: the tokenizer and the processor tokenize this conversation differently "
            "(beyond expanding images), so the reply's tokens cannot be found"
        )
    return torch.tensor(marks, dtype=torch.bool)


def _stretch(
    plain: list[int], marks: list[int], expanded: list[int], image_id: int | None
) -> list[int] | None:
    """``marks`` (one per ``plain`` token) laid over ``expanded``, where each ``image_id`` of
    ``plain`` became a run of them; None when the two differ otherwise."""
    out: list[int] = []
    at = 0
    for token, mark in zip(plain, marks, strict=True):
        if token == image_id:
            run = at
            while run < len(expanded) and expanded[run] == image_id:
                run += 1
            out.extend([0] * (run - at))
            at = run
        elif at < len(expanded) and expanded[at] == token:
            out.append(mark)
            at += 1
        else:
            return None
    return out if at == len(expanded) else None


def _cut_left(bundle: ModelBundle, e: Encoded, cut: int, where: str, limit: int) -> Encoded:
    if bool((e.labels[:cut] != IGNORE).any()):
        raise ExampleTooLong(
            f"{where}: its reply alone is {e.n_reply_tokens} tokens, over --max-tokens {limit}"
        )
    vocab = bundle.tokenizer.get_vocab()
    vision = [vocab[t] for t in (proc.VISION_START, proc.IMAGE_PAD) if t in vocab]
    if vision and bool(torch.isin(e.input_ids[:cut], torch.tensor(vision)).any()):
        raise ExampleTooLong(
            f"{where}: {e.n_tokens} tokens; fitting --max-tokens {limit} would cut into an "
            "image's tokens (raise --max-tokens, or keep fewer screenshots in the prompt)"
        )
    extras = {k: (v[cut:] if k in SEQUENCE_KEYS else v) for k, v in e.extras.items()}
    return Encoded(e.input_ids[cut:], e.attention_mask[cut:], e.labels[cut:], extras)


def _stack(rows: list[torch.Tensor], length: int, fill: int) -> torch.Tensor:
    out = torch.full((len(rows), length), fill, dtype=rows[0].dtype)
    for i, row in enumerate(rows):
        out[i, : row.numel()] = row
    return out
