"""The two losses of the reference trainer, on a collated batch (``encoding.collate``).

SFT: the mean token cross-entropy over the reply tokens, each example weighted by its
``Sample.weight`` (the recency weight of filtered BC):

    loss = sum_i w_i * sum_t -log p(y_it) / sum_i w_i * n_i

RL: a policy gradient on the sampled replies,

    loss = -(1/B) * sum_i A_i * sum_t log p(y_it)

with ``A_i = advantage * weight`` when the sample has an advantage (GRPO groups: Dr. GRPO's
``r - mean(r)``, no std normalization) and ``A_i = reward * weight`` otherwise (REINFORCE with
no baseline: WebGym's filtered BC, where every kept reward is 1). Following Dr. GRPO there is no
length normalization: log-probabilities are summed over a reply's tokens, and ``1/B`` is a
constant. One update per batch, so the ratio to the sampling policy is 1 and no clipping is
needed.
"""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F

from webdojo.training.encoding import IGNORE
from webdojo.training.examples import Example

Mode = Literal["sft", "rl"]


def credit(example: Example, mode: Mode) -> float:
    """The example's weight (sft) or advantage A_i (rl); see the module docstring."""
    s = example.sample
    if mode == "sft":
        return s.weight
    return (s.advantage if s.advantage is not None else s.reward) * s.weight


def reply_logprobs(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Per-token log-probabilities of the labels, shape (B, L-1), 0 where there is no label."""
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    logits = model(**inputs).logits[:, :-1].float()
    labels = batch["labels"][:, 1:]
    nll = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=IGNORE,
        reduction="none",
    )
    return -nll.view(labels.shape)


def batch_loss(
    model: torch.nn.Module,
    batch: dict[str, torch.Tensor],
    examples: list[Example],
    mode: Mode,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(the loss, each example's summed reply log-probability (B,)). The batch's rows are the
    examples, in order."""
    logp = reply_logprobs(model, batch)
    mask = (batch["labels"][:, 1:] != IGNORE).to(logp.dtype)
    seq_logp = (logp * mask).sum(dim=1)
    weights = torch.tensor([credit(e, mode) for e in examples], device=logp.device)
    if mode == "sft":
        loss = -(weights * seq_logp).sum() / (weights * mask.sum(dim=1)).sum().clamp(min=1e-8)
    else:
        loss = -(weights * seq_logp).sum() / len(examples)
    return loss, seq_logp.detach()
