"""Mind2Web-Live's evaluation rules on the real task file (imported as ``webdojo tasks import``
does), checked against hand-built trajectories whose pages match the rules or miss them."""

from __future__ import annotations

from pathlib import Path

import pytest

from judges.rule_runs import clicks, write_episode
from shared_data import shared_file
from webdojo.actions import Action, Click, Select, Type
from webdojo.judges.live_rules import check_rules, completion, site_name, url_value
from webdojo.judges.programmatic import ProgrammaticJudge
from webdojo.tasks.schema import EvalRule, Task
from webdojo.tasks.sources import import_tasks
from webdojo.tasks.task_file import iter_tasks

SOURCE = "tasks/mind2web_live/mind2web-live_test_20241024.json"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Task]:
    """The 104 real Mind2Web-Live tasks by index ("0", "1", ...)."""
    source = shared_file(SOURCE)
    out = tmp_path_factory.mktemp("live") / "tasks.jsonl"
    import_tasks([str(source)], out)
    return {t.id.removeprefix("mind2web_live:"): t for t in iter_tasks(out)}


# --- URL rules ---------------------------------------------------------------------------------


def test_url_parts_as_webcanvas_reads_them() -> None:
    url = "https://www.flightaware.com/commercial/aero%20api/;p?q=1&store=a%2520b#plans"
    included = EvalRule(match="url_included_match", reference="x")
    exactly = EvalRule(match="url_exactly_match", reference="x")
    keyed = EvalRule(match="url_exactly_match", reference="x", key="store")
    assert url_value(url, included) == "www.flightaware.com/commercial/aero api/#plans"
    assert (
        url_value(url, exactly)
        == "https://www.flightaware.com/commercial/aero api/;p?q=1&store=a%20b#plans"
    )
    assert url_value(url, keyed) == "a b"  # decoded twice, as WebCanvas does (parse_qs, unquote)
    assert url_value("https://a.com/?store=", keyed) is None  # an empty value is no value
    assert url_value("https://a.com/?other=1", keyed) is None


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://www.imdb.com/title/", "imdb"),
        ("https://zhihu.com/", "zhihu"),
        ("https://www.google.com.hk/", "google"),
        ("https://sports.yahoo.com/nba", "sports"),
        ("about:blank", ""),
    ],
)
def test_site_names_as_webcanvas_reads_them(url: str, name: str) -> None:
    assert site_name(url) == name


async def test_gamestop_store_parameter_matched_at_its_step(
    live: dict[str, Task], tmp_path: Path
) -> None:
    task = live["0"]  # url_included_match "gamestop.", url_exactly_match store=2630
    pages = clicks(
        "https://www.gamestop.com/",
        "https://www.gamestop.com/stores/?zip=90028",
        "https://www.gamestop.com/search/?q=x&store=2630",
    )
    t = write_episode(tmp_path, task, pages, final_url="https://www.gamestop.com/account/")
    checks = check_rules(t)
    assert [(c.passed, c.evidence) for c in checks] == [(True, [0]), (True, [2])]
    verdict = await ProgrammaticJudge().judge(t)
    assert (verdict.label, verdict.reward) == ("success", 1.0)
    assert [(c.name, c.kind) for c in verdict.criteria] == [("rule 1", "rule"), ("rule 2", "rule")]
    assert verdict.notes == ["key nodes: 2/2 matched"]


async def test_another_store_is_a_failure_that_says_what_it_saw(
    live: dict[str, Task], tmp_path: Path
) -> None:
    pages = clicks("https://www.gamestop.com/", "https://www.gamestop.com/search/?store=1234")
    t = write_episode(tmp_path, live["0"], pages)
    verdict = await ProgrammaticJudge().judge(t)
    assert (verdict.label, verdict.reward) == ("failure", 0.0)
    rule = verdict.criteria[1]
    assert rule.passed is False and rule.evidence == []
    assert "query parameter 'store'" in rule.reason and "'1234'" in rule.reason
    assert verdict.notes == ["key nodes: 1/2 matched"]


async def test_the_final_page_counts_with_its_own_index(
    live: dict[str, Task], tmp_path: Path
) -> None:
    task = live["1"]  # flightaware., /aeroap, #compare-plans-section
    pages = clicks(
        "https://www.flightaware.com/", "https://www.flightaware.com/commercial/aeroapi/"
    )
    final = "https://www.flightaware.com/commercial/aeroapi/#compare-plans-section"
    t = write_episode(tmp_path, task, pages, final_url=final)
    assert [c.evidence for c in check_rules(t)] == [[0], [1], [2]]  # 2 = len(steps): the end
    assert (await ProgrammaticJudge().judge(t)).label == "success"
    # without the fragment the plans section was never reached
    t = write_episode(tmp_path / "b", task, pages)
    assert [c.passed for c in check_rules(t)] == [True, True, False]


