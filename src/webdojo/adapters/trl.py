"""TRL's ``GRPOTrainer(environment_factory=BrowserEnv)``: webdojo's tasks as tool calls.

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from webdojo.adapters.trl import BrowserEnv

    data = Dataset.from_dict({"task_id": ["login.account-id", "shop.price-pendant"]})
    trainer = GRPOTrainer(model=..., train_dataset=data, args=GRPOConfig(...),
                          environment_factory=BrowserEnv)    # the reward is get_reward()
    trainer.train()
    BrowserEnv.close_all()                                    # TRL never closes environments

What TRL 1.16 does with it (``GRPOTrainer``): it builds one instance when it is created, only
to read its tools; every public method but ``reset`` and ``get_reward`` is a tool, described to the
model by its type hints and docstring. For each batch it takes one instance per rollout from a
pool (reused across batches; built when a batch needs more than exist), calls
``reset(**row)`` on each, one after the other, with the dataset row's columns and appends what
it returns to the last user message; then it runs the tool calls the model writes (one at a
time; an exception becomes ``{"error": ...}`` for the model and counts in
``tools/failure_frequency``); then it calls ``get_reward()`` once per rollout, logged as
``rewards/BrowserEnv/mean``. It never closes an instance.

Here: ``reset`` opens the row's task (``task_id``, and ``seed`` when the row has one) in a
fresh browser context and returns the task and the page; each tool is one webdojo action
through ``webdojo.make``'s environment. All instances of a process share one Chromium.

* Rewards: the task's verifier, 1.0 or 0.0, once the episode is over. A rollout that ends
  without ``answer`` (the model stopped calling tools, or ran out of tokens) is ended by
  ``get_reward`` as if it had answered "": its final page is verified, as at webdojo's step
  cap. A fault (a crashed page, a dead browser, a lost session; at ``reset`` or in a tool) is
  never a 0: ``get_reward`` returns None, which TRL makes NaN; a rollout with no other reward
  is unscorable (advantage 0, left out of its group's baseline and the logged mean). A task
  without a verifier is None too: score it with ``reward_funcs``.
* Errors: an action the page refuses (an unknown element id...) costs a step and is told in
  the tool's result. Arguments that are no action (a bad URL or key) and any tool called
  after the episode ended raise (``InvalidActionError``, ``StateError``): TRL shows the model
  the error. A row without ``task_id`` or with an unknown one raises ``ConfigError`` /
  ``UnknownTask`` from ``reset``, which stops training: the dataset is wrong.
* Lifecycle: TRL never closes environments. ``BrowserEnv.close_all()`` (a classmethod, so
  TRL does not offer it as a tool) closes every instance, and runs at exit; ``with
  BrowserEnv() as env`` closes one. The shared browser stops when the last one closes.
"""

from __future__ import annotations

import atexit
import logging
import threading
from types import TracebackType
from typing import Any, Literal

from PIL import Image

from webdojo.actions import Action, Stop, action_from_dict
from webdojo.environment.make import make
from webdojo.environment.sync_env import Env
from webdojo.errors import (
    AgentError,
    ConfigError,
    InfraError,
    StateError,
    WebdojoError,
)
from webdojo.observation import AxTreeMode, Element, Observation, ObservationOptions
from webdojo.prompts.base import notices, page_header, tabs_text

ToolResult = str | list[dict[str, Any]]  # TRL: text, or content blocks (images and text)

GUIDE = (
    "Use the tools to act on the page. Elements are the [number]s in the page text: pass that "
    "number as `element`. When the task is done, call `answer` (with the information asked "
    "for, or an empty text when the task was to change something)."
)
OVER = "The episode is over ({reason}): no more actions."

log = logging.getLogger(__name__)
# every environment an instance opened and did not close, held here and not by the instance
# alone: one that TRL drops without closing is still closed by close_all (or at exit)
_OPEN: set[Env] = set()
_OPEN_LOCK = threading.Lock()


