"""Fixed-seed MiniWoB++ instances (``miniwob:NAME[:N][@SEED]``): one task per page seed, so
that training and held-out instances are disjoint seed ranges, as for task families."""

from __future__ import annotations

import pytest

from webdojo.environment.make import default_spec
from webdojo.errors import TaskFileError
from webdojo.tasks.loader import load_spec

pytest.importorskip("miniwob")


def test_a_seed_range_gives_one_task_per_page_and_seed() -> None:
    tasks = load_spec("miniwob:click-test+enter-text:3@100").tasks
    assert [t.id for t in tasks] == [
        *(f"miniwob.click-test.{s}" for s in (100, 101, 102)),
        *(f"miniwob.enter-text.{s}" for s in (100, 101, 102)),
    ]
    assert tasks[0].start_url == "miniwob/click-test.html?seed=100"  # no {seed} to fill in
    assert tasks[0].meta == {"miniwob_task": "click-test", "seed": 100}
    assert load_spec("miniwob:click-test@7").tasks[0].id == "miniwob.click-test.7"
    assert [t.id for t in load_spec("miniwob:click-test,enter-text").tasks] == [
        "miniwob.click-test",
        "miniwob.enter-text",
    ]  # without :N or @SEED, one task per page whose seed each episode draws


def test_instance_ids_find_their_spec() -> None:
    assert default_spec("miniwob.click-test.17") == "miniwob:click-test:1@17"
    assert default_spec("miniwob.click-test-2") == "miniwob:click-test-2"
    assert [t.id for t in load_spec(default_spec("miniwob.click-test.17")).tasks] == [
        "miniwob.click-test.17"
    ]


@pytest.mark.parametrize("spec", ["miniwob::5", "miniwob:click-test:0", "miniwob:click-test:x"])
def test_bad_instance_specs_are_clear_errors(spec: str) -> None:
    with pytest.raises(TaskFileError):
        load_spec(spec)