async def test_a_trajectory_elsewhere_passes_no_real_task(
    live: dict[str, Task], tmp_path: Path
) -> None:
    """Every real task names its website in a rule: a trajectory on another site fails it (or
    stays undecided when none of its rules can be checked), never passes."""
    labels = []
    for task in live.values():
        t = write_episode(tmp_path, task, clicks("https://example.org/?store=2630"))
        verdict = await ProgrammaticJudge().judge(t)
        checkable = any(c.passed is not None for c in check_rules(t))
        assert verdict.label == ("failure" if checkable else "infra_error"), task.id
        labels.append(verdict.label)
    assert labels == ["failure"] * 104  # every real task has a rule this judge checks


# --- values typed, and the rules this judge cannot check --------------------------------------


def _budget(
    name: str, confirmation: str, site: str = "https://www.budget.com"
) -> list[tuple[str, Action]]:
    form = f"{site}/en/reservation/get-e-receipt"
    return [
        (f"{site}/en/home", Click(x=5, y=5)),
        (form, Type(text=name, element=3)),
        (form, Type(text=confirmation, element=4)),
        (form, Click(x=5, y=5)),
    ]


async def test_typed_values_match_and_an_element_path_leaves_it_undecided(
    live: dict[str, Task], tmp_path: Path
) -> None:
    task = live["30"]  # budget: 2 URL rules, 2 element values (#lastName, #Confirmation-no), 1 path
    t = write_episode(tmp_path, task, _budget("Smith", "X123456989"))
    checks = check_rules(t)
    assert [c.passed for c in checks] == [True, True, True, True, None]
    assert [c.evidence for c in checks[2:4]] == [[1], [2]]
    assert all(c.approximate and "not checked: runs store no DOM" in c.reason for c in checks[2:4])
    assert "DOM" in checks[4].reason
    verdict = await ProgrammaticJudge().judge(t)
    assert verdict.label == "infra_error" and verdict.reward is None
    assert verdict.error is not None and verdict.error.code == "rules_unchecked"
    assert verdict.error.details == {"unchecked": [5]}
    assert "rule 5 (element_path_exactly_match)" in verdict.error.message
    assert verdict.notes[0] == "key nodes: 4/5 matched (1 unchecked)"
    assert "rule 3 (element_value_exactly_match) matched approximately" in verdict.notes[1]


async def test_a_wrong_value_fails_even_with_a_rule_unchecked(
    live: dict[str, Task], tmp_path: Path
) -> None:
    t = write_episode(tmp_path, live["30"], _budget("Smyth", "X123456989"))
    verdict = await ProgrammaticJudge().judge(t)
    assert verdict.label == "failure" and verdict.error is None
    assert (
        verdict.criteria[2].passed is False
        and "none of the 2 value(s)" in verdict.criteria[2].reason
    )
    assert "not checked, and not needed to decide: rule 5" in verdict.notes[-1]


async def test_values_typed_on_another_site_do_not_count(
    live: dict[str, Task], tmp_path: Path
) -> None:
    pages = [*_budget("x", "y"), *_budget("Smith", "X123456989", site="https://www.avis.com")]
    t = write_episode(tmp_path, live["30"], pages)
    rule = check_rules(t)[2]
    assert rule.passed is False and "(2 more elsewhere)" in rule.reason


async def test_a_selected_option_is_a_value_and_semantic_rules_need_a_model(
    live: dict[str, Task], tmp_path: Path
) -> None:
    task = live["7"]  # underarmour gift card: 4 element values, a semantic match, a path
    page = "https://www.underarmour.com/en-us/p/gift_cards/ua_egift_card/GC-0001-ALL.html"
    pages: list[tuple[str, Action]] = [
        ("https://www.underarmour.com/en-us/", Click(x=1, y=1)),
        (page, Type(text="Johm", element=1)),
        (page, Type(text="abc@test.com", element=2)),
        (page, Type(text="buckeye.foobar@gmail.com", element=3)),
        (page, Select(element=4, option="100")),
    ]
    checks = check_rules(write_episode(tmp_path, task, pages))
    assert [c.rule.match for c in checks][2:] == [
        *["element_value_exactly_match"] * 4, "element_value_semantic_match",
        "element_path_exactly_match",
    ]  # fmt: skip
    assert [c.passed for c in checks] == [True, True, True, True, True, True, None, None]
    assert checks[5].evidence == [4]  # the select step
    assert "needs a model" in checks[6].reason
    assert completion(checks) == "key nodes: 6/8 matched (2 unchecked)"


async def test_cache_data_rules_read_the_final_answer(tmp_path: Path) -> None:
    rules = [
        {"match": "cache_data_included_match", "reference": "Open 10 AM"},
        {"match": "cache_data_exactly_match", "reference": "open 10 am - 9 pm"},
        {"match": "cache_data_exactly_match", "reference": "closed"},
    ]
    task = Task.model_validate({"id": "live.hours", "instruction": "When is it open?",
                                "eval_rules": rules})  # fmt: skip
    t = write_episode(
        tmp_path, task, clicks("https://shop.example/"), answer="<answer>Open 10 AM - 9 PM</answer>"
    )
    assert [(c.passed, c.evidence) for c in check_rules(t)] == [
        (True, [1]),
        (True, [1]),
        (False, []),
    ]
    t = write_episode(tmp_path / "b", task, clicks("https://shop.example/"))
    assert "no final answer" in check_rules(t)[0].reason
