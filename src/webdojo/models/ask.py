"""Ask the model until its reply validates, showing it what was wrong each time.

Transport failures (connection errors, timeouts, 429, 5xx) are retried by ``ModelClient`` itself
and leave as ``ModelError`` when they persist. This module adds the other kind of retry: the
endpoint answered, but the text is unusable (not JSON, a missing field...). The reply and the
validation error go back into the conversation and the model tries again, at most ``attempts``
replies in all; then ``ModelOutputInvalid``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from webdojo.errors import ModelOutputInvalid
from webdojo.models.client import ModelClient
from webdojo.models.usage import Usage

T = TypeVar("T")


class ReplyRejected(ValueError):
    """A reply that failed validation. The message is shown to the model, so it says what was
    wrong and what was expected."""


async def ask_until_valid(
    client: ModelClient,
    messages: list[dict[str, Any]],
    parse: Callable[[str], T],
    *,
    attempts: int,
    repair: str,
    usage: Usage,
    **chat_kw: Any,
) -> T:
    """``parse(reply text)`` of the first reply that parses. ``repair`` is the template of the
    follow-up message (``{error}`` in it)."""
    conversation = list(messages)
    problem = ""
    for _ in range(max(1, attempts)):
        result = await client.chat(conversation, **chat_kw)
        usage.add(result)
        try:
            return parse(result.text)
        except ReplyRejected as exc:
            problem = str(exc)
            if result.finish_reason == "length":
                problem += " (the reply was cut off at the token limit: be more concise)"
        conversation += [
            {"role": "assistant", "content": result.text},
            {"role": "user", "content": repair.format(error=problem)},
        ]
    raise ModelOutputInvalid(
        f"no valid reply in {max(1, attempts)} attempt(s); last problem: {problem}",
        attempts=max(1, attempts),
    )
