"""Every loader on the real public files in ../shared/data: counts checked against the files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from import_helpers import jsonl, run_import

from shared_data import shared_file
from webdojo.tasks.loader import load_spec
from webdojo.tasks.schema import Task


def test_webvoyager_tasks_with_golden_and_possible_answers(tmp_path: Path) -> None:
    source = shared_file("tasks/webvoyager/WebVoyager_data.jsonl")
    raw = jsonl(source)
    answers = json.loads((source.parent / "reference_answer.json").read_text())
    report, tasks = run_import(tmp_path, source)
    assert report.formats == "webvoyager" and len(raw) == len(tasks) == 643
    assert report.sources[0].notes == []  # every task found its answer
    kinds = Counter(t.reference_answers[0].type for t in tasks)
    assert all(len(t.reference_answers) == 1 for t in tasks)
    file_kinds = Counter(a["type"] for site in answers.values() for a in site["answers"])
    assert kinds == file_kinds == {"golden": 143, "possible": 500}
    by_id = {t.id: t for t in tasks}
    first = by_id["webvoyager:Allrecipes--0"]
    assert first.instruction == raw[0]["ques"] and first.website == "https://www.allrecipes.com/"
    assert first.start_url == first.website and first.source == "webvoyager"
    assert first.reference_answers[0].answer == answers["Allrecipes"]["answers"][0]["ans"]
    assert first.meta == {
        "web_name": "Allrecipes",
        "id": "Allrecipes--0",
        "answer_notice": answers["Allrecipes"]["notice"],  # verbatim, leading space included
    }
    bbc = by_id["webvoyager:BBC_News--0"]  # "BBC News--0": the space is not allowed in an id
    assert bbc.meta["id"] == "BBC News--0" and bbc.meta["web_name"] == "BBC News"
    assert Counter(t.meta["web_name"] for t in tasks) == Counter(r["web_name"] for r in raw)


def test_webvoyager_without_its_answer_file_says_so(tmp_path: Path) -> None:
    copy = tmp_path / "WebVoyager_data.jsonl"
    copy.write_bytes(shared_file("tasks/webvoyager/WebVoyager_data.jsonl").read_bytes())
    report, tasks = run_import(tmp_path, copy)
    assert len(tasks) == 643 and not any(t.reference_answers for t in tasks)
    assert report.sources[0].notes == [
        "no reference_answer.json next to WebVoyager_data.jsonl: the tasks have no reference answers"
    ]


def test_both_online_mind2web_versions(tmp_path: Path) -> None:
    for name, levels in [
        ("Online_Mind2Web.abp_2026-03.json", {"medium": 143, "easy": 80, "hard": 77}),
        ("Online_Mind2Web.tiro_2025-06.json", {"medium": 143, "easy": 83, "hard": 74}),
    ]:
        source = shared_file(f"tasks/online_mind2web/{name}")
        raw = json.loads(source.read_text())
        report, tasks = run_import(tmp_path, source)
        assert report.formats == "online_mind2web" and len(tasks) == len(raw) == 300
        assert Counter(t.level for t in tasks) == Counter(r["level"] for r in raw) == levels
        for task, row in zip(tasks, raw, strict=True):
            assert task.id == f"online_mind2web:{row['task_id']}"
            assert task.instruction == row["confirmed_task"] and task.website == row["website"]
            assert task.meta == {
                "task_id": row["task_id"],
                "reference_length": row["reference_length"],
            }
            assert (
                task.difficulty is None
                and task.max_steps == {"easy": 10, "medium": 20, "hard": 30}[row["level"]]
            )


def test_the_two_online_mind2web_versions_share_254_ids(tmp_path: Path) -> None:
    new, old = (
        shared_file("tasks/online_mind2web/Online_Mind2Web.abp_2026-03.json"),
        shared_file("tasks/online_mind2web/Online_Mind2Web.tiro_2025-06.json"),
    )
    report, tasks = run_import(tmp_path, new, old, skip_invalid=True)
    assert len(tasks) == 346 and report.reasons() == {"duplicate id": 254}
    assert report.sources[1].tasks == 46 and report.sources[1].skipped == 254
    assert all(s.where.startswith(str(old)) for s in report.skipped)
    assert f"(first at {new}:" in report.skipped[0].detail


def test_mind2web_live_rules_become_eval_rules(tmp_path: Path) -> None:
    source = shared_file("tasks/mind2web_live/mind2web-live_test_20241024.json")
    raw = json.loads(source.read_text())
    report, tasks = run_import(tmp_path, source)
    assert report.formats == "mind2web_live" and len(tasks) == len(raw) == 104
    rules = [rule for t in tasks for rule in t.eval_rules]
    file_rules = [step for row in raw for step in row["evaluation"]]
    assert len(rules) == len(file_rules) == 443
    assert Counter(r.match for r in rules) == Counter(s["match_function_name"] for s in file_rules)
    for rule, step in zip(rules, file_rules, strict=True):
        content = step["content"]
        assert rule.reference == content["reference_answer"]  # verbatim, trailing spaces kept
        assert (rule.key, rule.url, rule.netloc, rule.path, rule.method) == (
            content.get("key", ""), content.get("url"), content.get("netloc"),
            content.get("path"), step.get("method"),
        )  # fmt: skip
    first = tasks[0]
    assert first.id == "mind2web_live:0" and first.instruction == raw[0]["task"]
    assert first.website == first.start_url == "https://www.gamestop.com/"
    assert first.meta == {"index": 0, "reference_task_length": 8}
    assert all(t.website and t.website.startswith("https://") for t in tasks)


def test_deepshop_difficulty_is_the_level(tmp_path: Path) -> None:
    source = shared_file("tasks/deepshop/deepshop_example.jsonl")
    raw = jsonl(source)
    report, tasks = run_import(tmp_path, source)
    assert report.formats == "deepshop" and len(tasks) == len(raw) == 10
    for task, row in zip(tasks, raw, strict=True):
        assert task.id == f"deepshop:{row['id']}" and task.level == row["difficulty"] == "easy"
        assert task.website == row["web"] and task.instruction == row["ques"]
        assert task.meta == {
            k: row[k] for k in ("web_name", "id", "attribute", "filter", "sort", "category")
        }
    assert tasks[0].meta["sort"] == "None"  # the source's own spelling, kept


def test_mind2web2_has_no_website(tmp_path: Path) -> None:
    source = shared_file("tasks/mind2web2/dev_set_tasks.jsonl")
    raw = jsonl(source)
    report, tasks = run_import(tmp_path, source)
    assert report.formats == "mind2web2" and len(tasks) == len(raw) == 10
    assert all(t.website is None and t.start_url is None for t in tasks)
    assert [t.id for t in tasks] == [f"mind2web2:{r['task_id']}" for r in raw]
    noted = [t for t in tasks if "eval_notes" in t.meta]
    assert len(noted) == sum("eval_notes" in r for r in raw) == 2


def test_flashrag_answers_are_golden(tmp_path: Path) -> None:
    source = shared_file("qa/flashrag_nq_test.jsonl")
    raw = jsonl(source)
    report, tasks = run_import(tmp_path, source)
    assert report.formats == "flashrag" and len(tasks) == len(raw) == 17
    for task, row in zip(tasks, raw, strict=True):
        assert task.id == f"flashrag:{row['id']}" and task.instruction == row["question"]
        assert [a.answer for a in task.reference_answers] == row["golden_answers"]
        assert {a.type for a in task.reference_answers} == {"golden"} and task.website is None
    assert max(len(t.reference_answers) for t in tasks) == 16


def test_builtin_export_is_the_builtin_tasks(tmp_path: Path) -> None:
    report, tasks = run_import(tmp_path, "builtin")
    assert report.formats == "builtin" and tasks == load_spec("builtin").tasks
    assert len(tasks) == 63 and all(t.source == "builtin" for t in tasks)


def test_every_real_set_in_one_file_loads_in_hugging_face(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    sources = [
        shared_file("tasks/webvoyager/WebVoyager_data.jsonl"),
        shared_file("tasks/online_mind2web/Online_Mind2Web.abp_2026-03.json"),
        shared_file("tasks/mind2web_live/mind2web-live_test_20241024.json"),
        shared_file("tasks/deepshop/deepshop_example.jsonl"),
        shared_file("tasks/mind2web2/dev_set_tasks.jsonl"),
        shared_file("qa/flashrag_nq_test.jsonl"),
        "builtin",
    ]
    report, tasks = run_import(tmp_path, *sources)
    assert report.tasks == len(tasks) == 643 + 300 + 104 + 10 + 10 + 17 + 63
    assert (
        report.formats
        == "webvoyager,online_mind2web,mind2web_live,deepshop,mind2web2,flashrag,builtin"
    )
    assert all(t.id.startswith(f"{t.source}:") for t in tasks if t.source != "builtin")
    rows = datasets.load_dataset(
        "json",
        data_files=str(tmp_path / "imported.jsonl"),
        split="train",
        cache_dir=str(tmp_path / "hf"),
    )
    assert [Task.model_validate(row) for row in rows] == tasks
