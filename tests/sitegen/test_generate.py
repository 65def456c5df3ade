"""``webdojo sites generate`` end to end: the fake model endpoint returns scripted sites, the
validation runs in real Chromium. One Chromium (the validator's) serves every test."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from site_templates import (
    CONSOLE_ERROR_AND_BAD_REFERENCE,
    CRASH_MARKER,
    CRASHES,
    EXTERNAL,
    GOOD,
    LOOPS_FOREVER,
    SETTINGS,
)
from typer.testing import CliRunner

from fakes.openai_server import FakeOpenAIServer, Reply, message_text
from webdojo.checks.sites import check_sites
from webdojo.cli.app import app
from webdojo.errors import ModelError
from webdojo.models import ModelClient, ModelConfig
from webdojo.sitegen import validate
from webdojo.sitegen.pipeline import (
    GENERATION,
    REJECTED,
    SitegenConfig,
    SitegenReport,
    generate_sites,
)
from webdojo.sitegen.validate import Validator
from webdojo.tasks.loader import load_spec

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
async def validator() -> AsyncIterator[Validator]:
    async with Validator(SETTINGS) as shared:
        yield shared


async def _generate(
    out: Path, config: ModelConfig, validator: Validator, n: int, max_repairs: int = 1
) -> SitegenReport:
    settings = SitegenConfig(n=n, seed=0, max_repairs=max_repairs, concurrency=1,
                             validation=SETTINGS)  # fmt: skip
    async with ModelClient(config) as client:
        return await generate_sites(out, client, settings, validator=validator)


async def test_a_good_site_is_accepted_and_a_rerun_or_the_command_skips_it(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig,
    validator: Validator,
) -> None:  # fmt: skip
    """One accepted site (each one validated costs 20 replays in Chromium) serves three checks:
    it loads as a sites root, the command resumes it with no call and ends with its JSON line,
    and a rerun asking for more generates only the new one."""
    fake_openai.push(GOOD)
    report = await _generate(tmp_path, fake_model_config, validator, n=1)
    record = report.records[0]
    assert (record.status, record.replies, record.rounds) == ("accepted", 1, [])
    assert record.dhash and (tmp_path / GENERATION / f"{record.name}.png").exists()
    assert report.usage.calls == 1 and report.usage.completion_tokens > 0
    task_set = load_spec(str(tmp_path))
    assert list(task_set.sites) == [record.name] and len(task_set.tasks) == 10
    checked = await check_sites(str(tmp_path))
    assert checked.ok, checked.to_json()

    args = ["sites", "generate", "--n", "1", "--out", str(tmp_path), "--json",
            "--model-base-url", fake_openai.base_url, "--model", fake_openai.model,
            "--page-timeout", "2"]  # fmt: skip
    again = await asyncio.to_thread(CliRunner().invoke, app, args)  # its own event loop
    assert again.exit_code == 0, again.output
    last = json.loads(again.output.strip().splitlines()[-1])
    assert (last["accepted"], last["rejected"], last["out"]) == (1, 0, str(tmp_path))
    assert (last["resumed"], last["calls"]) == (1, 0)
    assert len(fake_openai.requests) == 1

    fake_openai.reset()
    fake_openai.push(GOOD)
    report = await _generate(tmp_path, fake_model_config, validator, n=2)
    assert report.resumed == 1 and len(fake_openai.requests) == 1
    assert [r.status for r in report.records] == ["accepted", "accepted"]
    assert report.diversity.pairs == 1


async def test_a_broken_site_is_repaired_from_the_problems_found(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig,
    validator: Validator,
) -> None:  # fmt: skip
    fake_openai.push(CONSOLE_ERROR_AND_BAD_REFERENCE, GOOD)
    report = await _generate(tmp_path, fake_model_config, validator, n=1)
    record = report.records[0]
    assert (record.status, record.replies) == ("accepted", 2)
    repair = message_text(fake_openai.requests[1]["messages"][-1])
    assert "console error: boom" in repair
    assert ".pick-0: reference solution failed" in repair
    assert fake_openai.requests[1]["messages"][-2]["content"] == CONSOLE_ERROR_AND_BAD_REFERENCE


async def test_a_site_that_keeps_loading_external_urls_is_rejected_after_the_cap(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig,
    validator: Validator,
) -> None:  # fmt: skip
    fake_openai.push(EXTERNAL, "not json at all", EXTERNAL)
    report = await _generate(tmp_path, fake_model_config, validator, n=1, max_repairs=2)
    record = report.records[0]
    assert (record.status, record.replies) == ("rejected", 3)
    assert record.external_requests == 2  # blocked in the browser, twice: nothing left
    assert "does not follow the format" in record.rounds[1][0]
    reasons = json.loads((tmp_path / REJECTED / record.name / "reasons.json").read_text())
    assert reasons["reasons"][0] == "still failing after 2 repair(s)"
    assert any("https://cdn.example.com/lib.js from outside the site" in r
               for r in reasons["reasons"])  # fmt: skip
    assert (tmp_path / REJECTED / record.name / "index.html").exists()
    assert not (tmp_path / record.name).exists()


async def test_an_endpoint_failure_ends_the_run_and_leaves_the_site_to_do(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig,
    validator: Validator,
) -> None:  # fmt: skip
    fake_openai.push(Reply(status=500), Reply(status=500), Reply(status=500))
    with pytest.raises(ModelError, match="HTTP 500"):
        await _generate(tmp_path, fake_model_config, validator, n=1)
    assert not list((tmp_path / GENERATION).glob("gen*.json"))  # a rerun asks again


class _CrashingSession:
    """A browser session whose ``goto`` really crashes the tab's renderer (CDP ``Page.crash``)
    once a page carrying ``CRASH_MARKER`` has loaded: a crash without eating memory."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def goto(self, url: str) -> None:
        await self._session.goto(url)
        page = self._session.page
        if CRASH_MARKER in await page.content():
            cdp = await page.context.new_cdp_session(page)
            # The renderer dies before it answers: wait for the crash, not for the reply.
            sent = asyncio.ensure_future(cdp.send("Page.crash"))
            await page.wait_for_event("crash", timeout=10_000)
            sent.cancel()
            with contextlib.suppress(asyncio.CancelledError, PlaywrightError):
                await sent


