"""The site generator without a browser: catalogs, sampling, the reply format, static checks
and the diversity measure."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image, ImageDraw
from site_templates import GOOD, task

from webdojo.models.ask import ReplyRejected
from webdojo.sitegen.catalogs import CATALOGS, catalog, sample_triples, site_name
from webdojo.sitegen.diversity import dhash, distance, measure
from webdojo.sitegen.prompts import first_messages, repair_messages
from webdojo.sitegen.reply import build_site, parse_reply
from webdojo.sitegen.validate import static_problems

MINIMUM = {"capabilities": 60, "categories": 300, "styles": 100}


@pytest.mark.parametrize("name", CATALOGS)
def test_catalogs_are_big_enough_and_have_no_duplicates(name: str) -> None:
    entries = catalog(name)
    assert len(entries) >= MINIMUM[name]
    folded = [e.casefold() for e in entries]
    assert len(set(folded)) == len(folded), sorted({e for e in folded if folded.count(e) > 1})


def test_sampling_is_seeded_and_prefix_stable() -> None:
    assert sample_triples(5, seed=1) == sample_triples(9, seed=1)[:5]
    assert sample_triples(5, seed=1) != sample_triples(5, seed=2)
    triple = sample_triples(1, seed=3)[0]
    assert site_name(7, triple).startswith("gen0007-")


def test_a_good_reply_builds_a_site_named_after_us() -> None:
    triple = sample_triples(1, seed=0)[0]
    info, tasks = build_site(parse_reply(GOOD), "gen0000-x", triple)
    assert info.name == "gen0000-x" and info.capabilities == [triple.capability]
    assert len(tasks) == 10 and tasks[0].id == "gen0000-x.pick-0"
    assert {t.website for t in tasks} == {"gen0000-x"} and tasks[0].wrong_solutions


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I cannot do that.", "not one valid JSON object"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"title": "t", "description": "d", "pages": ["index.html"],
                     "files": {"index.html": "<p>x</p>"}, "tasks": [task(0)]}),
         "tasks: List should have at least 10 items"),
        (json.dumps({"title": "t", "description": "d", "pages": ["missing.html"],
                     "files": {"index.html": "x", "logo.png": "x", "../up.js": "x"},
                     "tasks": [task(i) for i in range(10)]}),
         "page 'missing.html' is not one of the files"),
    ],
)  # fmt: skip
def test_a_malformed_reply_is_a_concrete_message(reply: str, expected: str) -> None:
    with pytest.raises(ReplyRejected, match=expected) as caught:
        parse_reply(reply)
    if "missing.html" in expected:
        assert "logo.png" in str(caught.value) and "../up.js" in str(caught.value)


def test_static_checks_find_external_references_and_raster_images() -> None:
    files = {
        "index.html": "<svg xmlns='http://www.w3.org/2000/svg'></svg>"
        "<script src='https://cdn.example.com/x.js'></script><img src='photo.jpg'>"
        "<a href='page.html'>ok</a>",
        "style.css": "body{background:url(//fonts.example.com/a.woff)}",
        "app.js": "fetch('https://api.example.com/data'); const i = 'data:image/png;base64,xx';",
    }
    problems = "\n".join(static_problems(files))
    assert "https://cdn.example.com/x.js" in problems
    assert "//fonts.example.com/a.woff" in problems
    assert "https://api.example.com/data" in problems
    assert "photo.jpg" in problems and "data:image" in problems
    assert "w3.org" not in problems and "page.html" not in problems


def test_the_repair_prompt_carries_the_problems_and_only_the_last_reply() -> None:
    first = first_messages("gen0000-x", sample_triples(1, seed=0)[0])
    messages = repair_messages(first, "REPLY", ["console error: boom", "task t: failed"])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "- console error: boom" in messages[-1]["content"]
    assert "gen0000-x" in first[1]["content"] and "inline <svg>" in first[0]["content"]


def _png(*boxes: tuple[int, int, int, int]) -> bytes:
    image = Image.new("RGB", (320, 180), "white")
    for box in boxes:
        ImageDraw.Draw(image).rectangle(box, fill="black")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def test_dhash_separates_layouts_and_reports_near_duplicates() -> None:
    left, right = _png((0, 0, 100, 180)), _png((220, 0, 320, 90))
    left_again = _png((0, 0, 100, 180), (200, 100, 202, 102))  # one small mark more
    assert distance(dhash(left), dhash(left_again)) <= 4
    assert distance(dhash(left), dhash(right)) > 10
    result = measure({"a": dhash(left), "b": dhash(left_again), "c": dhash(right)})
    assert result.pairs == 3 and [(a, b) for a, b, _ in result.near_duplicates] == [("a", "b")]
