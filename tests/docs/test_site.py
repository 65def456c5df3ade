"""The built site: it builds strictly, its generated references cover the code (every command,
public module, error code, route and record field), and its pages load in headless Chromium
with no console error and no request leaving loopback, and its search works offline.

Everything that needs the build is in this file, so that `make test`'s workers (one file
each) build the site once.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from docs_browser import Visitor
from docs_commands import problem
from docs_pages import DOCS, ROOT

from webdojo.cli.app import app
from webdojo.errors import all_codes
from webdojo.server.api.app import create_app
from webdojo.server.pool.inline import InlinePool
from webdojo.tasks.loader import load_spec

pytestmark = pytest.mark.slow  # the strict build takes tens of seconds
EXAMPLES = DOCS / "gen" / "cli_examples.yaml"


def commands(obj: Any = None, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every visible command and group below ``webdojo``, walked here and not by the page's
    generator, so that the test does not trust the code it checks."""
    obj = typer.main.get_command(app).load_all() if obj is None else obj  # type: ignore[attr-defined]
    found = [path] if path else []
    for name, sub in getattr(obj, "commands", {}).items():
        if not sub.hidden:
            found += commands(sub, (*path, name))
    return found


def public_modules() -> list[str]:
    src = ROOT / "src"
    names = []
    for path in sorted((src / "webdojo").rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        if any(p.startswith("_") for p in parts if p != "__init__"):
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def html(site: Path, *parts: str) -> str:
    return (site.joinpath(*parts) / "index.html").read_text(encoding="utf-8")


def test_the_site_builds_strictly(built_site: Path) -> None:
    assert (built_site / "index.html").is_file()
    assert (built_site / "search" / "search_index.json").is_file()


def test_every_command_and_subcommand_is_in_the_cli_reference(built_site: Path) -> None:
    page = html(built_site, "reference", "cli")
    missing = [p for p in commands() if f'id="{"-".join(("webdojo", *p))}"' not in page]
    assert len(commands()) >= 35
    assert not missing, f"commands missing from the CLI reference: {missing}"


def test_every_command_has_an_example_that_names_real_flags() -> None:
    examples = yaml.safe_load(EXAMPLES.read_text(encoding="utf-8"))
    names = [" ".join(("webdojo", *p)) for p in commands()]
    assert not [n for n in names if not examples.get(n)], "commands without an example"
    assert not set(examples) - set(names), "examples of commands that do not exist"
    bad = [
        f"{name}: {line}: {problem(line) or 'not a webdojo command'}"
        for name, lines in examples.items()
        for line in lines
        if problem(line) or not line.startswith("webdojo ")
    ]
    assert not bad, "\n".join(bad)


def test_every_public_module_is_in_the_api_reference(built_site: Path) -> None:
    pages = "".join(
        p.read_text(encoding="utf-8") for p in built_site.glob("reference/api/*/*.html")
    )
    missing = [name for name in public_modules() if f'id="{name}"' not in pages]
    assert not missing, f"modules missing from the API reference: {missing}"


def test_every_error_code_is_in_the_error_reference(built_site: Path) -> None:
    page = html(built_site, "reference", "errors")
    missing = [code for code in all_codes() if f"<code>{code}</code>" not in page]
    assert not missing, f"error codes missing from the reference: {missing}"


def test_the_http_reference_is_the_served_spec(built_site: Path) -> None:
    spec = create_app(InlinePool(), load_spec("builtin")).openapi()
    published = json.loads((built_site / "reference" / "openapi.json").read_text())
    assert published == spec
    page = html(built_site, "reference", "http")
    routes = [f"{m.upper()} {path}" for path, ops in spec["paths"].items() for m in ops]
    assert not [r for r in routes if r not in page]


def test_the_record_schemas_are_documented_field_by_field(built_site: Path) -> None:
    from webdojo.store.records import EpisodeRecord, StepRecord
    from webdojo.store.verdicts import Verdict
    from webdojo.tasks.schema import Task

    page = html(built_site, "reference", "schemas")
    for model in (StepRecord, EpisodeRecord, Task, Verdict):
        assert f'id="{model.__name__.lower()}"' in page
        missing = [f for f in model.model_fields if f"<code>{f}</code>" not in page]
        assert not missing, f"{model.__name__} fields missing: {missing}"
    # a field's description comes from the comment on its line in the model
    assert "the policy&rsquo;s raw output" in page or "the policy's raw output" in page


# --- in a browser -------------------------------------------------------------------------


def site_pages(site: Path) -> list[str]:
    """Every page of the build, as a path under the site's root."""
    found = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))
    return [p for p in found if not p.startswith("examples/")]  # the example site is data


@pytest.fixture(scope="module")
async def site_browser(site_url: str) -> AsyncIterator[Visitor]:
    async with Visitor.open(site_url) as visitor:
        yield visitor


@pytest.mark.browser
async def test_every_page_loads_with_no_console_error_and_nothing_off_loopback(
    built_site: Path, site_browser: Visitor
) -> None:
    pages = site_pages(built_site)
    assert len(pages) > 30
    await site_browser.visit_all(pages)
    assert site_browser.errors == [], "console errors:\n" + "\n".join(site_browser.errors)
    assert site_browser.outside == [], "requests off loopback:\n" + "\n".join(site_browser.outside)
    assert site_browser.loaded >= len(pages)


@pytest.mark.browser
async def test_search_finds_eval_offline(site_browser: Visitor) -> None:
    hits = await site_browser.search("eval")
    assert any("/tutorials/evaluate/" in href for href in hits), hits
    assert site_browser.errors == [] and site_browser.outside == []


@pytest.mark.browser
async def test_a_request_off_loopback_is_counted_and_never_sent(site_url: str) -> None:
    """The check above is not vacuous: a page that reaches out is seen, and its requests end
    at the dead proxy instead of the network."""
    away = ["http://192.0.2.1/beacon", "https://fonts.example.com/font.woff2"]
    async with Visitor.open(site_url) as visitor:
        await visitor.try_to_leave(away)
        assert visitor.outside == away
        assert all("PROXY" in visitor.failed[url] for url in away), visitor.failed