class _CrashingHost:
    def __init__(self, host: Any) -> None:
        self._host = host

    async def new_session(self, options: Any) -> _CrashingSession:
        return _CrashingSession(await self._host.new_session(options))


async def test_a_page_that_loops_forever_or_crashes_its_tab_is_rejected_and_the_run_goes_on(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig,
    validator: Validator, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A hang, then a crash, then a good site in one run: each fault rejects its own site only,
    and the site after both is still accepted (one good site for the two faults)."""
    real_check_page = validate.check_page

    async def check_page(host: Any, *args: Any, **kw: Any) -> Any:
        return await real_check_page(_CrashingHost(host), *args, **kw)

    monkeypatch.setattr(validate, "check_page", check_page)
    fake_openai.push(LOOPS_FOREVER, CRASHES, GOOD)
    report = await _generate(tmp_path, fake_model_config, validator, n=3, max_repairs=3)
    looped, crashed, good = report.records
    assert (looped.status, looped.replies) == ("rejected", 1)  # no repair for a hang
    assert "did not finish loading" in looped.reasons[0]
    assert (crashed.status, crashed.replies) == ("rejected", 1)  # no repair for a crash
    assert "index.html: the tab crashed" in crashed.reasons[0], crashed.reasons
    reasons = json.loads((tmp_path / REJECTED / crashed.name / "reasons.json").read_text())
    assert reasons["reasons"] == crashed.reasons
    assert (good.status, good.replies) == ("accepted", 1)
    assert list(load_spec(str(tmp_path)).sites) == [good.name]
