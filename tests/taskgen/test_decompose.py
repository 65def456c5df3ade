"""WebGym's Algorithm 1 without a model: eligibility, candidate subsets, child tasks."""

from __future__ import annotations

import itertools
import random

from taskgen_helpers import groups, task

from webdojo.taskgen.decompose import (
    candidate_subsets,
    child_id,
    child_task,
    is_eligible,
    subset_difficulty,
    subset_name,
)
from webdojo.tasks.schema import Task


def named(subsets) -> dict[str, int]:
    return {subset_name(s): subset_difficulty(s) for s in subsets}


def test_the_papers_three_group_example() -> None:
    """G1 (2 facts), G2 (3), G3 (4): {G2}=3, {G3}=4, {G1,G2}=5, {G1,G3}=6, {G2,G3}=7, in that
    order; {G1} has no large group and {G1,G2,G3} is the task itself."""
    subsets = candidate_subsets(groups(2, 3, 4))
    assert list(named(subsets).items()) == [
        ("g2", 3), ("g3", 4), ("g1+g2", 5), ("g1+g3", 6), ("g2+g3", 7),
    ]  # fmt: skip
    assert "g1" not in named(subsets) and "g1+g2+g3" not in named(subsets)


def test_the_papers_two_group_example() -> None:
    """3 facts + 1 fact: only the large group alone."""
    assert named(candidate_subsets(groups(3, 1))) == {"g1": 3}


def test_eligibility() -> None:
    assert not is_eligible(groups(5))  # one group: nothing proper to keep
    assert not is_eligible(groups(2, 2, 2))  # no large group
    assert is_eligible(groups(1, 3))
    assert candidate_subsets(groups(2, 2, 2)) == [] and candidate_subsets(groups(7)) == []


def test_against_a_brute_force_definition() -> None:
    """For random rubrics: exactly the proper subsets with a large group; each strictly easier
    than the parent and at least 3 facts."""
    rng = random.Random(7)
    for _ in range(200):
        sizes = [rng.randint(1, 5) for _ in range(rng.randint(1, 6))]
        gs = groups(*sizes)
        expected = {
            tuple(g.id for g in combo)
            for r in range(1, len(gs))
            for combo in itertools.combinations(gs, r)
            if len(gs) >= 2 and any(len(g.facts) >= 3 for g in combo)
        }
        got = candidate_subsets(gs)
        assert {tuple(g.id for g in s) for s in got} == expected
        assert all(3 <= subset_difficulty(s) < sum(sizes) for s in got)


def test_a_child_links_to_its_parent_and_inherits_its_place() -> None:
    parent = task(
        "wv.Allrecipes--3", "Find a vegan lasagna with at least 4.5 stars and list its prep time.",
        sizes=(2, 3, 4), website="https://www.allrecipes.com/", start_url="https://www.allrecipes.com/",
        source="webvoyager", subdomain="Food & Cooking", tags=["seed"], meta={"web_name": "Allrecipes"},
        step_cap=40, reference_answers=[{"type": "possible", "answer": "Vegan Lasagna I"}],
    )  # fmt: skip
    subset = tuple(parent.rubric.fact_groups[i] for i in (0, 2))
    child = child_task(parent, subset, "Find a vegan lasagna.", {"decompose_model": "m"})
    assert child.id == "wv.Allrecipes--3@g1+g3" and child.parent_id == parent.id
    assert [g.id for g in child.rubric.fact_groups] == [1, 3]
    assert child.difficulty == 6 and child.level == "medium"
    assert child.subdomain == "Food & Cooking"
    assert (child.website, child.start_url, child.source, child.domain) == (
        parent.website, parent.start_url, "webvoyager", "Lifestyle & Leisure",
    )  # fmt: skip
    assert child.tags == ["seed", "decomposed"]
    assert child.meta["web_name"] == "Allrecipes"
    assert child.meta["webdojo"] == {"decompose_model": "m", "groups": [1, 3]}
    assert (
        child.reference_answers == [] and child.step_cap is None
    )  # the whole task's, not its part's
    Task.model_validate_json(child.model_dump_json())  # round-trips through a task file


def test_child_ids_stay_valid_and_distinct_for_long_parents() -> None:
    subset = tuple(groups(3))
    a, b = "x" * 199 + "a", "x" * 199 + "b"
    ids = {child_id(a, subset), child_id(b, subset)}
    assert len(ids) == 2 and all(len(i) <= 200 and i.endswith("@g1") for i in ids)
    assert child_id("short", subset) == "short@g1"
