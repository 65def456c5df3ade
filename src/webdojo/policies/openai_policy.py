"""The openai policy: a prompt template + the shared model client.

Each step: fold the memory carried by earlier decisions, build the messages (the last
``max_images`` screenshots as images, older steps as text lines), call the model, and parse the
reply in the template's format. A reply that cannot be parsed (an empty one included) or names
an invalid action is the agent's fault: it becomes a Decision with ``action=None`` and the error as data, which the
environment shows to the model next step. Endpoint failures raise ``ModelError`` once the
client's retries are spent; they are infrastructure faults, never the agent's.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from webdojo.errors import InvalidActionError, ParseError
from webdojo.history import Decision, Step
from webdojo.models import ModelClient, ModelConfig
from webdojo.observation import Observation, ObservationOptions
from webdojo.prompts import PromptTemplate, get_template
from webdojo.tasks.schema import Task


class OpenAIPolicy:
    name = "openai"

    def __init__(
        self,
        model: ModelClient | ModelConfig,
        template: PromptTemplate | str = "qwen",
        *,
        sampling: Mapping[str, Any] | None = None,
    ) -> None:
        """``model``: a client (shared, not closed by this policy) or a config (the policy
        opens and closes its own client). ``sampling``: per-call overrides such as
        ``{"temperature": 1.0}``."""
        self._owns_client = isinstance(model, ModelConfig)
        self.client = ModelClient(model) if isinstance(model, ModelConfig) else model
        self.template = get_template(template) if isinstance(template, str) else template
        self.sampling = dict(sampling or {})

    def observation_options(self) -> ObservationOptions:
        return self.template.observation_options()

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        start = time.perf_counter()
        messages = self.template.context(task, observation, history)
        # a sampling seed per episode and step: repeats differ, reruns can be reproduced
        sampling = {"seed": (seed + len(history)) % 2**31, **self.sampling}
        # an empty reply is the model's answer (it fails to parse), not an endpoint fault
        result = await self.client.chat(messages, allow_empty=True, **sampling)
        try:
            parsed = self.template.read(result.text, observation)
        except (ParseError, InvalidActionError) as exc:
            return Decision(
                text=result.text,
                action=None,
                error=exc.info(),
                latency_s=time.perf_counter() - start,
                usage=result.usage,
            )
        return Decision(
            text=result.text,
            action=parsed.action,
            memory=parsed.memory,
            latency_s=time.perf_counter() - start,
            usage=result.usage,
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self.client.aclose()
