"""``WebdojoGymEnv``: a task as a ``gymnasium.Env`` (the ids are in ``gym_registration``).

Observation (a ``Dict`` space): ``screenshot`` (the viewport, height x width x 3, uint8),
``goal`` (the task's instruction), ``url``, ``title``, ``axtree`` (the accessibility tree of
the viewport, as text) and ``last_action_error`` ("" when the last action went through).
Action (a ``Text`` space): one action in the ``funcall`` format, ``click(element=12)``,
``type("hats", element=3, enter=True)``, ``stop("42")``... (``format=`` picks another of our
formats). Text that does not parse is shown to the agent in ``last_action_error``.

The reward is the verifier's 1.0 or 0.0 when the episode ends (terminated: the agent stopped
or the page said it was done; truncated: the step cap). A fault (crashed page, dead browser)
is raised as its typed error, never rewarded 0 (see ``async_env``).
"""

from __future__ import annotations

import functools
import string
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from webdojo.environment.make import make
from webdojo.observation import AxTreeMode, Observation, ObservationOptions

MAX_TEXT = 200_000  # characters of any text field (a long page's accessibility tree)
# Page titles and trees hold any text: every character of the Basic Multilingual Plane that is
# not a surrogate, so that the observation is always inside its space.
CHARSET = frozenset(
    string.whitespace + "".join(chr(c) for c in range(0x20, 0x10000) if not 0xD800 <= c < 0xE000)
)
ACTION_CHARSET = frozenset(string.printable)


class WebdojoGymEnv(gymnasium.Env[dict[str, Any], str]):
    # render() returns the last screenshot; a step is an action, not a frame: any fps is nominal
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 1}  # noqa: RUF012

    def __init__(self, task: str, render_mode: str | None = None, **options: Any) -> None:
        options.setdefault("observation", ObservationOptions(axtree=AxTreeMode.VIEWPORT))
        self.render_mode = render_mode
        self.env = make(task, **options)
        session = self.env.inner.options.session
        shape = (session.viewport_height, session.viewport_width, 3)
        text = _text_space()
        self.observation_space = spaces.Dict(
            {
                "screenshot": spaces.Box(0, 255, shape, np.uint8),
                "goal": text,
                "url": text,
                "title": text,
                "axtree": text,
                "last_action_error": text,
            }
        )
        self.action_space = spaces.Text(4096, min_length=1, charset=ACTION_CHARSET)
        self._last: np.ndarray | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        obs, info = self.env.reset(seed=seed)
        return self._observation(obs), info

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._observation(obs), reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        return self._last

    def close(self) -> None:
        self.env.close()
        super().close()

    def _observation(self, obs: Observation) -> dict[str, Any]:
        self._last = _pixels(obs)
        error = obs.last_error
        return {
            "screenshot": self._last,
            "goal": self.env.task.instruction,
            "url": obs.url,
            "title": obs.title,
            "axtree": obs.axtree or "",
            "last_action_error": "" if error is None else f"[{error.code}] {error.message}",
        }


@functools.cache
def _text_space() -> spaces.Text:
    # built once: sorting the 63k-character set takes a quarter of a second
    return spaces.Text(MAX_TEXT, min_length=0, charset=CHARSET)


def _pixels(obs: Observation) -> np.ndarray:
    image = obs.screenshot_rgb()
    if image is None:
        return np.zeros((obs.viewport_height, obs.viewport_width, 3), np.uint8)
    return np.asarray(image, dtype=np.uint8)
