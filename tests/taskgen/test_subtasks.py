"""``webdojo tasks decompose`` against the real fake endpoint: the plan, the rewrites and their
validation, what is written, and re-runs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from taskgen_helpers import last_user_text, read, task, write
from typer.testing import CliRunner

from fakes.openai_server import FakeOpenAIServer, Reply
from webdojo.cli import app
from webdojo.models.ask import ReplyRejected
from webdojo.taskgen.subtasks import instruction_parser, plan_decomposition

PARENT = "Find an upcoming piano concert in the US by a Chopin Competition winner."


def rewrite(body: dict[str, Any]) -> str:
    """A well-behaved model: asks for exactly the groups it was given."""
    groups = re.findall(r"^- Group (\d+)", last_user_text(body), re.M)
    return f"Find the facts of groups {' and '.join(groups)} for the concert."


def family() -> list:
    return [
        task("concert", PARENT, sizes=(2, 3, 4), website="https://example.org", source="mind2web2"),
        task("small", "Look up two things.", sizes=(2, 2)),  # no large group
        task("bare", "No rubric yet."),
        task("pair", "Compare the unit prices and add the cheapest.", sizes=(3, 1)),
    ]


def _cli(*args: str):
    return CliRunner().invoke(app, ["tasks", "decompose", *args])


def _summary(result) -> dict[str, Any]:
    return json.loads(result.output.strip().splitlines()[-1])


def test_plan_only_needs_no_model(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    path = write(tmp_path / "in.jsonl", family())
    result = _cli(str(path), "--plan-only", "--json")
    assert result.exit_code == 0, result.output
    plan = _summary(result)
    assert (plan["tasks"], plan["eligible"], plan["not_eligible"], plan["no_rubric"]) == (
        4,
        2,
        1,
        1,
    )
    assert plan["children"] == plan["to_generate"] == 6
    assert plan["difficulties"] == {"3": 2, "4": 1, "5": 1, "6": 1, "7": 1}
    assert "g2=3, g3=4, g1+g2=5, g1+g3=6, g2+g3=7" in result.output
    assert fake_openai.requests == [] and fake_openai.model_list_calls == 0


def test_children_follow_their_parents(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    path = write(tmp_path / "in.jsonl", family())
    out = tmp_path / "out.jsonl"
    fake_openai.respond_with(rewrite)
    result = _cli(str(path), "--out", str(out), "--model-base-url", fake_openai.base_url, "--json")
    assert result.exit_code == 0, result.output
    summary = _summary(result)
    assert (summary["generated"], summary["children"], summary["written"]) == (6, 6, 10)
    assert summary["eligible"] == 2
    plan = _summary(
        _cli(str(path), "--plan-only", "--model", "fake-model", "--out", str(out), "--json")
    )
    assert (plan["to_generate"], plan["cached"], plan["calls"]) == (6, 6, 0)  # a cost preview
    written = read(out)
    assert [t.id for t in written] == [
        "concert", "concert@g2", "concert@g3", "concert@g1+g2", "concert@g1+g3", "concert@g2+g3",
        "small", "bare", "pair", "pair@g1",
    ]  # fmt: skip
    child = written[5]
    assert child.instruction == "Find the facts of groups 2 and 3 for the concert."
    assert (child.parent_id, child.difficulty, child.level, child.tags) == (
        "concert", 7, "hard", ["decomposed"],
    )  # fmt: skip
    assert (child.website, child.source) == ("https://example.org", "mind2web2")
    assert [g.id for g in child.rubric.fact_groups] == [2, 3]
    assert all(c.difficulty < 9 for c in written[1:6])
    # requests run concurrently, so they arrive in any order: pick the concert's by content
    concert = [s for s in map(last_user_text, fake_openai.requests) if PARENT in s]
    assert len(concert) == 5
    only_g2 = [s for s in concert if "Group 2" in s and "Group 1" not in s and "Group 3" not in s]
    assert len(only_g2) == 1  # {G2}: a child shows its own groups only


def test_a_rerun_on_its_own_output_changes_nothing(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", family())
    out = tmp_path / "out.jsonl"
    fake_openai.respond_with(rewrite)
    base = ["--model-base-url", fake_openai.base_url, "--json"]
    _cli(str(path), "--out", str(out), *base)
    before = out.read_text()
    fake_openai.reset()
    result = _cli(str(out), "--out", str(out), *base)
    summary = _summary(result)
    assert (summary["kept"], summary["generated"], summary["children"]) == (6, 0, 0)
    assert out.read_text() == before and fake_openai.requests == []
    result = _cli(str(out), "--out", str(out), "--force", *base)  # from the cache
    assert _summary(result)["cached"] == 6 and out.read_text() == before


def test_children_only(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    path = write(tmp_path / "in.jsonl", family())
    out = tmp_path / "kids.jsonl"
    fake_openai.respond_with(rewrite)
    _cli(str(path), "--out", str(out), "--children-only", "--model-base-url", fake_openai.base_url)
    assert [t.parent_id for t in read(out)] == ["concert"] * 5 + ["pair"]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("", "one line"),
        ("Here you go:\nFind the hotel.", "one line"),
        ('{"task": "Find the hotel."}', "JSON"),
        ("Hotel.", "too short"),
        ("x" * 2001, "too long"),
        (PARENT.upper(), "repeats the original task"),
    ],
)
def test_a_rewrite_is_checked(reply: str, problem: str) -> None:
    with pytest.raises(ReplyRejected, match=problem):
        instruction_parser(PARENT)(reply)


def test_labels_and_quotes_are_trimmed() -> None:
    parse = instruction_parser(PARENT)
    assert parse('New task: "Find a piano concert in the US."') == {
        "instruction": "Find a piano concert in the US."
    }


def test_bad_rewrites_are_retried_and_a_hopeless_child_is_reported(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    path = write(tmp_path / "in.jsonl", [task("pair", "Compare the unit prices.", sizes=(3, 1))])
    out = tmp_path / "out.jsonl"
    fake_openai.push("Compare the unit prices.", Reply(status=500), "Compare the three prices.")
    args = [str(path), "--out", str(out), "--model-base-url", fake_openai.base_url, "--json"]
    summary = _summary(_cli(*args))
    assert (summary["generated"], summary["failed"], summary["calls"]) == (1, 0, 2)
    assert "repeats the original task" in last_user_text(fake_openai.requests[-1])
    fake_openai.reset()
    fake_openai.respond_with(lambda body: "{}")
    again = [str(out), "--out", str(out), "--model-base-url", fake_openai.base_url, "--json"]
    result = _cli(*again, "--force", "--cache", str(tmp_path / "fresh"), "--attempts", "2")
    assert result.exit_code == 1
    summary = _summary(result)
    assert summary["failed"] == 1 and summary["failures"][0]["id"] == "pair@g1"
    assert [t.id for t in read(out)] == ["pair", "pair@g1"]  # the old child stays


def test_plan_counts_existing_children(tmp_path: Path) -> None:
    tasks = family()
    tasks.insert(1, task("concert@g2", "Already made.", sizes=(3,), parent_id="concert"))
    plan = plan_decomposition(write(tmp_path / "in.jsonl", tasks))
    assert plan.existing == {"concert@g2"} and plan.children_in_input == 1
    assert len(plan.to_make(force=False)) == 5 and len(plan.to_make(force=True)) == 6
