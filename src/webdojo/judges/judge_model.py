"""How every model judge asks its questions: one place for caching, usage, retries and fitting.

``JudgeModel.ask(question, tally)`` sends a prompt with screenshots and returns the parsed reply:

* cached: the key is ``content_key(prompt name, prompt version, model, prompt text, image
  names)``. Screenshot paths are content-addressed, so their names stand for their bytes. A
  second pass over a run pays nothing;
* validated: a reply the question's parser rejects is shown its error and asked again
  (``models.ask.ask_until_valid``), ``options.attempts`` replies in all, then
  ``ModelOutputInvalid`` (the judge turns it into an unparseable ``infra_error`` verdict);
* fitted: at most ``options.max_images`` images go in one request (the highest priority, then
  the most recent, are kept). When the endpoint still answers that the request exceeds the
  model's context (HTTP 400 "maximum context length", 413...), the images are downscaled (the
  longest side halved, down to ``MIN_SIDE``) and then the oldest are dropped, one at a time.
  Every such step lands in the verdict's notes. When even one image at ``MIN_SIDE`` does not
  fit: ``ContextTooLong``;
* counted: every request (validation retries and refused ones included) and cached reply goes
  into the verdict's ``Tally``.

Transport failures (connection refused, timeouts, 429 and 5xx after the client's own retries)
leave as ``ModelError``: the endpoint is down and the runner stops.
"""

from __future__ import annotations

import asyncio
import io
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from PIL import Image

from webdojo.errors import ConfigError, ContextTooLong, ModelError, WebdojoError
from webdojo.judges.base import JudgeOptions, error_verdict
from webdojo.judges.judge_prompts import Prompt
from webdojo.judges.trajectory import Shot, Trajectory
from webdojo.models import ModelClient, image_part, message
from webdojo.models.ask import ReplyRejected, ask_until_valid
from webdojo.models.reply_cache import content_key
from webdojo.models.usage import Usage
from webdojo.store.verdicts import JudgeUsage, Verdict

T = TypeVar("T")

NEEDS_MODEL = "this judge needs a model endpoint: --model-base-url or WEBDOJO_MODEL_BASE_URL"
MIN_SIDE = 320  # px: below this a screenshot's text is no longer legible to a judge
_CONTEXT_SIGNS = re.compile(
    r"maximum context length|context[_ ]length[_ ]exceeded|context window|too many tokens|"
    r"prompt is too long|input is too long|too long for the model|maximum model length|"
    r"reduce the length|exceeds? the (?:model'?s )?(?:maximum|context)|"
    r"too many images|image\(s\) may be provided",
    re.I,
)


@dataclass(frozen=True)
class Picture:
    """One screenshot as a judge sends it."""

    step: int  # the step whose observation it is (len(steps): the page after the last one)
    name: str  # its path in the run: content-addressed, so it stands for the bytes in keys
    data: bytes
    format: str  # "jpeg", "png"...
    label: str  # how the prompt names it: "step 3", "step 7 (the final page)"
    priority: int = 0  # kept first when a request has too many images

    @classmethod
    def of(cls, trajectory: Trajectory, shot: Shot, priority: int = 0) -> Picture:
        final = shot.step >= len(trajectory.steps)
        label = f"step {shot.step}" + (" (the final page)" if final else "")
        fmt = trajectory.image_format(shot)
        data = trajectory.image(shot)
        return cls(shot.step, shot.path, data, fmt, label, priority)


@dataclass(frozen=True)
class Question(Generic[T]):
    """One question: a prompt, its filled-in text, the screenshots, and how to read a reply."""

    prompt: Prompt
    text: str  # the user message before the screenshots
    parse: Callable[[str], T]  # raises ReplyRejected for a reply it cannot read
    pictures: list[Picture] = field(default_factory=list)  # oldest first
    topic: str = ""  # names the question in notes: "fact G1.2", "keypoints"


@dataclass(frozen=True)
class Answer(Generic[T]):
    value: T
    text: str  # the reply that parsed
    shown: list[int]  # the steps of the screenshots the model saw
    cached: bool


