"""verl's agent loop over webdojo's tasks: ``WebdojoAgentLoop``, registered as ``webdojo_agent``.

    # a row of the training parquet (``webdojo export --format verl`` writes these columns)
    {"prompt": [...], "agent_name": "webdojo_agent", "extra_info": {"task_id": "shop.add-runner"}}

    # agent_loops.yaml, given as actor_rollout_ref.rollout.agent.agent_loop_config_path
    - name: webdojo_agent
      _target_: webdojo.adapters.verl.WebdojoAgentLoop
      tasks: builtin            # where rows' ids are looked up (MiniWoB++ ids work with any)

What verl 0.9 does with it: each ``AgentLoopWorker`` builds one loop per row (Hydra
``instantiate`` of the entry above, plus its own arguments) and awaits ``run(sampling_params,
**columns)``; it pads the outputs and stacks them into the batch the trainer reads.

One ``run`` is one episode of the row's task (``extra_info.task_id`` or a ``task_id`` column;
``seed``, else the row's ``index``, so the n rollouts of a GRPO group see the same page):

* the conversation is the append-only ``chat`` template (``prompts/append_only.py``): the
  system prompt and the first page are the prompt; then each turn appends the model's tokens
  (``generate``: token ids in and out, screenshots as ``image_data``; mask 1) and the next page
  (tokenized by verl's own builder from the messages; mask 0). A text-only model (no
  processor) gets pages without screenshots;
* the reply is parsed (funcall format), never executed; one that does not parse is told to the
  model on the next page, as in ``webdojo run``;
* it ends when the task's episode does (``stop``/``answer``, the step cap: ``max_steps``) or
  when the response budget (``rollout.response_length``) is spent: then the episode is
  ended as if the model had answered "" and its final page is verified;
* ``reward_score`` is the verifier's (1.0 or 0.0); ``extra_fields`` carry ``done_reason``,
  ``task_id``, ``steps``, ``fault``;
* a fault (a crashed page, a dead browser, a lost session) is never the agent's 0: with
  ``on_fault: mask`` (default) the rollout keeps reward 0.0 (verl needs a number for every
  row) but its ``response_mask`` is all 0, so no token of it is trained on, and
  ``extra_fields["fault"]`` holds the error's code; ``on_fault: raise`` raises the typed error
  instead (verl then stops the step). The session is closed on every path.

verl 0.9.1 requires ``transformers<5.11``; webdojo's own tests run on a newer one, so this
module's tests run in an environment of their own (``make test`` builds ``.venv-verl``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import uuid4

from PIL import Image
from verl.experimental.agent_loop.agent_loop import (
    AgentLoopBase,
    AgentLoopMetrics,
    AgentLoopOutput,
    register,
)
from verl.utils.profiler import simple_timer

from webdojo.actions import Stop
from webdojo.adapters.rows import as_int, check_runnable, row_fields, row_seed, task_for
from webdojo.environment.async_env import AsyncEnv
from webdojo.environment.make import make_async
from webdojo.errors import ConfigError, EnvError, InfraError
from webdojo.models.content import decode_image_part
from webdojo.observation import Observation
from webdojo.prompts import get_template
from webdojo.prompts.append_only import AppendOnlyChatTemplate
from webdojo.tasks.schema import Task

AGENT_NAME = "webdojo_agent"
BUDGET_SPENT = "response_length"  # done_reason when the response budget ended the episode
FAULT = "fault"

Message = dict[str, Any]


@dataclass
class Rollout:
    """One episode's token stream: ``ids`` is the prompt then every response token (model and
    pages); ``mask`` has one entry per response token (1: the model's, 0: a page's)."""

    ids: list[int]
    prompt_len: int
    messages: list[Message]
    images: list[Image.Image]
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    replies: int = 0
    done_reason: str | None = None
    reward: float = 0.0
    fault: str | None = None


@register(AGENT_NAME)
class WebdojoAgentLoop(AgentLoopBase):
    """One webdojo episode per ``run`` (see the module docstring for the settings: ``tasks``,
    ``server``/``token``, ``max_steps``, ``template_options``, ``on_fault``)."""

    def __init__(
        self,
        *args: Any,
        tasks: str = "builtin",
        server: str | None = None,
        token: str | None = None,
        max_steps: int | None = None,
        template_options: dict[str, Any] | None = None,
        on_fault: Literal["mask", "raise"] = "mask",
        name: str | None = None,  # the registry entry's own key
        tools: Any = None,  # verl's tool list: webdojo's actions are not verl tools
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if on_fault not in ("mask", "raise"):
            raise ConfigError(f"on_fault is 'mask' or 'raise', not {on_fault!r}")
        options = dict(template_options or {})
        if self.processor is None:  # a text-only model reads the accessibility tree
            options.setdefault("screenshot", False)
        template = get_template("chat", **options)
        assert isinstance(template, AppendOnlyChatTemplate)
        self.template = template
        self.tasks, self.server, self.token = tasks, server, token
        self.max_steps, self.on_fault = max_steps, on_fault
        self.response_length: int = self.rollout_config.response_length

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        """One episode of the row's task (``kwargs``: the row's columns)."""
        row = row_fields(kwargs)
        task = task_for(row, self.tasks).tasks[0]
        check_runnable(task)
        env = await make_async(
            task,
            tasks=None if self.server is None else self.tasks,
            server=self.server,
            token=self.token,
            observation=self.template.observation_options(),
            max_steps=self.max_steps,
        )
        try:
            rollout = await self._episode(env, task, row_seed(row, _index(kwargs)), sampling_params)
        finally:
            await env.aclose()
        return self._output(task, rollout)

    # --- the episode ---------------------------------------------------------------------

    async def _episode(
        self, env: AsyncEnv, task: Task, seed: int | None, sampling: dict[str, Any]
    ) -> Rollout:
        obs, _ = await env.reset(seed=seed)  # a fault here raises: there is nothing to mask
        rollout = await self._start(task, obs)
        try:
            while rollout.done_reason is None:
                reply = await self._generate(rollout, sampling)
                await self._act(env, task, rollout, reply)
        except (EnvError, InfraError) as exc:
            if self.on_fault == "raise":
                raise
            rollout.done_reason, rollout.fault = FAULT, exc.code
            rollout.mask = [0] * len(rollout.mask)  # nothing of a faulted episode is trained on
        return rollout

    async def _start(self, task: Task, obs: Observation) -> Rollout:
        system = {"role": "system", "content": self.template.system_prompt()}
        first, images = processor_message(self.template.page_turn(task, 0, obs, obs.last_error))
        messages = [system, first]
        ids = await self.ct_build_initial_tokens(messages, images=images or None)
        return Rollout(ids=ids, prompt_len=len(ids), messages=messages, images=images)

    async def _generate(self, rollout: Rollout, sampling: dict[str, Any]) -> str:
        """The model's next reply, its tokens appended with mask 1."""
        with simple_timer("generate_sequences", rollout.metrics):
            out = await self.server_manager.generate(
                request_id=uuid4().hex,
                prompt_ids=rollout.ids,
                sampling_params=sampling,
                image_data=rollout.images or None,
            )
        keep = bool(rollout.logprobs or out.log_probs)
        merged, rollout.mask, logprobs = await self.ct_merge_assistant_token(
            rollout.ids,
            out.token_ids,
            rollout.mask,
            rollout.logprobs if keep else None,
            assistant_logprobs=out.log_probs or None,
        )
        rollout.ids = merged.token_ids
        rollout.logprobs = logprobs or []
        rollout.replies += 1
        reply = self.tokenizer.decode(out.token_ids, skip_special_tokens=True)
        rollout.messages.append({"role": "assistant", "content": reply})
        return str(reply)

    async def _act(self, env: AsyncEnv, task: Task, rollout: Rollout, reply: str) -> None:
        """Step the environment with the reply; append the next page (mask 0), or end."""
        if len(rollout.mask) >= self.response_length:
            return await self._spend_out(env, rollout)
        with simple_timer("tool_calls", rollout.metrics):
            obs, reward, terminated, truncated, info = await env.step(reply)
        if terminated or truncated:
            rollout.done_reason, rollout.reward = info["done_reason"], reward
            return None
        page, images = processor_message(
            self.template.page_turn(task, rollout.replies, obs, obs.last_error)
        )
        before = list(rollout.messages)
        merged, mask, logprobs = await self.ct_merge_context_msg(
            before,
            [*before, page],
            rollout.ids,
            rollout.mask,
            rollout.logprobs or None,
        )
        if len(mask) >= self.response_length:  # the page does not fit: end before it
            return await self._spend_out(env, rollout)
        rollout.messages.append(page)
        rollout.images.extend(images)
        rollout.ids, rollout.mask, rollout.logprobs = merged.token_ids, mask, logprobs or []
        return None

    async def _spend_out(self, env: AsyncEnv, rollout: Rollout) -> None:
        """The budget is spent: end as if the model answered "" (its final page is verified,
        as at a step cap)."""
        _, reward, _, _, _ = await env.step(Stop(answer=""))
        rollout.done_reason, rollout.reward = BUDGET_SPENT, reward

    def _output(self, task: Task, rollout: Rollout) -> AgentLoopOutput:
        response = rollout.ids[rollout.prompt_len :]
        cut = self.response_length
        return AgentLoopOutput(
            prompt_ids=rollout.ids[: rollout.prompt_len],
            response_ids=response[:cut],
            response_mask=rollout.mask[:cut],
            response_logprobs=rollout.logprobs[:cut] or None,
            multi_modal_data={"images": rollout.images} if rollout.images else {},
            reward_score=rollout.reward,
            num_turns=len(rollout.messages),
            metrics=AgentLoopMetrics(**rollout.metrics),
            extra_fields={
                "done_reason": rollout.done_reason,
                "task_id": task.id,
                "steps": rollout.replies,
                "fault": rollout.fault,
            },
        )


def processor_message(message: Message) -> tuple[Message, list[Image.Image]]:
    """A message of our templates (OpenAI content parts, images as data URLs) as a processor's
    chat template takes it: ``{"type": "image"}`` parts, the images decoded beside them."""
    content = message.get("content")
    if not isinstance(content, list):
        return message, []
    parts: list[dict[str, Any]] = []
    images: list[Image.Image] = []
    for part in content:
        if part.get("type") != "image_url":
            parts.append(part)
            continue
        image = Image.open(io.BytesIO(decode_image_part(part).data)).convert("RGB")
        images.append(image)
        parts.append({"type": "image"})
    return {**message, "content": parts}, images


def _index(columns: dict[str, Any]) -> int | None:
    """The row's dataset index (verl's ``index`` column, else ``extra_info.index``)."""
    extra = columns.get("extra_info")
    nested = as_int(extra.get("index")) if isinstance(extra, dict) else None
    index = as_int(columns.get("index"))
    return nested if index is None else index
