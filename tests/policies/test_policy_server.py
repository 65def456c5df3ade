"""The policy server: a model behind the OpenAI chat protocol, reached by our own client.

The protocol tests use a plain function as the model (what it answers is not the point); the
last test serves a real tiny model generated with transformers and drives it with the openai
policy, as the training loop does.
"""

from __future__ import annotations

import httpx
import pytest
from policy_builders import make_obs

from webdojo.loop.policy_server import Completion, PolicyServer, Sampling, vllm_command
from webdojo.models import ModelClient
from webdojo.policies import OpenAIPolicy
from webdojo.prompts import get_template

Seen = list[tuple[list[dict], Sampling]]


def echo(seen: Seen):
    def generate(messages: list[dict], sampling: Sampling) -> Completion:
        seen.append((messages, sampling))
        return Completion(f"echo {len(messages)}", 7, 2, "stop")

    return generate


async def test_answers_like_an_openai_endpoint():
    seen: Seen = []
    with PolicyServer(echo(seen), "tiny-policy", max_tokens=32) as server:
        async with ModelClient(server.model_config(temperature=0.5, max_tokens=16)) as client:
            assert await client.list_models() == ["tiny-policy"]
            result = await client.chat([{"role": "user", "content": "hi"}], seed=11)
    assert result.text == "echo 1"
    assert result.usage["prompt_tokens"] == 7 and result.usage["completion_tokens"] == 2
    messages, sampling = seen[0]
    assert messages == [{"role": "user", "content": "hi"}]
    assert (sampling.max_tokens, sampling.temperature, sampling.seed) == (16, 0.5, 11)


def test_bad_requests_get_openai_style_errors():
    with PolicyServer(echo([]), "tiny-policy") as server, httpx.Client() as http:
        url = f"{server.base_url}/chat/completions"
        wrong = http.post(url, json={"model": "gpt-9", "messages": [{"role": "user"}]})
        assert wrong.status_code == 404 and "gpt-9" in wrong.json()["error"]["message"]
        empty = http.post(url, json={"messages": []})
        assert empty.status_code == 422
        negative = http.post(url, json={"messages": [{"role": "user"}], "temperature": -1})
        assert negative.status_code == 422


def test_vllm_serves_on_loopback_under_our_name(tmp_path):
    command = vllm_command(tmp_path / "ckpt", 8123, "webdojo-policy")
    assert command[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--served-model-name") + 1] == "webdojo-policy"


@pytest.mark.slow
async def test_a_tiny_model_answers_the_openai_policy(task):
    from webdojo.loop.generate import bundle_generator
    from webdojo.training.tiny_models import load_bundle

    template = get_template("browseragent")
    observation = make_obs()
    corpus = [template.system_prompt(), "```click [4]```", "```stop [done]```"]
    bundle = load_bundle("tiny", corpus=corpus, seed=0)
    with PolicyServer(bundle_generator(bundle), "tiny", max_tokens=8) as server:
        policy = OpenAIPolicy(server.model_config(temperature=1.0, max_tokens=8), template)
        first = await policy.act(task, observation, [], seed=5)
        again = await policy.act(task, observation, [], seed=5)
        await policy.aclose()
    # an untrained model writes noise: the policy turns it into an error, never an exception
    assert first.text == again.text  # the seed makes sampling reproducible
    assert first.usage["completion_tokens"] <= 8
    assert (first.action is None) == (first.error is not None)
