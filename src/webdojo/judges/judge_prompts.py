"""The model judges' prompts, in webdojo's own words.

Each ``Prompt`` has a ``version`` that is part of every cached reply's key: change a prompt's
wording and bump its version, and the next ``webdojo judge`` asks again instead of reusing
replies to the old wording. The facts of the papers carry over (what WebGym's evaluator checks
and in which order, Weblica's three labels and its signs of a broken website); the sentences
are ours.

    keypoint         one screenshot: does it bear on the task? (high recall: when unsure, yes)
    fact             one rubric fact against the keypoint screenshots
    answer           every claim of the final answer against the screenshots (hallucination)
    blocking         sampled screenshots: did the site block the agent for good?
    reference        the agent's answer against the task's reference answers (text only)
    task             the whole task in one question, no rubric (WebGym's task-only baseline)
    website_failure  the whole trajectory: success, failure, or a website failure (Weblica)
"""

from __future__ import annotations

from dataclasses import dataclass

from webdojo.judges.trajectory import Trajectory
from webdojo.tasks.schema import ReferenceAnswer

_REPAIR = (
    "Your reply could not be read: {error}. Please answer again in the requested format, "
    "ending with the requested line."
)
_VERDICT_END = "End your reply with exactly one line 'Verdict: SUCCESS' or 'Verdict: NOT SUCCESS'."
MAX_HISTORY_STEPS = 60  # longer histories keep their first and last steps
MAX_ACTION_CHARS = 240


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str  # in the cache key: bump it whenever the wording changes
    system: str
    closing: str  # the last line of the user message, after the screenshots
    repair: str = _REPAIR  # sent after a reply that did not parse ({error})


KEYPOINT = Prompt(
    "keypoint",
    "1",
    "You help grade a web-browsing agent. You are shown ONE screenshot from its session and "
    "decide whether a grader should look at it. Say YES when the page shows anything that "
    "bears on the task: a search or its results, a page the task is about, a form being "
    "filled, a cart, a confirmation, an error or a page that blocks the agent. Say NO only "
    "for pages with nothing to do with the task: an unrelated site, an empty page, an "
    "advertisement, a generic start page with no progress on it. If you are unsure, say YES.",
    "Reply with two lines:\nReason: <one sentence>\nRelevant: YES or NO",
)

FACT = Prompt(
    "fact",
    "1",
    "You grade a web-browsing agent, one fact at a time. Decide whether the screenshots of "
    "its session establish the FACT TO CHECK. The task and the fact's group are context only; "
    "the agent's final answer is not evidence (another check covers it). Rules:\n"
    "- Every part of the fact must be visible in the screenshots; a similar item, a nearby "
    "date or a different quantity does not count.\n"
    "- Alternatives joined by 'or' are satisfied by any one of them.\n"
    "- Name the screenshots you rely on by their step, e.g. 'step 4'.\n"
    "Write a short analysis, then the verdict: SUCCESS if the screenshots establish the fact, "
    "NOT SUCCESS otherwise.",
    _VERDICT_END,
)

ANSWER = Prompt(
    "answer",
    "1",
    "You check a web-browsing agent's final answer for claims it did not see. List the "
    "concrete claims of the answer (names, numbers, prices, dates, places, yes/no findings) "
    "and, for each one, whether a screenshot of the session shows it (name the step). Agents "
    "often invent plausible details, so do not give the benefit of the doubt. An answer that "
    "says the information could not be found is supported only if the screenshots agree. "
    "Verdict: SUCCESS if every claim is shown in the screenshots, NOT SUCCESS if any is not.",
    _VERDICT_END,
)

BLOCKING = Prompt(
    "blocking",
    "1",
    "You look at screenshots from a web-browsing agent's session and decide whether the "
    "website shut the agent out for good with anti-bot measures. Answer YES only for a "
    "persistent block the agent could not navigate around: a CAPTCHA or 'verify you are "
    "human' challenge that stays, a bot-protection screen that never clears ('checking your "
    "browser'), an 'access denied' or 403 page that keeps coming back, a notice that "
    "automated access was detected, a login wall in front of everything the task needs. "
    "Answer NO for the agent's own mistakes, slow pages that loaded in the end, 'not found' "
    "pages, empty search results, or obstacles it could have gone back from.",
    "Reply with two lines:\nReason: <one or two sentences>\nBlocked: YES or NO",
)

REFERENCE = Prompt(
    "reference",
    "1",
    "You compare a web-browsing agent's final answer with the reference answer(s) of its "
    "task. The answer agrees when it states the same result as a reference: wording, order, "
    "units written differently and extra correct detail are fine; a different value, a "
    "missing part of the result or a hedge between several results is not. A reference "
    "marked 'possible' is one acceptable answer among others.",
    "Reply with two lines:\nReason: <one or two sentences>\nAgrees: YES or NO",
)

