"""Built-in policies and the registry that names them.

* ``scripted``: replays ``task.solution`` (or a wrong solution), resolving element targets.
* ``random``: a seeded uniform choice among the actions valid on the page.
* ``perturbed``: the reference solution cut short or ending in a wrong answer (seeded): known
  failures that look almost right, for calibrating judges.
* ``openai``: a prompt template + an OpenAI-compatible model endpoint.

The Policy protocol is in ``webdojo.policies.base``; the history it sees (``Decision``, ``Step``)
in ``webdojo.history``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from webdojo.errors import ConfigError
from webdojo.models import ModelConfig
from webdojo.policies.base import Policy
from webdojo.policies.openai_policy import OpenAIPolicy
from webdojo.policies.perturbed import PerturbedPolicy
from webdojo.policies.random_policy import RandomPolicy
from webdojo.policies.scripted import ScriptedPolicy
from webdojo.prompts import get_template, template_class

POLICY_NAMES = ("scripted", "random", "perturbed", "openai")


def make_policy(
    name: str,
    *,
    model_config: ModelConfig | None = None,
    seed: int = 0,
    template: str = "qwen",
    **kw: Any,
) -> Policy:
    """Build a policy by name.

    ``scripted``: ``kw`` go to ScriptedPolicy (``which="wrong"``, ``index``, ``text_format``...).
    ``random``: uses ``seed``. ``perturbed``: uses ``seed``; ``kw`` may narrow ``modes``
    (``stop_early``, ``wrong_answer``). ``openai``: needs ``model_config`` (else the environment's, see
    ``ModelConfig.from_env``); ``kw`` naming template fields (``max_images``, ``screenshot``,
    ``axtree``...) configure the template, the rest go to OpenAIPolicy (``sampling``).
    """
    if name == "scripted":
        return ScriptedPolicy(**kw)
    if name == "random":
        return RandomPolicy(seed=seed, **kw)
    if name == "perturbed":
        return PerturbedPolicy(seed=seed, **kw)
    if name == "openai":
        config = model_config or ModelConfig.from_env()
        if config is None:
            raise ConfigError(
                "the openai policy needs a model endpoint: pass a ModelConfig or set "
                "WEBDOJO_MODEL_BASE_URL (or OPENAI_BASE_URL)"
            )
        options = _template_options(template, kw)
        return OpenAIPolicy(config, get_template(template, **options), **kw)
    raise ConfigError(f"unknown policy {name!r}; choose one of: {', '.join(POLICY_NAMES)}")


def _template_options(template: str, kw: dict[str, Any]) -> dict[str, Any]:
    """Move the keyword arguments that are fields of the template out of ``kw``."""
    fields = {f.name for f in dataclasses.fields(template_class(template))}
    return {k: kw.pop(k) for k in list(kw) if k in fields}


__all__ = [
    "POLICY_NAMES",
    "OpenAIPolicy",
    "PerturbedPolicy",
    "Policy",
    "RandomPolicy",
    "ScriptedPolicy",
    "make_policy",
]