class BrowserEnv:
    """One rollout's browser for TRL's ``environment_factory`` (see the module docstring).

    ``images``: results carry the screenshot (a PIL image; for vision-language models), with
    its longest side at most ``image_size`` pixels when given. ``axtree``: the page text's
    accessibility tree (the viewport's by default; ``full`` for the whole page; ``none``
    lists the interactive elements only). ``max_chars``: cut the page text there (a small
    context window). Other keywords go to ``webdojo.make``: ``tasks``
    (a task file or sites directory), ``server``/``token``, ``session``, ``max_steps``.
    TRL calls the factory with no arguments: bind options with ``functools.partial``."""

    def __init__(
        self,
        *,
        images: bool = False,
        image_size: int | None = None,
        axtree: AxTreeMode | str = AxTreeMode.VIEWPORT,
        max_chars: int | None = None,
        **make_options: Any,
    ) -> None:
        # nothing starts here: TRL builds an instance just to read the tools
        self.images = images
        self.image_size = image_size
        self.max_chars = max_chars
        self.options = ObservationOptions(screenshot=images, elements=True, axtree=axtree)
        self.make_options = make_options
        self.observation: Observation | None = None  # the page now (element ids to act on)
        self.info: dict[str, Any] = {}  # the last reset's or step's info (webdojo.make's)
        self.fault: WebdojoError | None = None  # what ended the episode without a reward
        self._env: Env | None = None
        self._reward: float | None = None
        self._over = False
        self._started = False  # reset was called (even if its task could not open)

    @property
    def task_id(self) -> str | None:
        return None if self._env is None else self._env.task.id

    # --- TRL's calls ----------------------------------------------------------------------

    def reset(self, task_id: str | None = None, seed: int | None = None, **row: Any) -> ToolResult:
        """Start the row's task in a fresh browser context; the task and its first page."""
        if not task_id:
            raise ConfigError(
                f"the dataset row has no task_id (columns: {', '.join(sorted(row)) or 'none'})"
            )
        self.observation, self.info, self.fault = None, {}, None
        self._reward, self._over, self._started = None, False, True
        try:
            obs, self.info = self._env_for(task_id).reset(seed=seed)
        except WebdojoError as exc:
            self._drop(task_id, exc, at_reset=True)
            return f"The task could not be opened: {exc}. This rollout will not be scored."
        self.observation = obs
        separator = "\n\n" if row.get("prompt") else ""  # TRL appends this to the prompt
        return self._result(obs, before=f"{separator}Task: {self.info['instruction']}\n\n{GUIDE}")

    def get_reward(self) -> float | None:
        """The verifier's 1.0 or 0.0 (the episode is ended first if it still runs); None
        for a fault or a task without a verifier (see the module docstring)."""
        if not self._started:
            raise StateError("get_reward() before reset(): no episode to score")
        if not self._over and self.fault is None:
            if self._env is None:
                raise StateError("the environment is closed: its episode cannot be scored")
            try:
                self._step(Stop())  # the rollout is over: the model said all it would say
            except WebdojoError as exc:
                log.debug("ending the episode of %s failed: %s", self.task_id, exc)
        return None if self.fault is not None else self._reward

    # --- tools: each one is a webdojo action ----------------------------------------------

    def click(self, element: int) -> ToolResult:
        """Click an element of the page.

        Args:
            element: The element's number, as shown in brackets in the page text.
        """
        return self._act({"type": "click", "element": element})

    def type_text(self, element: int, text: str, enter: bool = False) -> ToolResult:
        """Click a text field, clear it and type text into it.

        Args:
            element: The text field's number, as shown in brackets in the page text.
            text: The text to type.
            enter: Whether to press Enter after typing (submits most search boxes and forms).
        """
        return self._act({"type": "type", "element": element, "text": text, "enter": enter})

    def select(self, element: int, option: str) -> ToolResult:
        """Choose an option of a drop-down list (a combobox).

        Args:
            element: The drop-down list's number, as shown in brackets in the page text.
            option: The label of the option to choose, as listed after `options:`.
        """
        return self._act({"type": "select", "element": element, "option": option})

    def scroll(self, direction: Literal["up", "down", "left", "right"]) -> ToolResult:
        """Scroll the page by most of a screen.

        Args:
            direction: Which way to scroll.
        """
        return self._act({"type": "scroll", "direction": direction})

    def press(self, key: str) -> ToolResult:
        """Press a key or a key combination on the focused element.

        Args:
            key: Key names joined by '+', e.g. 'Enter', 'Escape', 'Control+a'.
        """
        return self._act({"type": "press", "keys": key})

    def goto(self, url: str) -> ToolResult:
        """Open a URL in the current tab.

        Args:
            url: The address to open.
        """
        return self._act({"type": "goto", "url": url})

    def back(self) -> ToolResult:
        """Go back to the previous page."""
        return self._act({"type": "go_back"})

    def answer(self, text: str) -> ToolResult:
        """Finish the task. This ends the episode: call it once, last.

        Args:
            text: The information the task asked for; an empty text when the task was to
                change something on the site.
        """
        return self._act({"type": "stop", "answer": text})

    # --- lifecycle --------------------------------------------------------------------------

    @classmethod
    def close_all(cls) -> None:
        """Close every instance's environment (TRL never does: call it after training).
        An instance used after this opens a new one."""
        with _OPEN_LOCK:
            envs = list(_OPEN)
            _OPEN.clear()
        for env in envs:
            env.close()

    def __enter__(self) -> BrowserEnv:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._close()

    def _close(self) -> None:
        env, self._env = self._env, None
        if env is None:
            return
        with _OPEN_LOCK:
            if env not in _OPEN:
                return  # close_all closed it already
            _OPEN.discard(env)
        env.close()

    # --- internals --------------------------------------------------------------------------

    def _env_for(self, task_id: str) -> Env:
        """The environment of ``task_id``: this instance's, or a new one when the task differs
        (made before the old one closes, so the shared browser stays up)."""
        env = self._env
        with _OPEN_LOCK:
            still_open = env in _OPEN  # close_all may have closed it
        if env is not None and still_open and env.task.id == task_id:
            return env
        env = make(task_id, observation=self.options, **self.make_options)
        with _OPEN_LOCK:
            _OPEN.add(env)
        self._close()
        self._env = env
        return env

    def _act(self, fields: dict[str, Any]) -> ToolResult:
        self._require_running()
        action = action_from_dict(fields)  # InvalidActionError: TRL shows it to the model
        obs = self._step(action)
        if self.info.get("done_reason") == "stopped":  # the page is as the model last saw it
            return "Answer submitted. " + self._over_text()
        return self._result(obs, after=self._over_text())

    def _step(self, action: Action) -> Observation:
        assert self._env is not None
        try:
            obs, reward, terminated, truncated, self.info = self._env.step(action)
        except WebdojoError as exc:
            if not isinstance(exc, AgentError | StateError):
                self._drop(self._env.task.id, exc)
            raise
        self.observation = obs
        if terminated or truncated:
            self._over = True
            self._reward = None if self.info.get("verifier") is None else reward
        return obs

    def _require_running(self) -> None:
        if self.fault is not None:
            raise StateError(f"the episode ended in a fault ({self.fault}): no more actions")
        if self._env is None or not self._started:
            raise StateError("no episode: call reset() first")
        if self._over:
            raise StateError(OVER.format(reason=self._end_reason()))

    def _over_text(self) -> str:
        return OVER.format(reason=self._end_reason()) if self._over else ""

    def _end_reason(self) -> str:
        reason = str(self.info.get("done_reason"))
        return {"stopped": "answered", "step_cap": "step limit reached"}.get(reason, reason)

    def _drop(self, task_id: str, exc: WebdojoError, *, at_reset: bool = False) -> None:
        """Mark the rollout unscorable. At reset, errors that would fail every rollout (a bad
        task, no Chromium) are raised instead of dropping each rollout silently."""
        fails_all = isinstance(exc, ConfigError | StateError) or (
            isinstance(exc, InfraError) and not exc.retryable
        )
        if at_reset and fails_all:
            raise exc
        self.fault = exc
        log.warning("webdojo %s: rollout dropped (not scored): %s", task_id, exc)

    def _result(self, obs: Observation, *, before: str = "", after: str = "") -> ToolResult:
        """The page for the model: text, and the screenshot first when images are on."""
        text = "\n\n".join(p for p in (before, page_text(obs, self.max_chars), after) if p)
        image = screenshot_image(obs, self.image_size) if self.images else None
        if image is None:
            return text
        return [{"type": "image", "image": image}, {"type": "text", "text": text}]