TASK = Prompt(
    "task",
    "1",
    "You grade a web-browsing agent. From the task, the agent's actions, its final answer "
    "and the screenshots of its session, decide whether it completed the task: every "
    "requirement of the task met, the exact item asked for (not a similar one), and any "
    "answer supported by what the screenshots show. Name the screenshots you rely on by "
    "their step. Write a short analysis, then the verdict.",
    _VERDICT_END,
)

WEBSITE_FAILURE = Prompt(
    "website_failure",
    "1",
    "You grade a web-browsing agent on one task, from its actions and the screenshots of its "
    "session, against the task's criteria. There are three verdicts:\n"
    "- SUCCESS: the agent completed the task; every criterion is met.\n"
    "- FAILURE: the agent did not complete it through its own doing (wrong item, wrong "
    "page, gave up, invented an answer, ran out of steps).\n"
    "- WEBSITE FAILURE: the agent was on a sensible path but the website itself broke: "
    "pages that never load or stay blank, server or connection errors, endless spinners, a "
    "CAPTCHA or bot check, controls that do not respond however often it tries. Telltale "
    "signs: the same sensible action repeated without effect, waits with no progress, error "
    "pages in the screenshots.\n"
    "Choose WEBSITE FAILURE only when the agent had not already gone wrong on its own; if it "
    "had, the verdict is FAILURE. Name the screenshots you rely on by their step.",
    "End your reply with exactly one line 'Verdict: SUCCESS', 'Verdict: FAILURE' or "
    "'Verdict: WEBSITE FAILURE'.",
)

PROMPTS = {p.name: p for p in (KEYPOINT, FACT, ANSWER, BLOCKING, REFERENCE, TASK, WEBSITE_FAILURE)}


# --- the user messages -----------------------------------------------------------------------


def history_text(trajectory: Trajectory) -> str:
    """The agent's actions, one line per step: ``step 3 (url): click(element=5)``."""
    lines = []
    for step in trajectory.steps:
        action = step.action.describe() if step.action is not None else f"(unparsed) {step.text}"
        action = " ".join(action.split())
        if len(action) > MAX_ACTION_CHARS:
            action = action[: MAX_ACTION_CHARS - 3] + "..."
        lines.append(f"step {step.step} ({step.url}): {action}")
    if len(lines) > MAX_HISTORY_STEPS:
        half = MAX_HISTORY_STEPS // 2
        lines = [*lines[:half], f"... {len(lines) - 2 * half} steps left out ...", *lines[-half:]]
    return "\n".join(lines) or "(no actions)"


def _answer(trajectory: Trajectory) -> str:
    return (trajectory.answer or "").strip() or "(the agent gave no final answer)"


def _instruction(trajectory: Trajectory) -> str:
    return trajectory.task.instruction if trajectory.task is not None else "(unknown task)"


def bullet(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def keypoint_text(trajectory: Trajectory, facts: list[str]) -> str:
    text = f"Task: {_instruction(trajectory)}"
    if facts:
        text += f"\n\nWhat a successful attempt must show:\n{bullet(facts)}"
    return text + "\n\nIs this screenshot relevant to the task?"


def fact_text(trajectory: Trajectory, group: str, fact: str) -> str:
    return (
        f"Task (context only): {_instruction(trajectory)}\n\n"
        f"Fact group (context only): {group}\n\n"
        f"FACT TO CHECK: {fact}\n\n"
        f"The agent's actions:\n{history_text(trajectory)}\n\n"
        "The screenshots of its session follow."
    )


def answer_text(trajectory: Trajectory) -> str:
    return (
        f"Task: {_instruction(trajectory)}\n\n"
        f"The agent's final answer:\n{_answer(trajectory)}\n\n"
        "The screenshots of its session follow."
    )


def blocking_text(trajectory: Trajectory) -> str:
    return (
        f"Task: {_instruction(trajectory)}\n\n"
        f"The agent's actions:\n{history_text(trajectory)}\n\n"
        "Screenshots sampled from the session follow. Did the website block the agent?"
    )


def reference_text(trajectory: Trajectory, references: list[ReferenceAnswer]) -> str:
    shown = "\n".join(f"- ({r.type}) {r.answer}" for r in references)
    return (
        f"Task: {_instruction(trajectory)}\n\n"
        f"Reference answer(s):\n{shown}\n\n"
        f"The agent's final answer:\n{_answer(trajectory)}\n\n"
        "Does the agent's answer agree with a reference answer?"
    )


def task_text(trajectory: Trajectory) -> str:
    return (
        f"Task: {_instruction(trajectory)}\n\n"
        f"The agent's actions:\n{history_text(trajectory)}\n\n"
        f"The agent's final answer:\n{_answer(trajectory)}\n\n"
        "The screenshots of its session follow. Did the agent complete the task?"
    )


def website_failure_text(trajectory: Trajectory, criteria: list[str]) -> str:
    return (
        f"Task: {_instruction(trajectory)}\n\n"
        f"Criteria for this task:\n{bullet(criteria)}\n\n"
        f"The agent's actions:\n{history_text(trajectory)}\n\n"
        f"The agent's final answer:\n{_answer(trajectory)}\n\n"
        "The screenshots of its session follow."
    )
