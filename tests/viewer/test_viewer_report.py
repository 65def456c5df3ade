"""``webdojo report`` (one self-contained HTML file) and the ``view`` command line."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Page, expect
from typer.testing import CliRunner
from viewer_runs import latest_episodes

from webdojo.cli import app
from webdojo.store.summary import summarize
from webdojo.viewer import write_report
from webdojo.viewer.report import pick_examples
from webdojo.viewer.runs import load_run
from webdojo.viewer.views import episode_rows

pytestmark = pytest.mark.browser  # the run fixtures drive Chromium


def test_report_is_self_contained(scripted_run: Path, tmp_path: Path) -> None:
    out = write_report(scripted_run, tmp_path / "sub" / "report.html")
    html = out.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", html), "loads something from outside"
    assert "<link" not in html and "<script src" not in html
    assert html.count("<svg") >= 2 + 1  # two plots and at least one step overlay
    assert "data:image/jpeg;base64," in html
    assert out.stat().st_size < 2_000_000
    summary = summarize(scripted_run)
    rate = summary.overall.success_rate
    assert ("–" if rate is None else f"{rate * 100:.1f}%") in html
    for key in latest_episodes(scripted_run):
        assert key in html


def test_examples_vary(scripted_run: Path) -> None:
    rows = episode_rows(load_run(scripted_run))
    picked = pick_examples(rows, 3)
    assert 0 < len(picked) <= 3 and all(r["steps"] for r in picked)
    statuses = {r["status"] for r in rows if r["steps"]}
    assert len({r["status"] for r in picked}) == min(3, len(statuses))


def test_report_of_a_missing_or_empty_run(tmp_path: Path) -> None:
    html = write_report(tmp_path, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "is it a run directory" in html and "No episode with recorded steps" in html


async def test_report_renders_in_chromium(
    page: Page, scripted_run: Path, tmp_path: Path, artifacts_dir: Path
) -> None:
    out = write_report(scripted_run, tmp_path / "report.html")
    await page.goto(out.as_uri())
    await expect(page.locator("h1")).to_have_text(scripted_run.name)
    assert await page.locator(".report-step img").count() > 0
    await expect(page.get_by_test_id("evaluation").locator("td").first).to_have_text("verifier")
    await page.screenshot(path=artifacts_dir / "viewer-report.png", full_page=True)


def test_report_command(scripted_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(scripted_run), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output.strip().splitlines()[-1])["report"] == str(out)
    assert out.exists()


@pytest.mark.parametrize("command", ["report", "view"])
def test_commands_refuse_a_missing_directory(command: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [command, str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_view_command_serves_until_interrupted(scripted_run: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "webdojo.cli", "view", str(scripted_run), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        deadline = time.monotonic() + 10
        while True:
            try:
                runs = httpx.get(match.group(0) + "api/runs", timeout=30).json()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert runs[0]["path"] == str(scripted_run)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_report_compares_with_another_run(
    scripted_run: Path, random_run: Path, tmp_path: Path
) -> None:
    out = write_report(scripted_run, tmp_path / "r.html", compare_to=random_run)
    html = out.read_text(encoding="utf-8")
    assert f"Compared with {random_run.name}" in html
    a, b = latest_episodes(scripted_run), latest_episodes(random_run)
    won_a = {k for k, r in a.items() if r["success"]}
    won_b = {k for k, r in b.items() if r["success"]}
    expected = {
        "lost": {k for k in won_a - won_b if k in b},
        "gained": {k for k in won_b - won_a if k in a},
        "only_a": set(a) - set(b),
        "only_b": set(b) - set(a),
    }
    for change, keys in expected.items():
        shown = set(re.findall(rf"<tr data-change='{change}'><td class='mono'>([^<]+)</td>", html))
        assert shown == keys, change
    assert "data-change='same'" not in html  # only the tasks that moved are listed
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", html)


def test_report_compare_with_a_missing_run_exits_2(scripted_run: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["report", str(scripted_run), "--compare", str(tmp_path / "gone")]
    )
    assert result.exit_code == 2 and "does not exist" in result.output