def page_text(obs: Observation, max_chars: int | None = None) -> str:
    """What a text-only model needs to act: errors, URL and title, tabs, the page (cut at
    ``max_chars``, saying how much is left out)."""
    parts = [*notices(obs, obs.last_error), page_header(obs)]
    if len(obs.tabs) > 1:
        parts.append(f"Open tabs:\n{tabs_text(obs)}")
    if obs.axtree is not None:
        parts.append(f"Page:\n{obs.axtree}")
    else:
        parts.append("Elements:\n" + "\n".join(_element_line(e) for e in obs.elements or []))
    text = "\n\n".join(parts)
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}\n... ({len(text) - max_chars} more characters not shown)"


def _element_line(element: Element) -> str:
    line = f"[{element.id}] {element.role} '{element.name}'"
    if element.value:
        line += f" value: '{element.value}'"
    if element.options:
        line += " options: " + ", ".join(f"'{o}'" for o in element.options)
    return line


def screenshot_image(obs: Observation, max_side: int | None = None) -> Image.Image | None:
    """The screenshot as a PIL image, shrunk to fit. Unless it is shrunk, it is decoded at
    its first use (TRL hands it to the model's processor), not in the tool call."""
    return obs.screenshot_rgb(max_side, lazy=True)


atexit.register(BrowserEnv.close_all)  # the environments' loop thread still runs at exit
