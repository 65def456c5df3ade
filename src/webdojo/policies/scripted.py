"""The scripted policy: replays a task's reference solution (or one of its wrong solutions).

Solution steps name elements by ``Target`` (DOM id, or role and accessible name) because
element ids only exist once a page is observed; each step's target is resolved against the
current observation's ``elements``. A target that cannot be found gives a Decision with no
action and an ``unknown_element`` error (the step is tried again on the next observation, so a
page that renders late still works); it never raises.

As a teacher for a prompt template (``template=``), it shows the model only what that template
shows: when its next element is not on the page as the template gives it (off screen, or past
the lines a compact tree keeps), it scrolls toward it first (a look, which does not count as a
solution step), so every id in a demonstration is on a page the model saw.

MiniWoB++ tasks draw their instruction from the episode's seed, so no static solution fits
them: for those without one, the policy asks the task's solver (``webdojo.policies.miniwob``),
which reads the instruction from the page's title (webdojo's page script puts it there).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Literal

from webdojo.actions import Action, Scroll, Stop, action_from_dict
from webdojo.errors import ConfigError, InvalidActionError, UnknownElement
from webdojo.history import Decision, Step
from webdojo.observation import Element, Observation, ObservationOptions
from webdojo.parsing import ParseFormat, render
from webdojo.policies import miniwob
from webdojo.prompts.base import PromptTemplate
from webdojo.tasks.schema import SolutionStep, Target, Task

SolutionGetter = Callable[[Task], Sequence[SolutionStep]]
MAX_LOOKS = 3  # scrolls in a row a teacher takes to bring its next element into view


def reference_solution(task: Task) -> Sequence[SolutionStep]:
    return task.solution


def wrong_solution(index: int = 0) -> SolutionGetter:
    """A getter for ``task.wrong_solutions[index]`` (ConfigError if the task has none)."""

    def get(task: Task) -> Sequence[SolutionStep]:
        if index >= len(task.wrong_solutions):
            raise ConfigError(
                f"task {task.id!r} has {len(task.wrong_solutions)} wrong solutions; "
                f"asked for index {index}"
            )
        return task.wrong_solutions[index]

    return get


def follow(
    steps: Sequence[SolutionStep],
    observation: Observation,
    history: list[Step],
    final: Action,
    text: Callable[[Action], str] | None = None,
) -> Decision:
    """The next decision of a policy that replays ``steps``: the next one resolved against the
    observation, then ``final`` once all are done; ``text`` renders each (default: the plain
    action). A step that cannot be resolved is the agent's error, and is tried again on the
    next observation."""
    start = time.perf_counter()
    text = text or (lambda action: action.describe())
    done = progress(steps, history)
    if done >= len(steps):
        return Decision(text(final), final, latency_s=time.perf_counter() - start)
    try:
        action = resolve_step(steps[done], observation)
    except InvalidActionError as exc:
        message = f"(solution step {done + 1} could not be used: {exc.message})"
        error = exc.info()
        return Decision(message, None, error, latency_s=time.perf_counter() - start)
    return Decision(text(action), action, latency_s=time.perf_counter() - start)


def progress(steps: Sequence[SolutionStep], history: list[Step]) -> int:
    """How many of ``steps`` the history has taken: every action counts, except a scroll where
    the next step is no scroll (a teacher's look, ``ScriptedPolicy``)."""
    done = 0
    for step in history:
        action = step.decision.action
        if action is None:
            continue
        if isinstance(action, Scroll) and done < len(steps) and steps[done].type != "scroll":
            continue
        done += 1
    return done


class ScriptedPolicy:
    """Follows a solution step by step, then stops with an empty answer."""

    name = "scripted"

    def __init__(
        self,
        solution_getter: SolutionGetter | None = None,
        *,
        which: Literal["solution", "wrong"] = "solution",
        index: int = 0,
        wrong_index: int | None = None,
        text_format: ParseFormat | str | None = None,
        screenshot: bool = True,
        template: PromptTemplate | None = None,
    ) -> None:
        """Which solution: ``solution_getter`` if given; else ``wrong_index=i`` (the same as
        ``which="wrong", index=i``); else the reference solution. ``text_format`` renders each
        Decision's text in a model format (handy for making SFT data); default is the
        generic ``click(element=3)`` form. ``screenshot=False`` observes elements only, for
        callers that need just the outcome (``webdojo sites check``).

        ``template``: act as a teacher for that prompt template: observe what it shows a model
        (accessibility tree, screenshots) and write each reply in its syntax, so the stored
        steps are demonstrations a model can be trained on with that template."""
        self._template = template
        if template is not None:
            text_format = template.parse_format
            screenshot = template.observation_options().screenshot
        if wrong_index is not None:
            which, index = "wrong", wrong_index
        if solution_getter is None:
            solution_getter = reference_solution if which == "solution" else wrong_solution(index)
        self._solution = solution_getter
        self._format = ParseFormat(text_format) if text_format is not None else None
        self._screenshot = screenshot

    def observation_options(self) -> ObservationOptions:
        if self._template is not None:  # what the model would see, plus the elements to resolve
            return self._template.observation_options().model_copy(update={"elements": True})
        return ObservationOptions(elements=True, screenshot=self._screenshot)

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        reference = self._solution is reference_solution
        if reference and not task.solution and miniwob.solvable(task):
            decision = miniwob.solve(task, observation, history)
            if decision.action is not None:
                decision = dataclasses.replace(
                    decision, text=self._text(decision.action, observation)
                )
            return decision
        steps = self._solution(task)
        decision = follow(
            steps, observation, history, Stop(), lambda action: self._text(action, observation)
        )
        spare = task.max_steps - len(history) - _left(steps, history)
        return self._look(decision, observation, history, spare)

    def _look(
        self, decision: Decision, observation: Observation, history: list[Step], spare: int
    ) -> Decision:
        """A teacher scrolls to the element it is about to act on when the model would not see
        it (off screen, or past the lines its template keeps): a demonstration whose id is on
        no page the model saw cannot be learned. It acts anyway after ``MAX_LOOKS`` scrolls in
        a row (a page that does not scroll) or when a look would leave too few of the task's
        steps (``spare``) to finish."""
        element = getattr(decision.action, "element", None)
        template = self._template
        if template is None or element is None or template.shows(observation, element):
            return decision
        if spare < 1 or _looks_in_a_row(history) >= MAX_LOOKS:
            return decision
        scroll = Scroll(direction=_toward(element, observation))
        return dataclasses.replace(decision, text=self._text(scroll, observation), action=scroll)

    async def aclose(self) -> None:
        return None

    def _text(self, action: Action, observation: Observation) -> str:
        if self._template is not None:
            return self._template.reply(action, observation)
        if self._format is not None:
            try:
                return render(action, self._format)
            except ValueError:
                pass  # the format cannot say this action; fall back to the generic form
        return action.describe()


def _left(steps: Sequence[SolutionStep], history: list[Step]) -> int:
    """The actions still to take, this one and the final stop included."""
    ends_with_stop = bool(steps) and steps[-1].type == "stop"
    return len(steps) - progress(steps, history) + (0 if ends_with_stop else 1)


def _looks_in_a_row(history: list[Step]) -> int:
    """The scrolls at the end of ``history`` (the teacher's looks since its last action)."""
    count = 0
    for step in reversed(history):
        if not isinstance(step.decision.action, Scroll):
            break
        count += 1
    return count


def _toward(element: int, observation: Observation) -> Literal["up", "down"]:
    """Up when ``element`` lies above the viewport, else down (below it, or in view but past
    the lines the template keeps, which a scroll down brings nearer the top)."""
    found = next((e for e in observation.elements or [] if e.id == element), None)
    above = found is not None and found.box.y + found.box.height <= 0
    return "up" if above else "down"


def resolve_step(step: SolutionStep, observation: Observation) -> Action:
    """The step as an action, its target replaced by the element id on this page."""
    fields = step.action_fields()
    if step.target is not None:
        if observation.elements is None:
            raise UnknownElement(
                "the observation has no element list; ask for ObservationOptions(elements=True)"
            )
        element = find_target(step.target, observation.elements)
        if element is None:
            raise UnknownElement(
                f"no element matches {describe_target(step.target)} on {observation.url}",
                target=step.target.model_dump(exclude_none=True),
            )
        fields["element"] = element.id
    return action_from_dict(fields)


def find_target(target: Target, elements: Sequence[Element]) -> Element | None:
    """Match the DOM id; else role and exact name; else role and case-insensitive name."""
    if target.html_id is not None:
        return next((e for e in elements if e.html_id == target.html_id), None)
    pool = [e for e in elements if target.role is None or e.role.lower() == target.role.lower()]
    if target.name is None:
        return pool[0] if pool else None
    exact = next((e for e in pool if e.name == target.name), None)
    if exact is not None:
        return exact
    wanted = _fold(target.name)
    return next((e for e in pool if _fold(e.name) == wanted), None)


def describe_target(target: Target) -> str:
    if target.html_id is not None:
        return f"#{target.html_id}"
    parts = [target.role or "element"] + ([repr(target.name)] if target.name is not None else [])
    return " ".join(parts)


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()
