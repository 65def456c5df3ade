"""The trainer's data: the order it reads examples in, their ids, and the checks made before
the first step.

Order: an endless stream of epochs, each a permutation of the examples drawn from
``seed + epoch``. Step ``s`` (0-based) reads stream positions ``[s*B, (s+1)*B)``. The position
reached (the cursor) is all a checkpoint needs to go on without repeating or skipping an
example, and the same seed gives the same order in every process.

Grouped by length (``length_batch``), an epoch is cut into batches of similar length instead:
the permutation is read in spans of ``GROUP_SPAN`` batches, each sorted by length and cut into
batches, and the full batches are shuffled (the epoch's one short batch comes last). Step
``s`` reads batch ``s`` of that stream of batches. Padding is what a CPU step spends most on
when prompts vary from 300 to 1,500 tokens; the span keeps batches drawn from the whole set.
"""

from __future__ import annotations

import functools
import hashlib
import math
from pathlib import Path

import torch

from webdojo.errors import EmptyTrainingData, MissingImages, NoRewards
from webdojo.models.content import image_parts
from webdojo.training.examples import Example
from webdojo.training.objectives import Mode, credit


def batch_indices(n: int, seed: int, cursor: int, size: int) -> list[int]:
    """Indices of the ``size`` examples at stream positions ``cursor..cursor+size-1``."""
    out: list[int] = []
    position = cursor
    while len(out) < size:
        epoch, offset = divmod(position, n)
        take = min(size - len(out), n - offset)
        out.extend(_permutation(n, seed + epoch)[offset : offset + take])
        position += take
    return out


GROUP_SPAN = 50  # batches per sorted span, as transformers' length-grouped sampler


def length_batch(lengths: tuple[int, ...], seed: int, step: int, size: int) -> list[int]:
    """Indices of step ``step``'s batch when batches group similar lengths (module docstring);
    every example once per epoch of ``ceil(n / size)`` steps."""
    epoch, k = divmod(step, math.ceil(len(lengths) / size))
    return _length_batches(lengths, seed + epoch, size)[k]


@functools.lru_cache(maxsize=2)
def _length_batches(lengths: tuple[int, ...], seed: int, size: int) -> list[list[int]]:
    order, span = _permutation(len(lengths), seed), size * GROUP_SPAN
    batches: list[list[int]] = []
    for start in range(0, len(order), span):
        part = sorted(order[start : start + span], key=lengths.__getitem__)
        batches.extend(part[i : i + size] for i in range(0, len(part), size))
    full = [b for b in batches if len(b) == size]
    return [full[i] for i in _permutation(len(full), seed)] + batches[len(full) :]


def _permutation(n: int, seed: int) -> list[int]:
    generator = torch.Generator().manual_seed(seed)
    return [int(i) for i in torch.randperm(n, generator=generator)]


def sample_id(example: Example) -> str:
    """``<run name>/<episode>/<step>``: the id written to metrics.jsonl."""
    s = example.sample
    return f"{Path(s.run).name}/{s.episode}/{s.step}"


def fingerprint(examples: list[Example], *parts: object) -> str:
    """A hash of the examples' ids in order and of ``parts`` (the settings that decide the
    order): a resume on other data is refused instead of silently going on."""
    digest = hashlib.sha256()
    for text in [*map(sample_id, examples), *map(str, parts)]:
        digest.update(text.encode() + b"\n")
    return digest.hexdigest()[:16]


def corpus_texts(examples: list[Example]) -> list[str]:
    """Every text of the examples (prompt parts and replies): a tiny tokenizer's corpus."""
    texts = []
    for example in examples:
        for message in example.messages:
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
            elif isinstance(content, list):
                texts.extend(p["text"] for p in content if p.get("type") == "text")
    return texts


def check_examples(examples: list[Example], mode: Mode, *, vision: bool) -> None:
    """What can be found wrong before training: no examples, nothing to learn from (rl), a
    vision model given prompts without a single image."""
    if not examples:
        raise EmptyTrainingData(
            "no examples to train on: the selection is empty (see what `webdojo select` dropped)"
        )
    if mode == "rl" and all(credit(e, mode) == 0 for e in examples):
        raise NoRewards(
            f"every one of the {len(examples)} samples has a zero advantage or reward: an RL "
            "update would not change the model (were the runs judged? are the groups mixed?)"
        )
    if vision and not any(image_parts(e.prompt) for e in examples):
        raise MissingImages(
            f"a vision model, but none of the {len(examples)} prompts has a screenshot: the "
            "screenshots are missing from the runs, or the runs are text-mode (use --model tiny)"
        )
