"""Run many generation jobs against one model: bounded concurrency, the reply cache, token and
cost accounting. Shared by rubric generation and decomposition.

A job is one model question (with its validation retries) identified by its cache key. Jobs
whose key is cached are answered from the cache without a call; the rest run with at most
``concurrency`` in flight, each accepted reply going to the cache as soon as it arrives. A job
that fails (endpoint errors after the client's own retries, or replies that never validate) is
recorded with its error; the run goes on. When the endpoint fails many jobs in a row, the run
stops (the endpoint is down or misconfigured): what was done is in the cache for the next run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from webdojo.errors import ModelError, ModelOutputInvalid, WebdojoError
from webdojo.models.ask import ask_until_valid
from webdojo.models.client import ModelClient
from webdojo.models.reply_cache import ReplyCache
from webdojo.models.usage import Price, Usage

MAX_CONSECUTIVE_ENDPOINT_ERRORS = 20


class Outcome(StrEnum):
    GENERATED = "generated"  # the model was asked and a reply validated
    CACHED = "cached"  # the cache had the reply
    FAILED = "failed"  # no usable reply; ``error`` says why


@dataclass(frozen=True)
class Job:
    key: str  # the cache key (see ``cache.content_key``); unique within a run
    label: str  # what people see for it: a task id, or a child task id
    make: Callable[[], Awaitable[Any]]  # asks the model; returns the JSON value to cache


@dataclass(frozen=True)
class JobResult:
    job: Job
    outcome: Outcome
    error: str | None = None


@dataclass
class Tally:
    generated: int = 0
    cached: int = 0
    failures: dict[str, str] = field(default_factory=dict)  # key -> error

    def count(self, result: JobResult) -> None:
        if result.outcome is Outcome.GENERATED:
            self.generated += 1
        elif result.outcome is Outcome.CACHED:
            self.cached += 1
        else:
            self.failures[result.job.key] = result.error or "unknown error"


OnResult = Callable[[JobResult], None]


async def run_jobs(
    jobs: Sequence[Job],
    cache: ReplyCache,
    *,
    concurrency: int,
    on_result: OnResult | None = None,
    max_consecutive_errors: int = MAX_CONSECUTIVE_ENDPOINT_ERRORS,
) -> Tally:
    """Answer every job (see the module docstring). Raises ``ModelError`` when the endpoint
    failed ``max_consecutive_errors`` jobs in a row."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    tally = Tally()

    def record(result: JobResult) -> None:
        tally.count(result)
        if on_result is not None:
            on_result(result)

    for job in jobs:  # cache hits first: no waiting behind the model for them
        if job.key in cache:
            record(JobResult(job, Outcome.CACHED))
    state = _RunState((job for job in jobs if job.key not in cache), max_consecutive_errors)
    workers = [_worker(state, cache, record) for _ in range(concurrency)]
    await asyncio.gather(*workers)
    if state.stopped is not None:
        raise state.stopped
    return tally


@dataclass
class _RunState:
    todo: Iterator[Job]
    max_consecutive_errors: int
    consecutive_errors: int = 0
    stopped: ModelError | None = None


async def _worker(state: _RunState, cache: ReplyCache, record: OnResult) -> None:
    while state.stopped is None:
        job = next(state.todo, None)
        if job is None:
            return
        record(await _answer(job, cache, state))


async def _answer(job: Job, cache: ReplyCache, state: _RunState) -> JobResult:
    try:
        value = await job.make()
    except ModelOutputInvalid as exc:  # the endpoint works; this input is the problem
        state.consecutive_errors = 0
        return JobResult(job, Outcome.FAILED, exc.message)
    except ModelError as exc:
        state.consecutive_errors += 1
        if state.consecutive_errors >= state.max_consecutive_errors and state.stopped is None:
            state.stopped = ModelError(
                f"the model endpoint failed {state.consecutive_errors} requests in a row "
                f"(last: {exc.message}); stopped. Replies so far are cached: fix the endpoint "
                "and run the same command again to resume",
                **exc.details,
            )
        return JobResult(job, Outcome.FAILED, exc.message)
    except WebdojoError as exc:
        return JobResult(job, Outcome.FAILED, exc.message)
    state.consecutive_errors = 0
    cache.put(job.key, value, label=job.label)
    return JobResult(job, Outcome.GENERATED)


@dataclass(frozen=True)
class GenConfig:
    """How a generation command runs (the CLI flags)."""

    concurrency: int = 8  # model requests in flight
    attempts: int = 3  # replies per question, the validation retries included
    force: bool = False  # regenerate what the input already has
    price: Price = field(default_factory=Price)  # per million tokens, for the cost line
    max_tokens: int = 2048  # cap on one reply's tokens
    stop_after_errors: int = MAX_CONSECUTIVE_ENDPOINT_ERRORS  # endpoint failures in a row


@dataclass
class GenReport:
    """What a generation command did, for the summary table and ``--json``."""

    command: str
    tasks: int = 0  # tasks read
    kept: int = 0  # already had what this command makes (not --force): left as they were
    generated: int = 0  # model replies accepted in this run
    cached: int = 0  # replies taken from the cache
    failed: list[tuple[str, str]] = field(default_factory=list)  # (task id, why)
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    written: int = 0  # tasks in the output file
    extra: dict[str, Any] = field(default_factory=dict)  # command-specific counts

    def to_json(self, max_failures: int = 50) -> dict[str, Any]:
        return {
            "command": self.command,
            "tasks": self.tasks,
            "generated": self.generated,
            "cached": self.cached,
            "kept": self.kept,
            "failed": len(self.failed),
            **self.extra,
            "written": self.written,
            "calls": self.usage.calls,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "tokens": self.usage.tokens,
            "cost": self.cost,
            "failures": [{"id": i, "error": e} for i, e in self.failed[:max_failures]],
        }


def asker(
    client: ModelClient,
    messages: list[dict[str, Any]],
    parse: Callable[[str], dict[str, Any]],
    repair: str,
    config: GenConfig,
    usage: Usage,
) -> Callable[[], Awaitable[dict[str, Any]]]:
    """A job's ``make``: ask until a reply parses, with the run's attempts and token cap."""

    async def ask() -> dict[str, Any]:
        return await ask_until_valid(
            client,
            messages,
            parse,
            attempts=config.attempts,
            repair=repair,
            usage=usage,
            max_tokens=config.max_tokens,
        )

    return ask
