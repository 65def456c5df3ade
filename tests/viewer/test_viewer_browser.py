"""The viewer checked as a person would: headless Chromium on a live viewer server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from playwright.async_api import Page, expect
from viewer_runs import latest_episodes, read_jsonl

from webdojo.store.records import parse_step
from webdojo.store.run_reader import read_run
from webdojo.store.run_store import RunStore
from webdojo.store.summary import summarize
from webdojo.viewer.app import create_app
from webdojo.viewer.server import ViewerServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]
IMAGE_LOADED = """() => { const img = document.querySelector('[data-testid="screenshot"]');
                          return img !== null && img.complete && img.naturalWidth > 0; }"""


def pct(rate: float | None) -> str:
    return "–" if rate is None else f"{round(rate * 1000) / 10:g}%"


def steps_of(root: Path, uid: str) -> list[dict]:
    return sorted((s for s in read_jsonl(root / "steps.jsonl") if s["episode"] == uid),
                  key=lambda s: s["step"])  # fmt: skip


async def open_overview(page: Page, url: str) -> None:
    await page.goto(url)
    await expect(page.get_by_test_id("episodes")).to_be_visible()
    stray_text = (
        "Array.from(document.getElementById('view').childNodes).some(n => n.nodeType !== 1)"
    )
    assert not await page.evaluate(stray_text)  # e.g. a "null" left by an optional part


@pytest.mark.parametrize("rid", ["a", "b"])
async def test_overview_numbers_match_the_run(
    page: Page,
    viewer: ViewerServer,
    scripted_run: Path,
    random_run: Path,
    artifacts_dir: Path,
    rid: str,
) -> None:
    root = scripted_run if rid == "a" else random_run
    await open_overview(page, f"{viewer.url}#/run/{rid}")
    summary = summarize(root)
    records = latest_episodes(root)
    await expect(page.get_by_test_id("stat-episodes")).to_have_text(str(len(records)))
    await expect(page.get_by_test_id("stat-success")).to_have_text(
        pct(summary.overall.success_rate)
    )
    await expect(page.get_by_test_id("stat-faults")).to_have_text(str(summary.overall.faults))
    await expect(page.get_by_test_id("stat-repeats")).to_have_text(pct(summary.repetition_share))
    for site, bucket in summary.by_site.items():
        row = page.get_by_test_id("by-site").locator("tbody tr", has_text=site)
        await expect(row.locator("td").nth(1)).to_have_text(str(bucket.episodes))
        await expect(row.locator("td").nth(2)).to_have_text(str(bucket.successes))
    table = page.get_by_test_id("episodes")
    for key, record in records.items():
        row = table.locator(f'tr[data-key="{key}"]')
        await expect(row.locator("td").nth(4)).to_have_text(str(record["steps"]))
        status = (
            "fault" if record["success"] is None else "success" if record["success"] else "failure"
        )
        await expect(row.locator("td").nth(3)).to_have_text(status)
    await page.wait_for_load_state("networkidle")  # the plots
    await page.screenshot(path=artifacts_dir / f"viewer-overview-{root.name}.png", full_page=True)


async def test_filters_and_sorting(page: Page, edge_viewer: ViewerServer, edge_run: Path) -> None:
    await open_overview(page, edge_viewer.url)
    rows = page.get_by_test_id("episodes").locator("tbody tr")
    total = await rows.count()
    records = latest_episodes(edge_run)
    failures = [k for k, r in records.items() if r["success"] is False]
    await page.locator('select[data-filter="status"]').select_option("failure")
    await expect(rows).to_have_count(len(failures))
    await expect(page.get_by_test_id("shown-count")).to_have_text(
        f"{len(failures)} of {total} episodes"
    )
    await page.locator('select[data-filter="status"]').select_option("")
    codes = {s["error"]["code"] for s in read_jsonl(edge_run / "steps.jsonl") if s.get("error")}
    code = sorted(codes)[0]
    await page.locator('select[data-filter="error_code"]').select_option(code)
    for text in await rows.locator("td:nth-child(8)").all_inner_texts():
        assert code in text
    await page.locator('select[data-filter="error_code"]').select_option("")
    header = page.get_by_test_id("episodes").locator("th", has_text="steps")
    await header.click()
    await header.click()  # descending
    steps = [int(t) for t in await rows.locator("td:nth-child(5)").all_inner_texts()]
    assert steps == sorted(steps, reverse=True) and len(steps) == total


@pytest.mark.parametrize("rid", ["a", "b"])
async def test_step_through_an_episode(
    page: Page,
    viewer: ViewerServer,
    scripted_run: Path,
    random_run: Path,
    artifacts_dir: Path,
    rid: str,
) -> None:
    root = scripted_run if rid == "a" else random_run
    records = latest_episodes(root)
    key = max((k for k, r in records.items() if r["steps"]), key=lambda k: records[k]["steps"])
    steps = steps_of(root, records[key]["episode"])
    await open_overview(page, f"{viewer.url}#/run/{rid}")
    await page.get_by_test_id("episodes").locator(f'tr[data-key="{key}"] a').click()
    await expect(page.get_by_test_id("episode-key")).to_have_text(key)
    await expect(page.get_by_test_id("verdict")).to_contain_text(
        records[key]["verifier"]["reasons"][0]
    )
    for i, step in enumerate(steps):
        await expect(page.get_by_test_id("step-index")).to_have_text(f"{i + 1} / {len(steps)}")
        await expect(page.get_by_test_id("step-url")).to_have_text(step["url"])
        overlay = page.get_by_test_id("overlay").locator("g.overlay")
        kind = (step["action"] or {}).get("type", "unparsed")
        await expect(overlay).to_have_attribute("data-kind", kind)
        await expect(overlay.locator("g.ov-label text")).to_be_visible()
        if kind == "click" and step["action"].get("x") is not None:
            assert await overlay.locator("g.ov-point").count() == 1
        if step.get("target"):
            assert await overlay.locator("rect.ov-box").count() == 1
        if kind == "scroll":
            assert await overlay.locator("g.ov-arrow").count() == 1
        if step.get("error"):
            await expect(page.get_by_test_id("step-error")).to_contain_text(step["error"]["code"])
        thumb = page.locator(f'.thumb[data-step="{i}"]')
        assert (await thumb.locator(".flag.repeat").count() == 1) == parse_step(step).repeated
        await expect(page.get_by_test_id("screenshot")).to_have_attribute(
            "src", f"runs/{rid}/files/{step['screenshot']}"
        )
        await page.wait_for_function(IMAGE_LOADED)
        if i == 1:
            await page.screenshot(
                path=artifacts_dir / f"viewer-episode-{root.name}.png", full_page=True
            )
        await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Home")
    await expect(page.get_by_test_id("step-index")).to_have_text(f"1 / {len(steps)}")
    await page.keyboard.press("End")
    await expect(page.get_by_test_id("step-index")).to_have_text(f"{len(steps)} / {len(steps)}")
    assert page.url.endswith(f"/{len(steps) - 1}")  # the step is in the address: reload-safe
    await page.keyboard.press("a")
    await expect(page.get_by_test_id("toggle-after")).to_have_text("showing: after the action")
    order = list(records)  # the overview lists finished episodes in record order
    at = order.index(key)
    if len(order) > 1:  # ] and [ go to the next / previous episode of the list
        press, neighbour = ("]", order[at + 1]) if at + 1 < len(order) else ("[", order[at - 1])
        await page.keyboard.press(press)
        await expect(page.get_by_test_id("episode-key")).to_have_text(neighbour)
        await expect(page.get_by_test_id("step-index")).to_contain_text("1 / ")
    await page.keyboard.press("Escape")
    await expect(page.get_by_test_id("episodes")).to_be_visible()


async def test_interrupted_run(page: Page, interrupted_run: Path) -> None:
    records = latest_episodes(interrupted_run)
    unfinished = {s["key"] for s in read_jsonl(interrupted_run / "steps.jsonl")} - set(records)
    assert unfinished
    with ViewerServer(create_app([interrupted_run])) as server:
        await open_overview(page, server.url)
        await expect(page.get_by_test_id("problems")).to_contain_text("unreadable line")
        await expect(page.get_by_test_id("stat-unfinished")).to_have_text(str(len(unfinished)))
        await page.locator('select[data-filter="status"]').select_option("unfinished")
        rows = page.get_by_test_id("episodes").locator("tbody tr")
        await expect(rows).to_have_count(len(unfinished))
        await rows.first.locator("a").click()
        await expect(page.get_by_test_id("problems")).to_contain_text("never finished")
        await expect(page.get_by_test_id("verdict")).to_have_count(0)
        await expect(page.get_by_test_id("overlay").locator("g.overlay")).to_have_count(1)


async def test_overlay_lands_where_the_action_did(
    page: Page, edge_viewer: ViewerServer, edge_run: Path
) -> None:
    """A 0-1000 click and an element box, drawn at the right place over the screenshot."""
    steps = [
        s
        for s in read_jsonl(edge_run / "steps.jsonl")
        if s["episode"] == latest_episodes(edge_run)["shop.cart-lamp#0"]["episode"]
    ]
    box = steps[0]["target"]["box"]
    await page.goto(f"{edge_viewer.url}#/run/a/episode/shop.cart-lamp%230")
    image = page.get_by_test_id("screenshot")
    await expect(image).to_be_visible()
    shown = await image.bounding_box()
    scale = shown["width"] / 1280
    drawn = await page.locator("rect.ov-box").bounding_box()
    assert abs(drawn["x"] - (shown["x"] + box["x"] * scale)) < 3
    assert abs(drawn["width"] - box["width"] * scale) < 4
    await page.keyboard.press("ArrowRight")
    action = steps[1]["action"]
    assert action["space"] == "norm1000"
    point = await page.locator("g.ov-point circle").last.bounding_box()
    centre_x = point["x"] + point["width"] / 2 - shown["x"]
    centre_y = point["y"] + point["height"] / 2 - shown["y"]
    assert abs(centre_x - action["x"] / 1000 * shown["width"]) < 2
    assert abs(centre_y - action["y"] / 1000 * shown["height"]) < 2
    await page.goto(f"{edge_viewer.url}#/run/a/episode/shop.price-mug%230/1")
    await expect(page.get_by_test_id("overlay").locator("g.overlay")).to_have_attribute(
        "data-kind", "unparsed"
    )
    await expect(page.get_by_test_id("step-error")).to_contain_text("parse_error")
    await page.keyboard.press("k")
    await expect(page.get_by_test_id("overlay").locator("g.ov-arrow")).to_have_count(1)


async def test_compare_runs(
    page: Page, viewer: ViewerServer, scripted_run: Path, random_run: Path, artifacts_dir: Path
) -> None:
    a, b = latest_episodes(scripted_run), latest_episodes(random_run)
    won_a = {k for k, r in a.items() if r["success"]}
    won_b = {k for k, r in b.items() if r["success"]}
    lost = {k for k in won_a - won_b if k in b}
    await page.goto(viewer.url + "#/compare")
    await expect(page.get_by_test_id("cmp-lost")).to_have_text(str(len(lost)))
    gained = {k for k in won_b - won_a if k in a}
    await expect(page.get_by_test_id("cmp-gained")).to_have_text(str(len(gained)))
    table = page.get_by_test_id("compare")
    for change, keys in (("lost", lost), ("gained", gained)):
        shown = table.locator(f'tbody tr[data-change="{change}"]')
        assert {await r.get_attribute("data-key") for r in await shown.all()} == keys
    await page.screenshot(path=artifacts_dir / "viewer-compare.png", full_page=True)
    if lost:  # B's side of a row opens B's episode
        row = table.locator(f'tr[data-key="{sorted(lost)[0]}"]')
        await row.locator("td").nth(5).locator("a").click()
        await expect(page.get_by_test_id("episode-key")).to_have_text(sorted(lost)[0])
        assert "#/run/b/episode/" in page.url


async def test_older_format_version(page: Page, scripted_run: Path, tmp_path: Path) -> None:
    root = tmp_path / "run"
    shutil.copytree(scripted_run, root)
    config = json.loads((root / "config.json").read_text())
    (root / "config.json").write_text(json.dumps({**config, "format_version": 0}))
    with ViewerServer(create_app([root])) as server:
        await open_overview(page, server.url)
        await expect(page.get_by_test_id("problems")).to_contain_text("format version 0")
        await expect(page.get_by_test_id("stat-episodes")).to_have_text(
            str(len(latest_episodes(root)))
        )


async def test_missing_run_directory_says_so(page: Page, tmp_path: Path) -> None:
    with ViewerServer(create_app([tmp_path / "gone"])) as server:
        await page.goto(server.url)
        await expect(page.get_by_test_id("problems")).to_contain_text("does not exist")


def _append_copy_of_an_episode(root: Path, new_key: str) -> None:
    """Append one more finished episode (a copy of the first, under a new key and uid), as a
    run still being written would."""
    run = read_run(root)
    record = next(iter(run.episodes.values()))
    uid = f"{record.episode}-copy"
    with RunStore(root) as store:
        for step in run.steps_of(record.key):
            store.append_step(step.model_copy(update={"episode": uid, "key": new_key}))
        store.append_episode(record.model_copy(update={"episode": uid, "key": new_key}))


async def test_overview_redraws_itself_while_the_run_grows(
    page: Page, scripted_run: Path, tmp_path: Path
) -> None:
    root = tmp_path / "run"
    shutil.copytree(scripted_run, root)
    before = len(latest_episodes(root))
    with ViewerServer(create_app([root])) as server:
        await open_overview(page, server.url)
        await expect(page.get_by_test_id("live")).to_have_text("watching for changes")
        await page.locator('select[data-filter="status"]').select_option("success")
        _append_copy_of_an_episode(root, "late.task#0")
        await expect(page.get_by_test_id("stat-episodes")).to_have_text(str(before + 1))
        await expect(page.get_by_test_id("live")).to_contain_text("updated")
        await expect(page.locator('tr[data-key="late.task#0"]')).to_be_visible()
        filter_kept = page.locator('select[data-filter="status"]')
        await expect(filter_kept).to_have_value("success")
        # On an episode page, a change in the run does not pull the user back.
        await page.locator('tr[data-key="late.task#0"] a').click()
        await expect(page.get_by_test_id("episode-key")).to_have_text("late.task#0")
        _append_copy_of_an_episode(root, "later.task#0")
        await page.wait_for_timeout(2500)  # longer than the overview's poll interval
        await expect(page.get_by_test_id("episode-key")).to_have_text("late.task#0")
