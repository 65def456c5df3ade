"""Judges' verdicts in the viewer: the API, the overview's judge table and episode columns, and
the episode page's verdict panel with its evidence links, in headless Chromium."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Page, expect

from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import Criterion, Verdict, VerdictWriter
from webdojo.viewer.app import create_app
from webdojo.viewer.server import ViewerServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def judged_copy(random_run: Path, tmp_path: Path) -> tuple[Path, str, int]:
    """A copy of the real random run judged by the real programmatic judge, plus a rubric-like
    verdict (with evidence) on its first episode; returns the run, that key and its steps."""
    run = tmp_path / "judged"
    shutil.copytree(random_run, run)
    asyncio.run(judge_run(run, "programmatic", JudgeOptions()))
    stored = read_run(run)
    key, record = next(iter(stored.episodes.items()))
    n = len(stored.steps_of(key))
    criteria = [
        Criterion(name="G1.1", kind="fact", passed=False, reason="the cart stays empty",
                  evidence=[1, n]),
        Criterion(name="G1.2", kind="fact", passed=None, reason="not checked: an earlier fact failed"),
    ]  # fmt: skip
    verdict = Verdict(judge="rubric", key=key, episode=record.episode, task_id=record.task_id,
                      label="failure", reward=0.0, criteria=criteria, notes=["downscaled 2 images"])  # fmt: skip
    stale = verdict.model_copy(update={"key": "other#0", "episode": "an-older-attempt"})
    with VerdictWriter(run, "rubric") as writer:
        writer.write(verdict)
        writer.write(stale)  # a verdict on an attempt that is not the run's: never shown
    return run, key, n


def test_the_api_carries_verdicts(random_run: Path, tmp_path: Path) -> None:
    run, key, _ = judged_copy(random_run, tmp_path)
    with ViewerServer(create_app([run])) as server:
        overview = httpx.get(f"{server.url}api/runs/a/overview", timeout=60).json()
        episode = httpx.get(
            f"{server.url}api/runs/a/episode", params={"key": key}, timeout=60
        ).json()
    judges = {j["judge"]: j for j in overview["judges"]}
    episodes = len(read_run(run).episodes)
    assert judges["programmatic"]["verdicts"] == episodes
    assert judges["programmatic"]["agree_with_verifier"] == judges["programmatic"]["with_verifier"]
    assert judges["rubric"]["verdicts"] == 1 and judges["rubric"]["labels"] == {"failure": 1}
    row = next(r for r in overview["episodes"] if r["key"] == key)
    assert row["verdicts"]["rubric"] == {"label": "failure", "reward": 0.0}
    shown = {v["judge"]: v for v in episode["verdicts"]}
    assert set(shown) == {"programmatic", "rubric"}
    assert shown["rubric"]["criteria"][0]["reason"] == "the cart stays empty"


async def test_the_episode_page_shows_reasons_and_evidence_links(
    page: Page, random_run: Path, tmp_path: Path, artifacts_dir: Path
) -> None:
    run, key, n = await asyncio.to_thread(judged_copy, random_run, tmp_path)
    with ViewerServer(create_app([run])) as server:
        await page.goto(f"{server.url}#/run/a")
        await expect(
            page.get_by_test_id("judges").locator('tr[data-judge="rubric"]')
        ).to_be_visible()
        cell = page.get_by_test_id("episodes").locator(
            f'tr[data-key="{key}"] td[data-judge="rubric"]'
        )
        await expect(cell).to_have_text("failure")
        await page.goto(f"{server.url}#/run/a/episode/{key}")
        panel = page.get_by_test_id("verdicts").locator('[data-judge="rubric"]')
        await expect(panel).to_contain_text("the cart stays empty")
        await expect(panel).to_contain_text("not checked")
        await expect(panel).to_contain_text("downscaled 2 images")
        await expect(
            page.get_by_test_id("verdicts").locator('[data-judge="programmatic"]')
        ).to_be_visible()
        await panel.locator('a.evidence[data-step="1"]').click()
        await expect(page.get_by_test_id("step-index")).to_have_text(f"2 / {n}")
        await page.screenshot(path=artifacts_dir / "viewer-verdicts.png", full_page=True)
        final = page.get_by_test_id("verdicts").locator(
            f'[data-judge="rubric"] a.evidence[data-step="{n}"]'
        )
        await expect(final).to_have_text("final page")
        await final.click()
        await expect(page.get_by_test_id("step-index")).to_have_text(f"{n} / {n}")
