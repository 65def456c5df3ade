"""The two losses of the reference trainer, on a collated batch (``encoding.collate``).

SFT: the mean token cross-entropy over the reply tokens, each example weighted by its
``Sample.weight`` (the recency weight of filtered BC):

    loss = sum_i w_i * sum_t -log p(y_it) / sum_i w_i * n_i

With a prompt weight ``lam > 0``, ``lam`` times the same weighted mean over the prompts' text
tokens (never an image's) is added, so the replies keep their whole gradient however long the
prompts are: a model trained from scratch then also learns the pages' own language, where an
objective's words come back in the elements that bear them (docs/learning.md).

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


def token_logprobs(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Log-probability of each next token, shape (B, L-1). No KV cache: nothing is generated."""
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    logits = model(**inputs, use_cache=False).logits[:, :-1].float()
    targets = batch["input_ids"][:, 1:]
    nll = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none"
    )
    return -nll.view(targets.shape)


def prompt_positions(batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """Where the next token is the prompt's text: not padding, not the reply, not an image."""
    shifted = {k: batch[k][:, 1:] for k in ("attention_mask", "labels")}
    text = shifted["attention_mask"].bool() & (shifted["labels"] == IGNORE)
    if "mm_token_type_ids" in batch:
        text &= batch["mm_token_type_ids"][:, 1:] == 0
    return text


def batch_loss(
    model: torch.nn.Module,
    batch: dict[str, torch.Tensor],
    examples: list[Example],
    mode: Mode,
    prompt_weight: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(the loss, each example's summed reply log-probability (B,)). The batch's rows are the
    examples, in order. ``prompt_weight``: sft only (see the module docstring)."""
    logp = token_logprobs(model, batch)
    mask = (batch["labels"][:, 1:] != IGNORE).to(logp.dtype)
    seq_logp = (logp * mask).sum(dim=1)
    weights = torch.tensor([credit(e, mode) for e in examples], device=logp.device)
    if mode == "rl":
        return -(weights * seq_logp).sum() / len(examples), seq_logp.detach()
    loss = _weighted_mean_nll(logp, mask, weights)
    if prompt_weight > 0:
        prompt = prompt_positions(batch).to(logp.dtype)
        loss = loss + prompt_weight * _weighted_mean_nll(logp, prompt, weights)
    return loss, seq_logp.detach()


def _weighted_mean_nll(
    logp: torch.Tensor, mask: torch.Tensor, weights: torch.Tensor
) -> torch.Tensor:
    """sum_i w_i * sum_t -logp_it * mask_it / sum_i w_i * sum_t mask_it"""
    tokens = (weights * mask.sum(dim=1)).sum().clamp(min=1e-8)
    return -(weights * (logp * mask).sum(dim=1)).sum() / tokens
