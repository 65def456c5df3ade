"""``webdojo wiki serve`` and ``webdojo run --wiki`` as users run them (child processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from envs_data import NQ_SAMPLE, shared

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from cli_process import interruptible, last_json, stop_with_sigint, webdojo


def test_wiki_serve_prints_the_url_and_stops_on_ctrl_c(indexed_zim: Path) -> None:
    command = ["wiki", "serve", str(indexed_zim), "--port", "0", "--backend", "libzim"]
    proc = interruptible(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        assert "served by libzim" in lines[0] and "search page:" in lines[1]
        url = lines[2].strip()
        assert url.startswith("http://127.0.0.1:")
        with httpx.Client(trust_env=False, timeout=10) as http:
            found = http.get(url + "/search", params={"pattern": "Kilimanjaro"})
        assert "Mount Kilimanjaro" in found.text
    finally:
        err = stop_with_sigint(proc, "wiki serve")
    assert proc.returncode == 0, err


@pytest.mark.browser
def test_run_with_wiki_reads_our_tasks_and_flashrag(indexed_zim: Path, tmp_path: Path) -> None:
    own = tmp_path / "qa.jsonl"
    steps = [
        {"type": "type", "target": {"html_id": "kiwixsearchbox"}, "text": "Marie", "enter": True},
        {"type": "click", "target": {"role": "link", "name": "Marie Curie"}},
        {"type": "stop", "answer": "Warsaw"},
    ]
    row = {"id": "curie", "instruction": "Where was Marie Curie born?", "solution": steps,
           "reference_answers": [{"type": "golden", "answer": "Warsaw"}]}  # fmt: skip
    own.write_text(json.dumps(row) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    summary = last_json(
        webdojo(
            "run",
            "--tasks",
            f"{own},{shared(NQ_SAMPLE)}",
            "--wiki",
            indexed_zim,
            "--limit",
            "2",
            "--policy",
            "scripted",
            "--out",
            out,
            "--json",
        )
    )
    assert summary["episodes"] == 2 and summary["success_rate"] == 0.5, summary
    config = json.loads((out / "config.json").read_text())
    assert config["wiki"] == str(indexed_zim.resolve())
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    verdicts = {e["task_id"]: e["verifier"]["reasons"][0] for e in episodes}
    assert "exact match True" in verdicts["curie"]
    assert "exact match False" in verdicts["flashrag:test_0"]  # no solution: an empty answer
    # verify reads the QA sets as the run did (FlashRAG, exact-match verifiers), no browser
    agreement = last_json(webdojo("verify", out, "--json"))
    assert agreement["episodes"] == 2 == agreement["agree"] and agreement["disagree"] == []


@pytest.mark.browser
def test_a_server_serves_the_wiki_and_runs_qa_tasks_by_id(
    indexed_zim: Path, tmp_path: Path
) -> None:
    """`webdojo serve --tasks QA --wiki ZIM` starts its sessions on its own wiki (its origin
    allowed, nothing else on loopback); `webdojo run --server URL --wiki ZIM` runs them."""
    from webdojo.server.child_process import ServerProcess

    tasks = tmp_path / "qa.jsonl"
    steps = [
        {"type": "type", "target": {"html_id": "kiwixsearchbox"}, "text": "Kilimanjaro",
         "enter": True},
        {"type": "click", "target": {"role": "link", "name": "Mount Kilimanjaro"}},
        {"type": "stop", "answer": "Kilimanjaro"},
    ]  # fmt: skip
    row = {"id": "kili", "instruction": "What is the highest mountain in Africa?",
           "solution": steps, "reference_answers": [{"type": "golden", "answer": "Kilimanjaro"}]}  # fmt: skip
    tasks.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with ServerProcess(["--tasks", str(tasks), "--wiki", str(indexed_zim)]) as server:
        summary = last_json(webdojo("run", "--server", server.url, "--tasks", tasks, "--wiki",
                                    indexed_zim, "--policy", "scripted", "--out",
                                    tmp_path / "run", "--json"))  # fmt: skip
    assert summary["episodes"] == 1 and summary["success_rate"] == 1.0, summary
    episode = json.loads((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[0])
    assert "Kilimanjaro" in episode["final_url"] and episode["fault"] is None


def test_run_with_a_missing_zim_says_so(tmp_path: Path) -> None:
    proc = webdojo("run", "--tasks", shared(NQ_SAMPLE), "--wiki", tmp_path / "absent.zim",
                   "--out", tmp_path / "run")  # fmt: skip
    assert proc.returncode == 2
    assert "[bad_zim]" in proc.stderr and "no such ZIM file" in proc.stderr
    assert not (tmp_path / "run").exists()
