"""The judge registry of ``judges.spec``: every name builds its class, unknown names are typed."""

from __future__ import annotations

import asyncio

import pytest

from webdojo.errors import ConfigError
from webdojo.judges.base import JudgeOptions
from webdojo.judges.consensus import ConsensusJudge
from webdojo.judges.spec import JUDGES, build_judge, judge_names
from webdojo.models import ModelConfig

# model judges refuse to build without an endpoint; nothing is asked of this one
OPTIONS = JudgeOptions(model=ModelConfig(base_url="http://127.0.0.1:9/v1", model="m"))
NAMES = (
    "programmatic",
    "exact",
    "f1",
    "rubric",
    "rubric-task",
    "website-failure",
)  # the names users pass to --judge and write in specs: they must not change


def test_the_registry_holds_exactly_the_documented_names() -> None:
    assert judge_names() == sorted(NAMES)


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_each_name_builds_its_class_and_carries_the_name(name: str) -> None:
    judge_class, changes = JUDGES[name]
    judge = build_judge(name, OPTIONS)
    assert isinstance(judge, judge_class) and judge.name == name
    for option, value in changes.items():
        assert getattr(judge.options, option) == value
    asyncio.run(judge.aclose())


def test_a_consensus_builds_its_members_by_name() -> None:
    judge = build_judge("consensus:exact,f1@other", OPTIONS)
    assert isinstance(judge, ConsensusJudge) and judge.name == "consensus:exact,f1@other"


def test_an_unknown_name_is_a_config_error_listing_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        build_judge("no-such-judge", OPTIONS)
    assert str(caught.value).endswith(
        f"unknown judge 'no-such-judge'; known: {', '.join(sorted(NAMES))}"
    )
    with pytest.raises(ConfigError, match="unknown judge 'nope'; known: "):
        build_judge("consensus:exact,nope", OPTIONS)
