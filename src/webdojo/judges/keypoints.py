"""Which screenshots a judge looks at.

Keypoints (WebGym, after Online-Mind2Web): every screenshot but the last is put to the model on
its own, all at once (the client's semaphore bounds the requests), with the task and its facts:
is this page relevant? Recall comes first: the prompt says "when unsure, yes", a reply that
never parses keeps its screenshot, and the final page is always kept without asking. Relevant
screenshots beyond ``max_images`` are cut by recency: the final page and the most recent
relevant ones stay, because the evidence of a web task (results, the item's page, the cart, a
confirmation) piles up towards its end, and the relevance answer is yes/no, not a score.

``sampled`` spreads a fixed number of screenshots over a whole trajectory (first and last
included), for the blocking check and the website-failure judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from webdojo.errors import ModelOutputInvalid
from webdojo.judges.judge_model import JudgeModel, Picture, Question, Tally, gather_all
from webdojo.judges.judge_prompts import KEYPOINT, keypoint_text
from webdojo.judges.trajectory import Shot, Trajectory
from webdojo.judges.verdict_text import Reading, read_yes_no
from webdojo.store.verdicts import Criterion

MAX_REASON = 80  # characters of each left-out screenshot's reason in the criterion


@dataclass(frozen=True)
class Keypoints:
    pictures: list[Picture]  # the screenshots to show, in step order (final page last)
    criterion: Criterion  # what was selected and why


def _relevant(text: str) -> Reading:
    return read_yes_no(text, "Relevant")


async def _ask(
    model: JudgeModel, trajectory: Trajectory, facts: list[str], shot: Shot, tally: Tally
) -> Reading:
    question = Question(
        KEYPOINT,
        keypoint_text(trajectory, facts),
        _relevant,
        [Picture.of(trajectory, shot)],
        topic=f"keypoint step {shot.step}",
    )
    try:
        return (await model.ask(question, tally)).value
    except ModelOutputInvalid:
        tally.note(f"keypoints: the reply on step {shot.step} never parsed; kept it")
        return Reading("yes", "kept: the reply never parsed")


async def select_keypoints(
    model: JudgeModel, trajectory: Trajectory, facts: list[str], tally: Tally
) -> Keypoints:
    """The keypoint screenshots of ``trajectory`` (see the module docstring)."""
    shots = trajectory.shots
    *earlier, final = shots
    readings = await gather_all(_ask(model, trajectory, facts, s, tally) for s in earlier)
    relevant = [s for s, r in zip(earlier, readings, strict=True) if r.value == "yes"]
    cap = max(1, model.options.max_images)
    kept = [*relevant[max(0, len(relevant) - cap + 1) :], final] if cap > 1 else [final]
    if len(relevant) + 1 > cap:
        tally.note(
            f"keypoints: {len(relevant) + 1} screenshots relevant; kept the final page and "
            f"the {cap - 1} most recent (at most {cap} images)"
        )
    left_out = [
        f"step {s.step} ({_short(r.reason)})"
        for s, r in zip(earlier, readings, strict=True)
        if r.value != "yes"
    ]
    reason = (
        f"{len(relevant) + 1} of {len(shots)} screenshots relevant (the final page always); "
        f"shown: steps {', '.join(str(s.step) for s in kept)}"
    )
    if left_out:
        reason += "; irrelevant: " + "; ".join(left_out)
    criterion = Criterion(
        name="keypoints",
        kind="keypoints",
        passed=None,
        reason=reason,
        evidence=[s.step for s in kept],
    )
    pictures = [Picture.of(trajectory, s, priority=int(s is final)) for s in kept]
    return Keypoints(pictures, criterion)


def sampled(shots: list[Shot], n: int) -> list[Shot]:
    """At most ``n`` of ``shots``, evenly spread, the first and the last included."""
    if len(shots) <= n:
        return list(shots)
    if n <= 1:
        return shots[-1:]
    picks = sorted({round(i * (len(shots) - 1) / (n - 1)) for i in range(n)})
    return [shots[i] for i in picks]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."
