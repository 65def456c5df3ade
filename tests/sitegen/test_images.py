"""Pictures from an image model in generated sites: the tags, the image client against the fake
endpoint's ``/v1/images/generations``, and ``webdojo sites generate --image-model`` end to end
(validation in real Chromium)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from site_templates import GOOD, SETTINGS, WITH_PICTURES
from typer.testing import CliRunner

from fakes.openai_server import FakeOpenAIServer, message_text, tiny_png
from webdojo.cli.app import app
from webdojo.errors import ModelError
from webdojo.models import ModelConfig
from webdojo.models.client import ModelClient
from webdojo.models.images import PNG_SIGNATURE, ImageClient
from webdojo.sitegen.images import (
    ImageSettings,
    SiteImages,
    fill_sources,
    image_path,
    tag_problems,
)
from webdojo.sitegen.pipeline import SitegenConfig, generate_sites
from webdojo.sitegen.validate import Validator, static_problems

LAKE = "a mountain lake at dawn"


def test_tags_get_a_src_relative_to_their_page_and_bad_tags_are_problems() -> None:
    files = {
        "index.html": f'<img data-image-prompt="{LAKE}" alt="x">',
        "rooms/a.html": "<IMG alt='y' data-image-prompt='a mountain  lake at dawn'>",
        "app.js": f"const s = '<img data-image-prompt=\"{LAKE}\">';",
    }
    filled = fill_sources(files)
    path = image_path(LAKE)
    assert filled["index.html"].startswith(f'<img src="{path}" data-image-prompt=')
    assert filled["rooms/a.html"].startswith(f'<img src="../{path}" alt=')
    assert filled["app.js"] == files["app.js"]  # only HTML is rewritten
    assert static_problems(filled, {path}) == []
    assert "uses the raster image" in static_problems(filled)[0]
    bad = {"index.html": "<img src='x.png' data-image-prompt='a'><img data-image-prompt=''>"
           + "".join(f"<img data-image-prompt='p{i}'>" for i in range(3))}  # fmt: skip
    problems = "\n".join(tag_problems(bad, cap=2))
    assert "has a src" in problems and "empty description" in problems
    assert "4 different pictures" in problems and "at most 2" in problems


async def test_the_image_client_returns_png_and_translates_failures(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig
) -> None:
    config = replace(fake_model_config, model="fake-painter")
    async with ImageClient(config) as images:
        drawn = await images.generate(LAKE, size="256x256")
        assert drawn.png == fake_openai.image_png and drawn.png.startswith(PNG_SIGNATURE)
        assert fake_openai.image_requests[0] == {"model": "fake-painter", "prompt": LAKE, "n": 1,
                                                 "size": "256x256", "response_format": "b64_json"}  # fmt: skip
        fake_openai.image_png = b"not an image"
        with pytest.raises(ModelError, match="does not decode"):
            await images.generate(LAKE)
        fake_openai.image_status = 400
        with pytest.raises(ModelError, match="HTTP 400") as refused:
            await images.generate(LAKE)
        assert refused.value.details["status"] == 400
    assert len(fake_openai.image_requests) == 3


async def test_a_refused_picture_is_a_problem_and_a_failing_endpoint_an_error(
    fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig
) -> None:
    files = {"index.html": f"<img data-image-prompt='{LAKE}'><img data-image-prompt='{LAKE}'>"}
    async with ImageClient(replace(fake_model_config, model="fake-painter")) as client:
        pictures = SiteImages(client, ImageSettings())
        fake_openai.image_status = 400
        refused = await pictures.render(files)
        assert refused.drawn == 0 and refused.images == {}
        assert [p for p in refused.problems if "would not draw 'a mountain lake" in p]
        fake_openai.image_status = 200
        drawn = await pictures.render(files)
        again = await pictures.render(files)  # a repair round: nothing new to draw
        assert (drawn.drawn, again.drawn, list(again.images)) == (1, 0, [image_path(LAKE)])
        fake_openai.image_status = 503
        with pytest.raises(ModelError, match="HTTP 503"):
            await pictures.render({"index.html": "<img data-image-prompt='a new one'>"})


@pytest.fixture(scope="module")
async def validator() -> AsyncIterator[Validator]:
    async with Validator(SETTINGS) as shared:
        yield shared


@pytest.mark.browser
async def test_without_an_image_model_picture_tags_go_back_to_the_model(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_model_config: ModelConfig,
    validator: Validator,
) -> None:  # fmt: skip
    fake_openai.push(WITH_PICTURES, GOOD)
    settings = SitegenConfig(n=1, max_repairs=1, concurrency=1, validation=SETTINGS)
    async with ModelClient(fake_model_config) as client:
        report = await generate_sites(tmp_path, client, settings, validator=validator)
    record = report.records[0]
    assert (record.status, record.replies, record.images) == ("accepted", 2, 0)
    system = fake_openai.requests[0]["messages"][0]["content"]
    assert "inline <svg>" in system and "data-image-prompt" not in system
    repair = message_text(fake_openai.requests[1]["messages"][-1])
    assert "index.html: <img data-image-prompt> needs an image model" in repair
    assert fake_openai.image_requests == []


@pytest.mark.browser
async def test_with_an_image_model_each_description_is_drawn_once(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.image_png = tiny_png("#2a7")
    fake_openai.push(WITH_PICTURES)
    args = ["sites", "generate", "--n", "1", "--out", str(tmp_path), "--json",
            "--model-base-url", fake_openai.base_url, "--model", fake_openai.model,
            "--image-model", "fake-painter", "--price-image", "0.25",
            "--page-timeout", "2"]  # fmt: skip
    result = await asyncio.to_thread(CliRunner().invoke, app, args)  # its own event loop
    assert result.exit_code == 0, result.output
    last = json.loads(result.output.strip().splitlines()[-1])
    assert (last["accepted"], last["images"], last["cost"]) == (1, 2, 0.5)
    assert "data-image-prompt" in fake_openai.requests[0]["messages"][0]["content"]
    assert [r["model"] for r in fake_openai.image_requests] == ["fake-painter"] * 2
    (site,) = [p for p in tmp_path.iterdir() if not p.name.startswith("_")]
    pngs = sorted(p.relative_to(site).as_posix() for p in (site / "images").iterdir())
    bike = image_path("a red bicycle leaning on a brick wall")
    assert pngs == sorted([bike, image_path(LAKE)])
    assert (site / bike).read_bytes() == tiny_png("#2a7")
    index = (site / "index.html").read_text()
    assert index.count(f'src="{bike}"') == 2 and index.count(f'src="{image_path(LAKE)}"') == 1
    record = json.loads((tmp_path / "_generation" / f"{site.name}.json").read_text())
    assert (record["images"], record["image_model"]) == (2, "fake-painter")
