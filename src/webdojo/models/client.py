"""The one client every model call goes through: policies, judges, rubric and site generators.

It wraps the official ``openai.AsyncOpenAI`` (so any OpenAI-compatible server works: vLLM,
SGLang, hosted APIs) and adds what a rollout engine needs on top:

* a concurrency cap (a semaphore), so thousands of episodes do not open thousands of requests;
* retries with exponential backoff and jitter on transient failures (connection errors,
  timeouts, 429, 5xx) - the openai client's own retries are switched off so there is one policy;
* a hard per-attempt deadline;
* error translation: every openai (and underlying HTTP) failure leaves as ``ModelError`` or ``ModelTimeout``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

from webdojo.errors import ModelError, ModelTimeout
from webdojo.models.config import ModelConfig

T = TypeVar("T")

_DEADLINE_GRACE_S = 1.0  # the client's own timeout should fire first; this is the backstop
_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class ChatResult:
    """One chat completion, reduced to what callers record."""

    text: str  # choices[0].message.content
    usage: dict[str, int] = field(default_factory=dict)  # prompt/completion/total tokens
    latency_s: float = 0.0  # wall time of the call, retries included, queueing excluded
    model: str = ""  # the model name the server reports
    finish_reason: str | None = None  # "stop", "length"...
    attempts: int = 1  # 1 + the number of retries it took


class ModelClient:
    """Async chat client for one endpoint. Use as ``async with ModelClient(cfg) as client``."""

    def __init__(self, config: ModelConfig) -> None:
        import openai  # here, not at the top: it takes about a second to import (every CLI
        # command and worker would pay it, most never call a model)

        self.config = config
        self._client = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key,
            timeout=config.timeout_s,
            max_retries=0,  # we retry ourselves, with our own error translation
        )
        self._semaphore = asyncio.Semaphore(config.max_concurrency)
        self._model: str | None = config.model or None

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.close()

    # --- calls ----------------------------------------------------------------------------

    async def chat(
        self, messages: list[dict[str, Any]], *, allow_empty: bool = False, **kw: Any
    ) -> ChatResult:
        """One chat completion. ``kw`` overrides the config's sampling settings (temperature,
        max_tokens, top_p, stop, seed, model...) for this call. A reply without text raises
        ``ModelError`` unless ``allow_empty``: a policy's model that answers with nothing has
        failed the task (its reward is 0), which a broken endpoint has not."""
        model = kw.pop("model", None) or await self.model_name()
        params = self._params(model, messages, kw)
        async with self._semaphore:
            start = time.perf_counter()
            completion, attempts = await self._retrying(
                lambda: self._client.chat.completions.create(**params)
            )
            latency = time.perf_counter() - start
        return _to_result(completion, latency, attempts, model, allow_empty)

    async def model_name(self) -> str:
        """The configured model, or the endpoint's first listed model when none was given."""
        if self._model is None:
            ids = await self.list_models()
            if not ids:
                raise ModelError(
                    f"{self.config.base_url} serves no models", url=self.config.base_url
                )
            self._model = ids[0]
        return self._model

    async def list_models(self, *, retries: int | None = None) -> list[str]:
        page, _ = await self._retrying(lambda: self._client.models.list(), retries=retries)
        return [m.id for m in getattr(page, "data", [])]

    async def ping(self) -> str:
        """Say whether the endpoint answers, in one line (for ``webdojo doctor``). One attempt;
        raises ``ModelError``/``ModelTimeout`` when it cannot be reached."""
        return (await self.probe())[0]

    async def probe(self) -> tuple[str, list[str] | None]:
        """``ping``'s line and the models the endpoint lists (None: it has no /models route,
        so a one-token chat answered instead)."""
        url = self.config.base_url
        try:
            ids = await self.list_models(retries=0)
        except ModelError as exc:
            if exc.details.get("status") != 404:
                raise
            # Some servers do not implement /models: ask for a single token instead.
            result = await self._one_token_chat()
            line = f"{url}: reachable, model {result.model!r} answered in {result.latency_s:.2f}s"
            return line, None
        return f"{url}: reachable, {len(ids)} model(s): {_some(ids)}", ids

    async def _one_token_chat(self) -> ChatResult:
        params = self._params(
            self.config.model or "default", [{"role": "user", "content": "ping"}], {"max_tokens": 1}
        )
        start = time.perf_counter()
        completion, attempts = await self._retrying(
            lambda: self._client.chat.completions.create(**params), retries=0
        )
        model = getattr(completion, "model", "") or params["model"]
        return ChatResult("", {}, time.perf_counter() - start, model, None, attempts)

    # --- retries and translation ----------------------------------------------------------

    def _params(
        self, model: str, messages: list[dict[str, Any]], kw: dict[str, Any]
    ) -> dict[str, Any]:
        cfg = self.config
        params: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
        }
        if cfg.top_p is not None:
            params["top_p"] = cfg.top_p
        extra = {**cfg.extra_body, **kw.pop("extra_body", {})}
        params.update(kw)
        if extra:
            params["extra_body"] = extra
        return params

    async def _retrying(
        self, call: Callable[[], Awaitable[T]], *, retries: int | None = None
    ) -> tuple[T, int]:
        """Run ``call`` with a deadline, retrying transient failures; translate the last one."""
        max_retries = self.config.max_retries if retries is None else retries
        for attempt in range(max_retries + 1):
            try:
                async with asyncio.timeout(self.config.timeout_s + _DEADLINE_GRACE_S):
                    return await call(), attempt + 1
            except Exception as exc:
                error = translate_error(exc, self.config)
                if error is None:
                    raise  # a bug of ours (bad argument...), not the endpoint's fault
                if attempt >= max_retries or not _is_transient(exc):
                    error.details["attempts"] = attempt + 1
                    raise error from exc
                await asyncio.sleep(self._backoff(attempt, exc))
        raise AssertionError("unreachable")

    def _backoff(self, attempt: int, exc: Exception) -> float:
        cfg = self.config
        delay = min(cfg.backoff_max_s, cfg.backoff_s * 2**attempt)
        hinted = _retry_after(exc)
        if hinted is not None:
            delay = min(cfg.backoff_max_s, max(delay, hinted))
        return delay * random.uniform(0.5, 1.0)


