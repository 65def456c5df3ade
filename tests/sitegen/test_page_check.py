"""The layout checks of a generated page in real Chromium: overflow, overlapping text, invisible
interactive elements, a blank screenshot; and what must not be flagged."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from webdojo.sitegen.page_check import check_page
from webdojo.sitegen.validate import ValidationSettings, Validator
from webdojo.tasks.loader import Site
from webdojo.tasks.schema import SiteInfo

pytestmark = pytest.mark.browser

PAGES = {
    "wide.html": "<h1>Wide</h1><div style='width:3000px;background:#ccc'>a very wide strip</div>",
    "overlap.html": "<h1>Overlap</h1><p style='position:absolute;top:100px;left:40px'>Price list"
    "</p><p style='position:absolute;top:102px;left:44px'>Opening hours</p>",
    "hidden.html": "<h1>Hidden</h1><button id='ghost' style='opacity:0'>Buy</button>"
    "<a id='away' href='wide.html' style='position:absolute;left:-900px'>Away</a>"
    "<button id='flat' style='width:0;height:0;padding:0;border:0;overflow:hidden'>z</button>"
    "<div style='display:none'><button id='closed'>in a closed menu</button></div>"
    "<label><input id='tick' type='checkbox' style='opacity:0'>Custom box</label>",
    "blank.html": "",
}


@pytest.fixture(scope="module")
async def validator() -> AsyncIterator[Validator]:
    # no page here hangs, so no deadline is ever waited out: generous ones cost nothing, and
    # with a 3 s load deadline a page came out fatal on a loaded 2-core machine
    settings = ValidationSettings(navigation_timeout_s=30.0, action_timeout_s=30.0)
    async with Validator(settings) as shared:
        yield shared


async def test_layout_problems_are_found_and_intended_hiding_is_not(
    tmp_path: Path, validator: Validator
) -> None:
    site_dir = tmp_path / "layout"
    site_dir.mkdir()
    for name, body in PAGES.items():
        (site_dir / name).write_text(f"<!doctype html><html><body>{body}</body></html>")
    info = SiteInfo(name="layout", title="t", description="d", style="s", capabilities=["c"],
                    pages=list(PAGES))  # fmt: skip
    validator.server.add(Site(info, site_dir))
    host = await validator.env.host()
    found = {}
    options = validator.settings.session().allowing(validator.server.base_url)  # its own server
    for page in PAGES:
        url = validator.server.url_for("layout", page)
        found[page] = await check_page(host, url, page, options)
    assert all(f.fatal is None and f.screenshot for f in found.values())
    assert [p for p in found["wide.html"].problems if "horizontal overflow" in p]
    assert [p for p in found["overlap.html"].problems if "overlapping text" in p]
    hidden = "\n".join(found["hidden.html"].problems)
    assert "#ghost" in hidden and "transparent" in hidden
    assert "#away" in hidden and "off the page" in hidden
    assert "#flat" in hidden and "zero size" in hidden
    assert "#closed" not in hidden and "#tick" not in hidden
    assert found["blank.html"].problems == ["blank.html: the screenshot is blank: the page "
                                            "renders as a single color"]  # fmt: skip
