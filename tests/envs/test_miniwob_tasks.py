"""MiniWoB++ without a browser: the task set, the spec syntax, the missing package, the page
script's injection, the done rule and the solvers' reading of a page."""

from __future__ import annotations

import importlib.util

import pytest

from webdojo.actions import Click, Scroll, Stop, Type
from webdojo.errors import MissingDependency, TaskFileError
from webdojo.observation import Box, Element, ErrorInfo, FinalState
from webdojo.policies.miniwob import SOLVERS, Page
from webdojo.sites.server import SiteServer, with_injected
from webdojo.tasks import miniwob_pages as env
from webdojo.tasks.episode_rules import EndReason, episode_end
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.tasks.miniwob import LONG_STEP_CAP, STEP_CAP, miniwob_task
from webdojo.tasks.verify import verify


def test_every_page_of_the_package_is_a_task(miniwob: TaskSet) -> None:
    names = env.task_names()
    assert len(names) >= 100 and "click-test" in names
    assert [t.id for t in miniwob.tasks] == [f"miniwob.{n}" for n in names]
    site = miniwob.sites["miniwob"]
    assert site.path == env.html_dir() and "Math.seedrandom(seed)" in site.inject
    task = miniwob.tasks[names.index("click-test")]
    assert task.start_url == "miniwob/click-test.html?seed={seed}" and task.max_steps == STEP_CAP
    assert miniwob_task("book-flight").max_steps == LONG_STEP_CAP


@pytest.mark.parametrize(
    ("spec", "ids"),
    [
        ("miniwob:click-test,enter-text", ["miniwob.click-test", "miniwob.enter-text"]),
        ("miniwob:click-test+enter-text", ["miniwob.click-test", "miniwob.enter-text"]),
        ("miniwob:click-test, enter-text,click-test", ["miniwob.click-test", "miniwob.enter-text"]),
    ],
)
def test_spec_names_some_tasks(miniwob: TaskSet, spec: str, ids: list[str]) -> None:
    assert [t.id for t in load_spec(spec).tasks] == ids


def test_names_after_miniwob_run_up_to_the_next_source(miniwob: TaskSet) -> None:
    builtin = load_spec("builtin")
    mixed = load_spec("miniwob:click-test,enter-text,builtin")
    assert [t.id for t in mixed.tasks[:2]] == ["miniwob.click-test", "miniwob.enter-text"]
    assert len(mixed.tasks) == 2 + len(builtin.tasks)
    assert set(mixed.sites) == {"miniwob", *builtin.sites}
    other_way = load_spec("builtin,miniwob:click-test")
    assert other_way.tasks[-1].id == "miniwob.click-test"


def test_an_unknown_task_name_is_refused_with_a_suggestion(miniwob: TaskSet) -> None:
    with pytest.raises(TaskFileError, match=r"click-tset \(did you mean click-test"):
        load_spec("miniwob:click-tset")


def test_a_missing_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "miniwob" else real(name, *a)
    )
    with pytest.raises(MissingDependency, match="pip install --no-deps miniwob") as caught:
        load_spec("miniwob:click-test")
    assert caught.value.code == "missing_dependency" and caught.value.fault == "config"


def test_the_page_script_goes_before_the_last_body_end() -> None:
    page = b"<html><body><p>a</p></BODY></html>"
    assert with_injected(page, "<script>x</script>") == (
        b"<html><body><p>a</p><script>x</script></BODY></html>"
    )
    assert with_injected(b"<p>no body</p>", "<i>") == b"<p>no body</p><i>"


def test_the_episode_seed_goes_into_the_start_url(miniwob: TaskSet) -> None:
    task = miniwob_task("click-test")
    with SiteServer(miniwob.sites) as server:
        assert server.start_url(task, 1234).endswith("/miniwob/miniwob/click-test.html?seed=1234")
        assert server.start_url(task).endswith("?seed=0")


@pytest.mark.parametrize(
    ("action", "error", "done", "taken", "reason"),
    [
        (Click(element=1), None, True, 1, EndReason.DONE),
        (Click(element=1), None, True, 10, EndReason.DONE),  # done beats the cap
        (Scroll(direction="down"), None, False, 10, EndReason.STEP_CAP),  # never done
        (Stop(), None, True, 2, EndReason.STOPPED),
        (Click(element=1), ErrorInfo(code="page_crashed", fault="env", message="x"), True, 1,
         EndReason.FAULT),
    ],
)  # fmt: skip
def test_a_page_that_says_done_ends_the_episode(
    action: Click | Scroll | Stop, error: ErrorInfo | None, done: bool, taken: int,
    reason: EndReason,
) -> None:  # fmt: skip
    assert (
        episode_end(max_steps=10, steps_taken=taken, action=action, error=error, page_done=done)
        is reason
    )


def test_the_verifier_reads_the_pages_result() -> None:
    task = miniwob_task("click-test")
    won = {env.STORAGE_KEY: {"raw_reward": 1, "reward": 0.99, "done": True, "success": True}}
    lost = {env.STORAGE_KEY: {"raw_reward": -1, "reward": -1, "done": True, "success": False}}
    assert verify(task, FinalState(url="u", storage=won)).passed
    assert not verify(task, FinalState(url="u", storage=lost)).passed
    # the page never ended the episode (step cap): no result, a failure (reward 0)
    assert not verify(task, FinalState(url="u", storage={})).passed


def _el(eid: int, role: str, name: str = "", value: str | None = None) -> Element:
    box = Box(x=0, y=0, width=10, height=10)
    tag = "input" if role in ("textbox", "checkbox") else "button"
    return Element(id=eid, role=role, name=name, tag=tag, box=box, in_viewport=True, value=value)


def test_login_solver_fills_masked_password_fields_then_submits() -> None:
    query = 'Enter the username "kasi" and the password "Ab1" into the text fields and press login.'
    login = SOLVERS["login-user"]
    fields = [_el(0, "textbox"), _el(1, "textbox"), _el(2, "button", "Login")]
    assert login(Page(query, fields, 0)) == Type(element=0, text="kasi")
    fields[0] = _el(0, "textbox", value="kasi")
    assert login(Page(query, fields, 1)) == Type(element=1, text="Ab1")
    fields[1] = _el(1, "textbox", value="\u2022\u2022\u2022")
    assert login(Page(query, fields, 2)) == Click(element=2)


def test_checkbox_solver_checks_the_named_boxes_then_submits() -> None:
    solve = SOLVERS["click-checkboxes"]
    boxes = [_el(0, "checkbox", "ab"), _el(1, "checkbox", "cd"), _el(2, "button", "Submit")]
    assert solve(Page("Select cd and click Submit.", boxes, 0)) == Click(element=1)
    assert solve(Page("Select nothing and click Submit.", boxes, 0)) == Click(element=2)
    assert solve(Page("Click the thing.", boxes, 0)) is None  # not this task's wording
