"""The ``chat`` template is append-only: the conversation after step N+1 starts with the
conversation after step N, as messages, as tokens under real chat templates, and as the
requests the openai policy sends."""

from __future__ import annotations

import io
from functools import cache
from itertools import pairwise
from typing import Any

import pytest
from PIL import Image
from policy_builders import make_obs, make_task

from fakes.openai_server import image_urls, message_text
from webdojo.action_docs import describe_actions
from webdojo.actions import Click, CoordSpace, Scroll, Stop
from webdojo.errors import ConfigError, InvalidActionError, ParseError
from webdojo.history import Decision, Step
from webdojo.models import count_images, image_data_url
from webdojo.models.content import decode_image_part
from webdojo.observation import AxTreeMode, ErrorInfo, Observation
from webdojo.parsing import ParseFormat
from webdojo.policies import OpenAIPolicy
from webdojo.prompts import AppendOnlyChatTemplate, PromptTemplate, get_template
from webdojo.tasks.schema import Task

Messages = list[dict[str, Any]]

# five replies: a good one, one that does not parse, one whose action fails on the page, an
# empty one (does not parse either) and a good one again
REPLIES = [
    'The search box is [2].\ntype("brass desk lamp", element=2, enter=True)',
    "I am not sure what to do here.",
    "click(element=4)",
    "",
    "click(640, 360)",
]
DETACHED = ErrorInfo(code="action_failed", fault="env", message="the element is detached")


def decide(template: PromptTemplate, text: str) -> Decision:
    """What the openai policy makes of a reply (``OpenAIPolicy.act``)."""
    try:
        return Decision(text=text, action=template.parse(text).action)
    except (ParseError, InvalidActionError) as exc:
        return Decision(text=text, action=None, error=exc.info())


def pages() -> list[Observation]:
    """Six pages; the fourth arrives after step 3's click failed."""
    errors = [DETACHED if i == 3 else None for i in range(6)]
    return [
        make_obs(shade=40 * i, url=f"http://127.0.0.1:9/p{i}.html", last_error=error)
        for i, error in enumerate(errors)
    ]


def conversations(template: PromptTemplate, task: Task) -> list[Messages]:
    """The messages the policy sends at each of the six steps of one episode."""
    shown = pages()
    history = [Step(i, shown[i], decide(template, text)) for i, text in enumerate(REPLIES)]
    return [template.context(task, shown[n], history[:n]) for n in range(len(shown))]


# --- messages -------------------------------------------------------------------------------------


def test_registered_as_chat_with_the_funcall_format():
    template = get_template("chat")
    assert isinstance(template, AppendOnlyChatTemplate)
    assert template.parse_format is ParseFormat.FUNCALL
    assert template.coord_space is CoordSpace.PIXEL
    options = template.observation_options()
    assert options.screenshot and options.axtree is AxTreeMode.VIEWPORT
    system = template.system_prompt()
    assert describe_actions().replace("``", "`") in system and "click(element=12)" in system


@pytest.mark.parametrize(
    ("options", "images"),
    [({}, [1, 2, 3, 4, 5, 6]), ({"max_images": 2, "axtree": "none"}, [1, 2, 2, 2, 2, 2]),
     ({"screenshot": False}, [0] * 6)],
)  # fmt: skip
def test_each_step_appends_the_reply_and_the_new_page(task, options, images):
    template = get_template("chat", **options)
    steps = conversations(template, task)
    for n, (before, after) in enumerate(pairwise(steps)):
        assert after[: len(before)] == before  # the same dicts, in the same order
        assert after[len(before)] == {"role": "assistant", "content": REPLIES[n]}
        assert len(after) == len(before) + 2 and after[-1]["role"] == "user"
    assert [count_images(m) for m in steps] == images
    assert [m["role"] for m in steps[0]] == ["system", "user"]


def test_pages_tell_the_task_once_and_each_error_after_its_step(task):
    final = conversations(get_template("chat"), task)[-1]
    users = [message_text(m) for m in final if m["role"] == "user"]
    assert task.instruction in users[0] and not any(task.instruction in u for u in users[1:])
    failed = [i for i, u in enumerate(users) if "Your previous action did not work" in u]
    assert failed == [2, 3, 4]  # after the unparsed reply, the failed click, the empty reply
    assert "no action call found" in users[2] and "the element is detached" in users[3]
    assert "the output is empty" in users[4]
    assert all(f"/p{i}.html" in u and "[2] searchbox" in u for i, u in enumerate(users))


def test_the_screenshot_cap_stops_adding_images_and_says_so(task):
    final = conversations(get_template("chat", max_images=2), task)[-1]
    users = [m for m in final if m["role"] == "user"]
    assert [count_images([m]) for m in users] == [1, 1, 0, 0, 0, 0]
    assert "shows only the first 2" in message_text(users[2])
    with pytest.raises(ConfigError, match="max_images"):
        get_template("chat", max_images=-1)


