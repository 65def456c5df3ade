"""Where and how to reach the model: one frozen config shared by every model call."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

NO_KEY = "EMPTY"  # vLLM and SGLang accept any key; the openai client refuses an empty one


@dataclass(frozen=True)
class ModelConfig:
    """An OpenAI-compatible chat endpoint and the sampling settings used against it."""

    base_url: str  # e.g. "http://127.0.0.1:8000/v1" (vLLM) or a hosted API's /v1 URL
    model: str = ""  # model name; "" means the first model the endpoint lists
    api_key: str = NO_KEY  # bearer token; vLLM ignores it unless started with --api-key
    timeout_s: float = 120.0  # deadline for one request (one attempt), in seconds
    max_retries: int = 3  # extra attempts after connection errors, timeouts, 429 and 5xx
    backoff_s: float = 0.5  # delay before the first retry; doubles each time, with jitter
    backoff_max_s: float = 10.0  # longest delay between two attempts
    temperature: float = 0.0  # 0 for evaluation; raise it for RL rollouts that need variety
    top_p: float | None = None  # nucleus sampling; None leaves the server default
    max_tokens: int = 1024  # cap on generated tokens per reply
    max_concurrency: int = 64  # requests in flight at once from one client
    extra_body: Mapping[str, Any] = field(default_factory=dict)  # server-specific fields
    # (vLLM: top_k, repetition_penalty, chat_template_kwargs...), merged into every request

    def __post_init__(self) -> None:
        if not self.base_url:
            raise ValueError("ModelConfig.base_url is empty")
        if self.max_concurrency < 1 or self.max_retries < 0 or self.timeout_s <= 0:
            raise ValueError("max_concurrency >= 1, max_retries >= 0 and timeout_s > 0 please")

    @classmethod
    def from_env(cls, **overrides: Any) -> ModelConfig | None:
        """Read the endpoint from the environment; ``overrides`` win over it.

        WEBDOJO_MODEL_BASE_URL (else OPENAI_BASE_URL), WEBDOJO_MODEL, WEBDOJO_API_KEY (else
        OPENAI_API_KEY, else "EMPTY"). Returns None when no endpoint is configured at all.
        """
        env = os.environ
        found: dict[str, Any] = {
            "base_url": env.get("WEBDOJO_MODEL_BASE_URL") or env.get("OPENAI_BASE_URL") or "",
            "model": env.get("WEBDOJO_MODEL", ""),
            "api_key": env.get("WEBDOJO_API_KEY") or env.get("OPENAI_API_KEY") or NO_KEY,
        }
        found.update({k: v for k, v in overrides.items() if v is not None})
        if not found["base_url"]:
            return None
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(found) - known
        if unknown:
            raise TypeError(f"unknown ModelConfig fields: {', '.join(sorted(unknown))}")
        return cls(**found)

    def redacted(self) -> dict[str, Any]:
        """The config as a dict without the key, for logs and run records."""
        out = dataclasses.asdict(self)
        out["api_key"] = "***" if self.api_key != NO_KEY else NO_KEY
        out["extra_body"] = dict(self.extra_body)
        return out
