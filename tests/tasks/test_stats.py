"""Task-set statistics, ``webdojo tasks stats`` and its HTML page in real headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import async_playwright
from shape_tasks import last_json, mixed_set, write
from typer.testing import CliRunner

from webdojo.cli import app
from webdojo.tasks.stats import FrequencyRun, file_stats, frequency_runs
from webdojo.viewer.task_stats_page import write_stats_page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--no-sandbox"]  # fmt: skip


def test_frequency_runs() -> None:
    assert frequency_runs([5, 5, 3, 1, 1, 1]) == [
        FrequencyRun(1, 2, 5), FrequencyRun(3, 3, 3), FrequencyRun(4, 6, 1),
    ]  # fmt: skip
    assert frequency_runs([]) == []


def test_stats_numbers(tmp_path: Path) -> None:
    stats = file_stats(write(tmp_path / "tasks.jsonl", mixed_set()), top=3)
    assert stats.tasks == 36 and stats.websites == 15
    assert stats.original == 34 and stats.decomposed == 2
    # site3 has 4 tasks + 1 subtask on site3.co.uk; site7 and site11 have 4 each
    assert stats.top_websites == [("site3.co.uk", 5), ("site11.co.uk", 4), ("site7.co.uk", 4)]
    assert sum(r.tasks * (r.last - r.first + 1) for r in stats.frequency) == 36
    assert stats.frequency[-1].last == 15
    assert stats.domains["Entertainment"] == 30 and stats.domains["(unknown)"] == 6
    assert stats.subdomains["Entertainment"] == {"Books & Reading": 12, "Music": 18}
    assert stats.levels == {"easy": 14, "medium": 12, "hard": 9, "(unknown)": 1}
    assert stats.difficulty[0] == (2, 0)  # no difficulty (one of them has a level)
    assert stats.difficulty[1] == (3, 2)  # three originals and both subtasks have one fact
    assert stats.sources == {"test": 34, "builtin": 2}


def test_stats_command(tmp_path: Path) -> None:
    source = write(tmp_path / "tasks.jsonl", mixed_set())
    html = tmp_path / "page" / "stats.html"
    result = CliRunner().invoke(app, ["tasks", "stats", str(source), "--html", str(html), "--json"])
    assert result.exit_code == 0, result.output
    data = last_json(result.output)
    assert data["tasks"] == 36 and data["decomposed"] == 2 and data["html"] == str(html)
    for title in ("Top websites", "Tasks per website", "Subdomains", "Difficulty", "Sources"):
        assert title in result.output
    page = html.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page), "loads something from outside"
    missing = CliRunner().invoke(app, ["tasks", "stats", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "No such file" in missing.output


def _cells(rows: list[list[str]]) -> dict[str, list[str]]:
    return {r[0]: r[1:] for r in rows}


@pytest.mark.browser
async def test_stats_page_in_chromium(tmp_path: Path, artifacts_dir: Path) -> None:
    stats = file_stats(write(tmp_path / "tasks.jsonl", mixed_set()))
    page_path = write_stats_page(stats, tmp_path / "stats.html")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1280, "height": 900})
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: None if r.url.startswith(("file:", "data:"))
                else problems.append(f"request to {r.url}"))  # fmt: skip
        await page.goto(page_path.as_uri())
        assert await page.locator("h1").inner_text() == "tasks.jsonl"
        for section in ("summary", "websites", "domains", "difficulty", "sources"):
            assert await page.locator(f"#{section}").is_visible()
        assert await page.locator("section svg").count() == 6  # curve, top, 2 domain, diff, src
        assert "Tasks per website" in await page.locator("#websites svg").first.text_content()
        summary = await page.locator("#summary .stat").all_inner_texts()
        assert (
            "36\ntasks" in summary
            and "15\nwebsites" in summary
            and "2\ndecomposed tasks" in summary
        )

        async def table(table_id: str) -> dict[str, list[str]]:
            rows = await page.locator(f"#{table_id} tbody tr").evaluate_all(
                "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
            )
            return _cells(rows)

        top = await table("top-websites")
        assert top["site3.co.uk"] == ["5", "13.9%"]
        assert (await table("difficulty-table"))["1"] == ["3", "2", "5"]
        assert (await table("source-table"))["builtin"] == ["2", "5.6%"]
        assert (await table("level-table"))["hard"] == ["9", "25.0%"]
        assert (await table("subdomain-table"))["Entertainment / Music"] == ["18", "50.0%"]
        await page.locator("#top-websites th", has_text="tasks").click()  # sort.js works
        await page.screenshot(path=artifacts_dir / "task-stats.png", full_page=True)
        await browser.close()
    assert not problems, problems