# --- tokens under real chat templates -------------------------------------------------------------

# Qwen2-VL-Instruct's published chat template (chat_template.json), as transformers reads it
QWEN2_VL_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}"
    "{{ message['content'] }}<|im_end|>\n{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@cache
def tokenizer() -> Any:
    """The tiny models' byte-level BPE, trained on the conversation itself so that its merges
    cover the prompt's words (any text still encodes: every byte is in its alphabet)."""
    from webdojo.training.processing import train_tokenizer  # transformers: seconds to import

    final = conversations(get_template("chat"), make_task())[-1]
    return train_tokenizer([message_text(m) for m in final], vocab_size=2048)


def token_ids(messages: Messages, template: str, *, generation_prompt: bool) -> list[int]:
    out = tokenizer().apply_chat_template(
        messages,
        chat_template=template,
        tokenize=True,
        return_dict=True,
        add_generation_prompt=generation_prompt,
    )
    return list(out["input_ids"])


@pytest.mark.parametrize("chat_template", ["chatml", "qwen2_vl"])
def test_token_ids_of_each_step_extend_the_previous_ones(task, chat_template):
    from webdojo.training.processing import CHATML_TEMPLATE, IM_END

    template = {"chatml": CHATML_TEMPLATE, "qwen2_vl": QWEN2_VL_TEMPLATE}[chat_template]
    end = tokenizer().convert_tokens_to_ids(IM_END)
    steps = conversations(get_template("chat"), task)
    for n, (before, after) in enumerate(pairwise(steps)):
        whole = token_ids(after, template, generation_prompt=False)
        # the conversation so far, without an opened assistant turn, is a prefix of the next
        so_far = token_ids(before, template, generation_prompt=False)
        assert whole[: len(so_far)] == so_far, n
        # token-in/token-out: the prompt the model answered (assistant turn opened by the
        # generation prompt), then its reply and <|im_end|> as generated, start the next
        # conversation. These replies start with a letter: one that starts with a newline can
        # be encoded together with the "\n" after "assistant" when the whole text is encoded
        # again (Qwen2's pre-tokenizer joins runs of newlines), which is why trainers keep the
        # generated ids instead of encoding the conversation again.
        prompt = token_ids(before, template, generation_prompt=True)
        generated = [*tokenizer()(REPLIES[n], add_special_tokens=False)["input_ids"], end]
        assert whole[: len(prompt) + len(generated)] == prompt + generated, n


def test_token_ids_extend_with_images_expanded_by_the_vision_processor(task):
    """Qwen2-VL's processor replaces each image's one <|image_pad|> by its patch count; an
    earlier image is expanded the same way at every step, so the prefix holds there too."""
    from webdojo.training.processing import tiny_vl_processor

    processor = tiny_vl_processor(tokenizer())
    steps = [with_images(m) for m in conversations(get_template("chat"), task)]
    ids = [
        processor.apply_chat_template(m, tokenize=True, return_dict=True)["input_ids"][0]
        for m in steps
    ]
    for before, after in pairwise(ids):
        assert list(after[: len(before)]) == list(before)


def with_images(messages: Messages) -> Messages:
    """Image parts as PIL images, which is how a processor takes them (training/encoding.py)."""
    out = []
    for m in messages:
        content = m["content"]
        out.append(
            {**m, "content": [image(p) for p in content]} if isinstance(content, list) else m
        )
    return out


def image(part: dict[str, Any]) -> dict[str, Any]:
    if part["type"] != "image_url":
        return part
    picture = Image.open(io.BytesIO(decode_image_part(part).data)).convert("RGB")
    return {"type": "image", "image": picture}


# --- the openai policy ----------------------------------------------------------------------------


async def test_openai_policy_requests_grow_append_only(fake_openai, fake_model_config, task):
    replies = ["The box is [2].\nclick(element=2)", 'scroll("down")', 'stop("done")']
    fake_openai.push(*replies)
    policy = OpenAIPolicy(fake_model_config, "chat")
    shown, history = pages()[:3], []
    for i, page in enumerate(shown):
        history.append(Step(i, page, await policy.act(task, page, history)))
    await policy.aclose()

    actions = [step.decision.action for step in history]
    assert actions == [Click(element=2), Scroll(direction="down"), Stop(answer="done")]
    sent = [request["messages"] for request in fake_openai.requests]
    assert len(sent) == 3
    for n, (before, after) in enumerate(pairwise(sent)):
        assert after[: len(before)] == before
        assert after[len(before)] == {"role": "assistant", "content": replies[n]}
        assert len(after) == len(before) + 2
    assert sent[-1] == policy.template.context(task, shown[-1], history[:-1])
    expected = [image_data_url(p.screenshot or b"", "jpeg") for p in shown]
    assert image_urls(fake_openai.last_request) == expected  # every screenshot, in order
