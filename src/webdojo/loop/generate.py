"""Replies from a ``ModelBundle`` with transformers' ``generate``: what the policy server runs.

The prompt goes through ``encode_prompt``, the same chat template (and image processing) the
trainer encodes its examples with, so the model is asked in the format it was trained on.
Sampling is seeded per request (the openai policy sends a seed per episode and step), so a
rollout can be reproduced.
"""

from __future__ import annotations

from typing import Any

import torch

from webdojo.loop.policy_server import Completion, Generate, Sampling
from webdojo.training.encoding import encode_prompt
from webdojo.training.tiny_models import ModelBundle


def bundle_generator(bundle: ModelBundle) -> Generate:
    """A ``Generate`` for the policy server (not thread-safe: the server holds a lock)."""

    def generate(messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        inputs = encode_prompt(bundle, messages)
        prompt_len = int(inputs["input_ids"].shape[1])
        options = _options(bundle, sampling)
        bundle.model.eval()
        with torch.random.fork_rng(devices=[]), torch.inference_mode():
            if sampling.seed is not None:
                torch.manual_seed(sampling.seed)
            output = bundle.model.generate(**inputs, **options)
        new = output[0, prompt_len:].tolist()
        eos = bundle.tokenizer.eos_token_id
        stopped = eos in new
        if stopped:
            new = new[: new.index(eos)]
        text = str(bundle.tokenizer.decode(new, skip_special_tokens=True))
        return Completion(text, prompt_len, len(new) + stopped, "stop" if stopped else "length")

    return generate


def _options(bundle: ModelBundle, sampling: Sampling) -> dict[str, Any]:
    options: dict[str, Any] = {
        "max_new_tokens": sampling.max_tokens,
        "eos_token_id": bundle.tokenizer.eos_token_id,
        "pad_token_id": bundle.tokenizer.pad_token_id,
    }
    if sampling.temperature > 0:
        options.update(do_sample=True, temperature=sampling.temperature, top_k=0)
        if sampling.top_p is not None:
            options["top_p"] = sampling.top_p
    else:
        options.update(do_sample=False, temperature=None, top_p=None, top_k=None)
    return options
