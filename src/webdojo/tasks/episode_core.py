"""The rules of one episode in one place, without I/O: what every shell around a browser
session (the rollout's ``EpisodeRun``, the server's session service, ``webdojo.make``'s
environments and the trainers' adapters) asks after each step.

    core = EpisodeCore(task)
    core.opened(first_observation)          # a page can say it is done at once (MiniWoB++)
    while not core.over:
        ...                                 # the shell acts and observes
        core.stepped(action, error, observation)
    if core.scored:                         # not a fault: the final state decides the reward
        result = core.verify(final_state)   # once: the state is kept (``kept_final``)

The shell does the I/O (acting, observing, taking the final state); the core counts the
steps, applies ``episode_end`` (stop, the page's done signal, the step cap, faults), keeps
the stop's answer, and verifies the final state once with the task's verifier. An episode
that ended in a fault is never verified: it has no reward, never a 0.
"""

from __future__ import annotations

from webdojo.actions import Action, Stop
from webdojo.errors import StateError
from webdojo.observation import ErrorInfo, FinalState, Observation
from webdojo.tasks.episode_rules import EndReason, episode_end
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import VerifyResult, verify


class EpisodeCore:
    """One episode's rule state. ``task`` None: a session opened at a URL (no cap unless
    ``max_steps`` is given, nothing to verify)."""

    def __init__(self, task: Task | None, max_steps: int | None = None) -> None:
        self.task = task
        self.max_steps = max_steps if max_steps is not None or task is None else task.max_steps
        self.steps = 0  # steps taken, each counted once
        self.answer: str | None = None  # the stop's answer
        self.outcome: EndReason | None = None  # why it ended; None while it goes on
        self.fatal: ErrorInfo | None = None  # the error that ended it as a fault
        self.final: FinalState | None = None  # the final state verified (the first one)
        self.result: VerifyResult | None = None  # the verifier's result on it

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def scored(self) -> bool:
        """Over, and not by a fault: the final state decides the reward."""
        return self.over and self.outcome is not EndReason.FAULT

    def opened(self, observation: Observation) -> EndReason | None:
        """The first observation, before any step: a page can be over at once."""
        return self._decide(None, None, observation.page_done)

    def stepped(
        self, action: Action | None, error: ErrorInfo | None, observation: Observation
    ) -> EndReason | None:
        """Count one step (``action`` None: the reply did not parse, ``error`` says why) and
        say whether the episode is over, and why."""
        if self.over:
            raise StateError(
                f"the episode is over ({self.outcome}); only observe, final state and close "
                "are allowed",
                done_at=self.steps - 1,
            )
        self.steps += 1
        return self._decide(action, error, observation.page_done)

    def fail(self, error: ErrorInfo) -> None:
        """End the episode by a fault that did not come with a step (an exception)."""
        self.outcome, self.fatal = EndReason.FAULT, error

    def verify(self, final: FinalState) -> VerifyResult | None:
        """The verifier's result on the final state (None without a task or a verifier). Once
        the episode is over the page cannot change: the state is kept (``kept_final``) and
        verified once; asked again with the same state and answer, the same result."""
        if self.outcome is EndReason.FAULT:
            raise StateError("an episode that ended in a fault is never verified")
        if self.final is not None and self.final == final:
            return self.result
        result = None if self.task is None else verify(self.task, final)
        if self.over:
            self.final, self.result = final, result
        return result

    def kept_final(self, answer: str | None) -> FinalState | None:
        """The final state verified at the end, with ``answer`` (None before that): there is
        no need to take it from the page again."""
        return None if self.final is None else self.final.model_copy(update={"answer": answer})

    def _decide(
        self, action: Action | None, error: ErrorInfo | None, page_done: bool
    ) -> EndReason | None:
        reason = episode_end(
            max_steps=self.max_steps,
            steps_taken=self.steps,
            action=action,
            error=error,
            page_done=page_done,
        )
        if reason is EndReason.STOPPED and isinstance(action, Stop):
            self.answer = action.answer
        if reason is EndReason.FAULT:
            self.fatal = error
        self.outcome = reason
        return reason
