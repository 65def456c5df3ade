"""Judges' verdicts in the viewer: the API, the overview's judge table and episode columns, and
the episode page's verdict panel with its evidence links, in headless Chromium."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from webdojo.errors import ErrorInfo
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import Criterion, JudgeUsage, Verdict, VerdictWriter
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


# --- the edge run (viewer_runs) with hand-written verdicts of two judges ---------------------

MUG, LAMP, CAPITAL = "shop.price-mug#0", "shop.cart-lamp#0", "wiki.capital#0"
USAGE = JudgeUsage(calls=3, cached=1, prompt_tokens=1200, completion_tokens=80, cost=0.0123)


def judged_edge(edge_run: Path, tmp_path: Path) -> Path:
    """A copy of the edge run with a rubric verdict on the mug episode (a passed, a failed and
    an unchecked fact, evidence up to the final page), an infra_error on the faulted capital
    episode, and graded f1 verdicts on the mug (0.5) and the lamp (1.0)."""
    run = tmp_path / "edge"
    shutil.copytree(edge_run, run)
    episodes = read_run(run).episodes

    def verdict(judge: str, key: str, label: str, reward: float | None, **extra: Any) -> Verdict:
        record = episodes[key]
        return Verdict(judge=judge, key=key, episode=record.episode, task_id=record.task_id,
                       label=label, reward=reward, **{"criteria": [], **extra})  # type: ignore[arg-type]  # fmt: skip

    facts = [
        Criterion(name="G1.1", kind="fact", passed=True, reason="the mug's page was opened",
                  evidence=[2]),
        Criterion(name="G1.2", kind="fact", passed=False,
                  reason="the answer $12 is not the price shown ($18)", evidence=[3, 4]),
        Criterion(name="G1.3", kind="fact", passed=None, reason="an earlier fact failed"),
    ]  # fmt: skip
    missing = ErrorInfo(code="trajectory_incomplete", fault="infra",
                          message="the last screenshot file is missing")  # fmt: skip
    with VerdictWriter(run, "rubric") as writer:
        writer.write(verdict("rubric", MUG, "failure", 0.0, criteria=facts, usage=USAGE,
                             model="judge-model", notes=["downscaled 4 images to 512 px"]))  # fmt: skip
        writer.write(verdict("rubric", CAPITAL, "infra_error", None, error=missing))
    with VerdictWriter(run, "f1") as writer:
        writer.write(verdict("f1", MUG, "failure", 0.5))
        writer.write(verdict("f1", LAMP, "success", 1.0))
    return run


OLD_ROW_FIELDS = {"key", "task_id", "site", "difficulty", "level", "status", "outcome", "steps",
                  "wall_s", "repeats", "error_codes", "answer"}  # fmt: skip
OLD_EPISODE_FIELDS = {"key", "task_id", "status", "record", "task", "site", "difficulty",
                      "level", "steps", "repeats", "policy_s", "env_s", "problems"}  # fmt: skip


def test_the_api_grows_verdict_fields_and_keeps_the_old_ones(
    edge_run: Path, tmp_path: Path
) -> None:
    run = judged_edge(edge_run, tmp_path)
    with (
        ViewerServer(create_app([run])) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        overview = client.get("api/runs/a/overview").json()
        mug = client.get("api/runs/a/episode", params={"key": MUG}).json()
        capital = client.get("api/runs/a/episode", params={"key": CAPITAL}).json()
    rows = {r["key"]: r for r in overview["episodes"]}
    assert all(set(r) >= OLD_ROW_FIELDS for r in rows.values())
    assert rows[MUG]["verdicts"] == {
        "f1": {"label": "failure", "reward": 0.5},
        "rubric": {"label": "failure", "reward": 0.0},
    }
    assert rows[LAMP]["verdicts"] == {"f1": {"label": "success", "reward": 1.0}}
    assert set(mug) >= OLD_EPISODE_FIELDS and [v["judge"] for v in mug["verdicts"]] == [
        "f1",
        "rubric",
    ]
    rubric = mug["verdicts"][1]
    assert rubric["usage"] == USAGE.model_dump() and rubric["model"] == "judge-model"
    assert [c["passed"] for c in rubric["criteria"]] == [True, False, None]
    assert rubric["criteria"][1]["evidence"] == [3, 4]
    assert rubric["notes"] == ["downscaled 4 images to 512 px"]
    (broken,) = capital["verdicts"]
    assert broken["label"] == "infra_error" and broken["reward"] is None
    assert broken["error"]["code"] == "trajectory_incomplete"
    judges = {j["judge"]: j for j in overview["judges"]}
    assert judges["rubric"]["labels"] == {"failure": 1, "infra_error": 1}
    assert judges["f1"]["reward_mean"] == 0.75  # (0.5 + 1.0) / 2
    # the mug failed its verifier (0.5 from f1 counts as a failure), the lamp passed it
    assert (judges["f1"]["agree_with_verifier"], judges["f1"]["with_verifier"]) == (2, 2)


async def test_evidence_links_select_steps_in_place(
    page: Page, edge_run: Path, tmp_path: Path, artifacts_dir: Path
) -> None:
    run = await asyncio.to_thread(judged_edge, edge_run, tmp_path)
    last = read_run(run).steps_of(MUG)[-1]
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "/episode?" in r.url else None)
    with ViewerServer(create_app([run])) as server:
        await page.goto(f"{server.url}#/run/a")
        table = page.get_by_test_id("episodes")
        await expect(table.locator(f'tr[data-key="{MUG}"] td[data-judge="f1"]')).to_have_text(
            "failure 0.50"  # a graded reward is shown next to its label
        )
        await expect(
            table.locator(f'tr[data-key="{CAPITAL}"] td[data-judge="rubric"]')
        ).to_have_text("infra error")
        await table.locator("th", has_text="f1").click()  # by reward; no verdict sorts last
        keys = [await r.get_attribute("data-key") for r in await table.locator("tbody tr").all()]
        assert keys[:2] == [MUG, LAMP]
        await page.goto(f"{server.url}#/run/a/episode/{MUG.replace('#', '%23')}")
        panel = page.get_by_test_id("verdicts").locator('[data-judge="rubric"]')
        criteria = panel.get_by_test_id("criterion")
        await expect(criteria.nth(1)).to_contain_text("the answer $12 is not the price shown")
        await expect(criteria.nth(1)).to_have_class("fail")
        await expect(criteria.nth(2)).to_contain_text("not checked")
        await expect(criteria.nth(2)).to_have_class("unchecked")
        await expect(panel.get_by_test_id("judge-usage")).to_contain_text(
            "3 calls, 1 cached, 1280 tokens, cost 0.0123"
        )
        await expect(panel).to_contain_text("downscaled 4 images to 512 px")
        await expect(page.get_by_test_id("step-index")).to_have_text("1 / 4")
        await criteria.nth(1).locator('a.evidence[data-step="3"]').click()
        await expect(page.get_by_test_id("step-index")).to_have_text("4 / 4")
        await expect(page.get_by_test_id("toggle-after")).to_have_text("showing: before the action")
        await expect(page.get_by_test_id("stage")).to_be_in_viewport()
        marked = page.locator(".thumb.evidence")  # steps 3 and 4 (the page after step 3)
        await expect(marked).to_have_count(1)
        await expect(marked).to_have_attribute("data-step", "3")
        assert page.url.endswith("/3")  # the address follows, reload-safe
        await page.screenshot(path=artifacts_dir / "viewer-evidence.png", full_page=True)
        await criteria.nth(1).locator('a.evidence[data-step="4"]').click()
        await expect(page.get_by_test_id("toggle-after")).to_have_text("showing: after the action")
        await expect(page.get_by_test_id("screenshot")).to_have_attribute(
            "src", f"runs/a/files/{last.next_screenshot}"
        )
        await criteria.nth(0).locator("a.evidence").click()
        await expect(page.get_by_test_id("step-index")).to_have_text("3 / 4")
        await expect(marked).to_have_attribute("data-step", "2")
        assert len(fetched) == 1, fetched  # selected in place: the episode was fetched once
        await page.goto(f"{server.url}#/run/a/episode/{CAPITAL.replace('#', '%23')}")
        await expect(page.get_by_test_id("judge-error")).to_contain_text(
            "trajectory_incomplete the last screenshot file is missing"
        )
