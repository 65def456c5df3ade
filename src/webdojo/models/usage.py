"""Tokens, images and money spent on model calls, as the API's ``usage`` reports them."""

from __future__ import annotations

from dataclasses import dataclass

from webdojo.models.client import ChatResult


@dataclass
class Usage:
    """Tokens spent by this run, as the API's ``usage`` reported them (failed attempts too)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    images: int = 0  # pictures an image model drew (not among ``calls``)

    def add(self, result: ChatResult) -> None:
        self.calls += 1
        self.prompt_tokens += result.usage.get("prompt_tokens", 0)
        self.completion_tokens += result.usage.get("completion_tokens", 0)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Price:
    """Prices per million tokens and per image; the cost is unknown (None) unless a token price
    or a non-zero image price is given."""

    input_per_m: float | None = None
    output_per_m: float | None = None
    per_image: float = 0.0  # one generated image

    def cost(self, usage: Usage) -> float | None:
        if self.input_per_m is None and self.output_per_m is None and not self.per_image:
            return None
        cost_in = usage.prompt_tokens * (self.input_per_m or 0.0)
        cost_out = usage.completion_tokens * (self.output_per_m or 0.0)
        return round((cost_in + cost_out) / 1e6 + usage.images * self.per_image, 6)
