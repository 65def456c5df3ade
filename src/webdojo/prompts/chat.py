"""The multi-turn layout shared by the screenshot templates (qwen, webgym_memory, funcall).

    system     the template's system prompt
    user       task + earlier steps as text lines + first shown observation (screenshot)
    assistant  the model's reply at that step
    user       next observation ... (one pair per step whose screenshot is still shown)
    user       current observation + carried memory + what to do now

Only the last ``max_images`` observations appear, as images; older steps are text lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webdojo.history import Step
from webdojo.observation import Observation
from webdojo.prompts.base import (
    Message,
    PromptTemplate,
    assistant_turn,
    notices,
    page_header,
    split_history,
    step_errors,
    summary_lines,
    user_turn,
)
from webdojo.tasks.schema import Task


@dataclass(frozen=True)
class MultiTurnTemplate(PromptTemplate):
    """Subclasses write ``system_prompt`` and may override the hooks below."""

    def build_messages(
        self, task: Task, observation: Observation, history: list[Step], memory: Any
    ) -> list[Message]:
        errors = step_errors(history, observation)
        older, recent = split_history(history, self.max_images)
        start_url = history[0].observation.url if history else observation.url
        intro = [f"Task: {task.instruction}", f"Starting page: {start_url}"]
        if older:
            lines = summary_lines(self, older, errors[: len(older)])
            intro.append("Steps taken earlier (screenshots no longer shown):\n" + "\n".join(lines))
        shown = [*(s.observation for s in recent), observation]
        # the error shown with an observation is the one of the step that led to it
        first_error = errors[len(older) - 1] if older else shown[0].last_error
        shown_errors = [first_error, *errors[len(older) :]]
        messages: list[Message] = [{"role": "system", "content": self.system_prompt()}]
        for i, obs in enumerate(shown):
            current = i == len(shown) - 1
            texts = (intro if i == 0 else []) + notices(obs, shown_errors[i])
            if current:
                texts += [*self.memory_texts(memory), *self.observation_texts(obs)]
                texts.append(self.instruction())
            else:
                texts.append(page_header(obs))
            messages.append(user_turn(obs, texts, image=self.screenshot and self.max_images > 0))
            if not current:
                messages.append(assistant_turn(recent[i]))
        return messages

    def observation_texts(self, observation: Observation) -> list[str]:
        """Text that goes with the current screenshot."""
        return [page_header(observation)]

    def memory_texts(self, memory: Any) -> list[str]:
        return []

    def instruction(self) -> str:
        return "Give the next action for the task."
