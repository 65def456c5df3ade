"""QA episodes on the offline wiki in real Chromium: every episode starts at the search page;
the scripted policy (search, open the article, stop with the answer) earns EM = 1, the random
policy does not. On the test wiki built with libzim, on the real Belarusian Wikibooks ZIM,
and through kiwix-serve when it is installed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from envs_data import NQ_SAMPLE, shared

from webdojo.envs.kiwix import kiwix_serve_path
from webdojo.policies import make_policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.records import EpisodeRecord
from webdojo.tasks.loader import TaskSet
from webdojo.tasks.qa_tasks import load_qa_tasks
from webdojo.tasks.schema import SolutionStep

pytestmark = pytest.mark.browser


def solution(query: str, title: str, answer: str) -> list[dict[str, Any]]:
    """Search for ``query``, open the result called ``title``, answer."""
    return [
        {"type": "type", "target": {"html_id": "kiwixsearchbox"}, "text": query, "enter": True},
        {"type": "click", "target": {"role": "link", "name": title}},
        {"type": "stop", "answer": answer},
    ]


def qa_task(task_id: str, question: str, golden: list[str], steps: list[dict[str, Any]]) -> dict:
    return {
        "id": task_id,
        "instruction": question,
        "reference_answers": [{"type": "golden", "answer": g} for g in golden],
        "solution": steps,
        "step_cap": 6,
    }


def english_tasks(tmp_path: Path) -> TaskSet:
    """The NQ sample's first question (the first Nobel Prize in Physics), read from the real
    FlashRAG file, plus two of our own; all answered in the test wiki."""
    nq = next(t for t in load_qa_tasks(str(shared(NQ_SAMPLE))).tasks if t.id == "flashrag:test_0")
    steps = solution("Nobel Prize in Physics 1901", "Wilhelm Röntgen", "Wilhelm Conrad Röntgen")
    nq = nq.model_copy(
        update={"solution": [SolutionStep.model_validate(s) for s in steps], "step_cap": 6}
    )
    own = tmp_path / "qa.jsonl"
    rows = [
        qa_task("curie", "In which city was Marie Curie born?", ["Warsaw"],
                solution("Marie Curie", "Marie Curie", "Warsaw")),
        qa_task("kili", "What is the highest mountain in Africa?", ["Mount Kilimanjaro",
                "Kilimanjaro"], solution("Kilimanjaro", "Mount Kilimanjaro", "Kilimanjaro")),
    ]  # fmt: skip
    own.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    tasks = load_qa_tasks(str(own))
    return TaskSet(tasks=[nq, *tasks.tasks])


def run(tasks: TaskSet, zim: Path, policy: str, out: Path, backend: str) -> list[EpisodeRecord]:
    config = RunConfig(
        tasks="qa", policy=policy, out=str(out), concurrency=3, wiki=str(zim), wiki_backend=backend
    )
    records = asyncio.run(run_job(config, tasks, make_policy(policy, seed=1)))
    return sorted(records, key=lambda r: r.task_id)


def test_scripted_solves_and_random_does_not_on_a_built_zim(
    indexed_zim: Path, tmp_path: Path
) -> None:
    tasks = english_tasks(tmp_path)
    solved = run(tasks, indexed_zim, "scripted", tmp_path / "scripted", "libzim")
    assert [(r.task_id, r.success, r.reward) for r in solved] == [
        ("curie", True, 1.0), ("flashrag:test_0", True, 1.0), ("kili", True, 1.0)
    ]  # fmt: skip
    assert all(r.final_url.startswith("http://127.0.0.1:") for r in solved)
    reasons = {r.task_id: r.verifier.reasons[0] for r in solved if r.verifier}
    assert "exact match True, F1 1.000" in reasons["curie"]
    randomly = run(tasks, indexed_zim, "random", tmp_path / "random", "libzim")
    assert len(randomly) == 3 and not any(r.success for r in randomly)
    assert all(r.fault is None for r in randomly)


def test_scripted_solves_questions_on_the_real_wikibooks_zim(
    wikibooks_zim: Path, tmp_path: Path
) -> None:
    rows = [
        qa_task("kava", "З чаго вырабляецца кава?", ["са смажаных зерняў кававага дрэва",
                "з смажаных зерняў кававага дрэва"],
                solution("Кава", "Кава", "з смажаных зерняў кававага дрэва")),
        qa_task("kvas", "Які напой квас?", ["старажытны хатні напой"],
                solution("Квас", "Рэцэпт:Квас", "старажытны хатні напой")),
    ]  # fmt: skip
    path = tmp_path / "be.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    solved = run(load_qa_tasks(str(path)), wikibooks_zim, "scripted", tmp_path / "s", "libzim")
    assert [(r.task_id, r.success) for r in solved] == [("kava", True), ("kvas", True)]
    randomly = run(load_qa_tasks(str(path)), wikibooks_zim, "random", tmp_path / "r", "libzim")
    assert not any(r.success for r in randomly)


@pytest.mark.skipif(kiwix_serve_path() is None, reason="kiwix-serve is not installed (kiwix-tools)")
def test_scripted_solves_questions_through_kiwix_serve(indexed_zim: Path, tmp_path: Path) -> None:
    tasks = english_tasks(tmp_path)
    solved = run(tasks, indexed_zim, "scripted", tmp_path / "kiwix", "kiwix")
    assert [(r.task_id, r.success) for r in solved] == [
        ("curie", True), ("flashrag:test_0", True), ("kili", True)
    ]  # fmt: skip