async def check_endpoint(config: ModelConfig) -> str:
    """Before a job's first episode: one line saying the endpoint answers, or ``ModelError``
    (exit 3 in the CLI) when it cannot be reached or does not serve ``config.model``. A dead
    endpoint found here costs nothing; found by the episodes, it would fault every one."""
    async with ModelClient(config) as client:
        line, served = await client.probe()
    if config.model and served and config.model not in served:
        raise ModelError(
            f"{config.base_url} does not serve the model {config.model!r} (it serves: "
            f"{_some(served)}); pass --model with one of those",
            url=config.base_url,
            model=config.model,
        )
    return line


def _some(names: list[str]) -> str:
    """The first few names, for a one-line message."""
    return ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")


def _is_transient(exc: Exception) -> bool:
    import openai  # loaded by the client already: a lookup

    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _TRANSIENT_STATUS or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError | TimeoutError)


def _retry_after(exc: Exception) -> float | None:
    """The server's Retry-After hint in seconds, if it sent one."""
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def translate_error(exc: BaseException, config: ModelConfig) -> ModelError | None:
    """Our error for a library failure; None for exceptions that are not the endpoint's."""
    import openai  # loaded by the client already: a lookup

    url = config.base_url
    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return ModelTimeout(
            f"model endpoint {url} did not answer within {config.timeout_s:g}s", url=url
        )
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(f"cannot reach model endpoint {url}: {_cause(exc)}", url=url)
    if isinstance(exc, openai.APIStatusError):
        return ModelError(
            f"model endpoint {url} answered HTTP {exc.status_code}: {_short(exc.message)}",
            url=url,
            status=exc.status_code,
        )
    if isinstance(exc, openai.OpenAIError | ValueError):
        # APIResponseValidationError, or a body that is not the JSON it promised.
        return ModelError(
            f"model endpoint {url} sent a malformed response: {_short(str(exc))}", url=url
        )
    return None


def _cause(exc: BaseException) -> str:
    inner = exc.__cause__ or exc.__context__
    return _short(f"{exc} ({type(inner).__name__}: {inner})" if inner else str(exc))


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _to_result(
    completion: Any, latency_s: float, attempts: int, model: str, allow_empty: bool = False
) -> ChatResult:
    """Check the envelope: a reply without text is the endpoint's failure, not the agent's
    (unless ``allow_empty``: then an empty content is the model's answer)."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ModelError("model endpoint returned no choices", attempts=attempts)
    choice = choices[0]
    message = getattr(choice, "message", None)
    text = getattr(message, "content", None)
    finish = getattr(choice, "finish_reason", None)
    if not isinstance(text, str) or not (allow_empty or text.strip()):
        raise ModelError(
            f"model returned an empty reply (finish_reason={finish!r})", attempts=attempts
        )
    return ChatResult(
        text=text,
        usage=_usage(getattr(completion, "usage", None)),
        latency_s=latency_s,
        model=getattr(completion, "model", None) or model,
        finish_reason=finish,
        attempts=attempts,
    )


def _usage(usage: Any) -> dict[str, int]:
    if usage is None:
        return {}
    keys = ("prompt_tokens", "completion_tokens", "total_tokens")
    return {k: int(v) for k in keys if isinstance(v := getattr(usage, k, None), int)}
