"""`webdojo sites check` on the built-in sites: every page loads cleanly and every wrong
solution fails its verifier, in real Chromium. That every reference solution passes is the
main job's test (tests/e2e/test_run_cli.py), which replays them all through `webdojo run`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from webdojo.checks.sites import check_sites
from webdojo.tasks.loader import builtin_root, load_spec

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_every_builtin_page_loads_and_every_wrong_solution_fails() -> None:
    report = await check_sites("builtin", references=False)
    problems = [f"{p.site}/{p.page}: {p.problems}" for p in report.pages if not p.ok]
    problems += [f"{t.task_id}: {t.problems}" for t in report.tasks if not t.ok]
    assert not problems, "\n".join(problems)
    assert len(report.tasks) == len(load_spec("builtin").tasks) >= 40
    assert all(t.wrong_rejected and all(t.wrong_rejected) for t in report.tasks)
    assert all(t.reference_passed is None for t in report.tasks)


def test_check_reports_a_broken_site(tmp_path: Path) -> None:
    """A copy of one site with a missing script, a page that logs an error, and a task whose
    reference solution no longer works: the CLI exits 1 and names each problem."""
    site = tmp_path / "login"
    shutil.copytree(builtin_root() / "login", site)
    index = site / "index.html"
    index.write_text(
        index.read_text(encoding="utf-8").replace(
            "</body>",
            '<script src="missing.js"></script><script>console.error("boom")</script></body>',
        ),
        encoding="utf-8",
    )
    tasks = json.loads((site / "tasks.json").read_text(encoding="utf-8"))
    tasks = tasks[:1]
    tasks[0]["verifier"] = {
        "checks": [{"kind": "answer", "match": "exact", "value": "never given"}]
    }
    (site / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "webdojo.cli", "sites", "check", str(site), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    index_result = next(p for p in report["pages"] if p["page"] == "index.html")
    joined = " ".join(index_result["problems"])
    assert "missing.js" in joined and "boom" in joined
    assert report["tasks"][0]["reference_passed"] is False
    assert "reference solution failed" in report["tasks"][0]["problems"][0]
