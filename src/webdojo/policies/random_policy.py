"""The random policy: a uniform choice among the actions valid on the current page.

Candidates: a click on each interactive element, a type of a random word into each text field,
a select of each option of each <select>, scroll up, scroll down, go back, and stop with an
empty answer. The generator for a step is seeded from (policy seed, episode seed, task id, step
index), so an episode replays identically however episodes are interleaved, each repeat of a
task is a different episode, and the policy holds no state.
"""

from __future__ import annotations

import random
import time

from webdojo.actions import Action, Click, GoBack, Scroll, Select, Stop, Type
from webdojo.history import Decision, Step
from webdojo.observation import Element, Observation, ObservationOptions
from webdojo.tasks.schema import Task

WORDS = ("lamp", "blue", "paris", "42", "hello", "cheap", "2024", "red shoes", "login", "help")
TEXT_ROLES = {"textbox", "searchbox"}


class RandomPolicy:
    name = "random"

    def __init__(self, seed: int = 0, *, words: tuple[str, ...] = WORDS) -> None:
        self.seed = seed
        self.words = words

    def observation_options(self) -> ObservationOptions:
        return ObservationOptions(elements=True)

    def rng(self, task: Task, step_index: int, episode_seed: int = 0) -> random.Random:
        # str seeds are hashed with SHA-512 by random.seed: stable across runs and machines
        return random.Random(f"{self.seed}:{episode_seed}:{task.id}:{step_index}")

    async def act(
        self, task: Task, observation: Observation, history: list[Step], *, seed: int = 0
    ) -> Decision:
        start = time.perf_counter()
        rng = self.rng(task, len(history), seed)
        action = rng.choice(self.candidates(observation, rng))
        return Decision(action.describe(), action, latency_s=time.perf_counter() - start)

    def candidates(self, observation: Observation, rng: random.Random) -> list[Action]:
        """Every action considered on this page, in a fixed order (words drawn from ``rng``)."""
        out: list[Action] = []
        for element in observation.elements or []:
            out.append(Click(element=element.id))
            if is_text_field(element):
                out.append(
                    Type(element=element.id, text=rng.choice(self.words), enter=rng.random() < 0.5)
                )
            if element.tag == "select":
                out.extend(Select(element=element.id, option=o) for o in element.options or [])
        out += [Scroll(direction="up"), Scroll(direction="down"), GoBack(), Stop()]
        return out

    async def aclose(self) -> None:
        return None


def is_text_field(element: Element) -> bool:
    return element.role in TEXT_ROLES or element.tag == "textarea"