@dataclass
class Tally:
    """Model calls, tokens and notes for one verdict (a judge keeps one per trajectory)."""

    usage: Usage = field(default_factory=Usage)
    cached: int = 0
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def judge_usage(self, options: JudgeOptions) -> JudgeUsage:
        u = self.usage
        return JudgeUsage(
            calls=u.calls,
            cached=self.cached,
            prompt_tokens=u.prompt_tokens,
            completion_tokens=u.completion_tokens,
            cost=options.price.cost(u),
        )


class JudgeModel:
    """The model a judge asks (see the module docstring). Close it with ``aclose``."""

    def __init__(self, options: JudgeOptions) -> None:
        if options.model is None:
            raise ConfigError(NEEDS_MODEL)
        self.options = options
        self.client = ModelClient(options.model)
        self.resolved: str | None = options.model.model or None  # the model's name, once known

    async def name(self) -> str:
        self.resolved = await self.client.model_name()
        return self.resolved

    async def aclose(self) -> None:
        await self.client.aclose()

    async def ask(self, question: Question[T], tally: Tally) -> Answer[T]:
        pictures = self._capped(question, tally)
        model = await self.name()
        prompt = question.prompt
        key = content_key(
            prompt.name,
            prompt.version,
            model,
            prompt.system,
            question.text,
            *(p.name for p in pictures),
        )
        hit = self._from_cache(key, question, tally)
        if hit is not None:
            return hit
        text, value, shown, notes = await self._fitted(question, pictures, tally)
        for line in notes:
            tally.note(line)
        if self.options.cache is not None:
            value_json = {"text": text, "shown": shown, "notes": notes}
            self.options.cache.put(key, value_json, model=model, prompt=prompt.name)
        return Answer(value, text, shown, cached=False)

    def _capped(self, question: Question[Any], tally: Tally) -> list[Picture]:
        """At most ``max_images``: the highest priority, then the most recent, in step order."""
        pictures, cap = question.pictures, max(1, self.options.max_images)
        if len(pictures) <= cap:
            return list(pictures)
        order = sorted(range(len(pictures)), key=lambda i: (pictures[i].priority, i))
        kept = sorted(order[-cap:])
        tally.note(
            f"{question.topic}: left out {len(pictures) - cap} of {len(pictures)} images "
            f"(at most {cap} per request; kept the highest-priority, then the most recent)"
        )
        return [pictures[i] for i in kept]

    def _from_cache(self, key: str, question: Question[T], tally: Tally) -> Answer[T] | None:
        cache = self.options.cache
        stored = cache.get(key) if cache is not None else None
        if not isinstance(stored, dict) or not isinstance(stored.get("text"), str):
            return None
        try:
            value = question.parse(stored["text"])
        except ReplyRejected:
            return None  # a parser that changed since: ask again
        tally.cached += 1
        for line in stored.get("notes") or []:
            tally.note(str(line))
        shown = [int(s) for s in stored.get("shown") or []]
        return Answer(value, stored["text"], shown, cached=True)

    async def _fitted(
        self, question: Question[T], pictures: list[Picture], tally: Tally
    ) -> tuple[str, T, list[int], list[str]]:
        """Ask with ``pictures``, shrinking them while the endpoint says they do not fit."""
        last: ModelError | None = None
        tried: list[str] = []
        for sent, notes in _fits(pictures, question.topic):
            try:
                text, value = await self._ask_once(question, sent, tally)
            except ModelError as exc:
                if not is_context_error(exc):
                    raise
                tally.usage.calls += 1  # the refused request was sent, too
                last, tried = exc, notes
                continue
            return text, value, [p.step for p in sent], notes
        for line in tried:  # what was tried, for the infra_error verdict
            tally.note(line)
        raise ContextTooLong(
            f"{question.topic}: the request does not fit the model's context, even with one "
            f"image at {MIN_SIDE} px ({last.message if last else 'no reply'})",
            topic=question.topic,
        )

    async def _ask_once(
        self, question: Question[T], pictures: list[Picture], tally: Tally
    ) -> tuple[str, T]:
        prompt = question.prompt
        parts: list[dict[str, Any] | str] = [question.text]
        for index, picture in enumerate(pictures, 1):
            parts.append(f"Screenshot {index}: {picture.label}")
            parts.append(image_part(picture.data, picture.format))
        parts.append(prompt.closing)
        messages = [message("system", prompt.system), message("user", *parts)]
        replies: list[str] = []

        def parse(text: str) -> T:
            value = question.parse(text)
            replies.append(text)
            return value

        value = await ask_until_valid(
            self.client,
            messages,
            parse,
            attempts=self.options.attempts,
            repair=prompt.repair,
            usage=tally.usage,
        )
        return replies[-1], value


def failed_verdict(
    judge: str,
    trajectory: Trajectory,
    exc: WebdojoError,
    tally: Tally,
    model: JudgeModel,
    started: float,
) -> Verdict:
    """The ``infra_error`` verdict of a judge whose question could not be answered (replies
    that never parsed, a context that never fit), with what it spent and noted until then."""
    verdict = error_verdict(judge, trajectory, exc, usage=tally.judge_usage(model.options))
    wall = round(time.perf_counter() - started, 4)
    return verdict.model_copy(
        update={"notes": list(tally.notes), "model": model.resolved, "wall_s": wall}
    )


def is_context_error(exc: ModelError) -> bool:
    """The endpoint refused the request as too long for the model (not a transient failure)."""
    status = exc.details.get("status")
    if status == 413:
        return True
    if status not in (400, 422):
        return False
    cause = exc.__cause__
    text = " ".join(
        str(x) for x in (exc.message, getattr(cause, "code", ""), getattr(cause, "body", ""))
    )
    return bool(_CONTEXT_SIGNS.search(text))


def _fits(pictures: list[Picture], topic: str) -> Iterator[tuple[list[Picture], list[str]]]:
    """Ever smaller versions of ``pictures``, with the notes that say what was done."""
    yield pictures, []
    if not pictures:
        return
    sizes = [_longest_side(p) for p in pictures]
    side, notes = max(sizes), []
    current = pictures
    while side > MIN_SIDE:
        side = max(MIN_SIDE, side // 2)
        shrunk = sum(1 for s in sizes if s > side)
        current = [downscaled(p, side) for p in pictures]
        notes = [f"{topic}: downscaled {shrunk} images to {side} px to fit the model's context"]
        yield current, notes
    for dropped in range(1, len(pictures)):
        yield (
            current[dropped:],
            [
                *notes,
                f"{topic}: dropped {dropped} of {len(pictures)} images (the oldest) "
                "to fit the model's context",
            ],
        )


def _longest_side(picture: Picture) -> int:
    try:
        with Image.open(io.BytesIO(picture.data)) as image:
            return max(image.size)
    except OSError:  # not an image Pillow reads: sent as it is
        return 0


def downscaled(picture: Picture, side: int) -> Picture:
    """``picture`` with its longest side at most ``side`` px (unchanged when it already is, or
    when Pillow cannot read it)."""
    try:
        with Image.open(io.BytesIO(picture.data)) as image:
            if max(image.size) <= side:
                return picture
            fmt = "PNG" if (image.format or "").upper() == "PNG" else "JPEG"
            small = image.convert("RGB") if fmt == "JPEG" else image.copy()
    except OSError:
        return picture
    small.thumbnail((side, side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    small.save(out, format=fmt, **({"quality": 85} if fmt == "JPEG" else {}))
    return replace(picture, data=out.getvalue(), format=fmt.lower())


async def gather_all(coros: Iterable[Awaitable[T]]) -> list[T]:
    """Await ``coros`` concurrently; the first failure cancels the rest and is raised as it is
    (not in an ExceptionGroup), so callers catch ``ModelError`` plainly."""
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(_awaited(c)) for c in coros]
    except BaseExceptionGroup as failures:
        raise failures.exceptions[0] from None
    return [task.result() for task in tasks]


async def _awaited(awaitable: Awaitable[T]) -> T:
    return await awaitable
