"""The ``compact`` template: bare commands that parse back, replies that name their element
first, a pruned tree with ids after names, and MiniWoB++ steps of a few hundred tokens, solved
by the scripted teacher in its syntax (real Chromium)."""

from __future__ import annotations

import json

import pytest
from policy_builders import make_obs, make_step

from webdojo.actions import Click, Scroll, Select, Stop, Type
from webdojo.observation import ErrorInfo
from webdojo.policies.scripted import ScriptedPolicy
from webdojo.prompts import get_template
from webdojo.rollout.env_client import InProcessEnv
from webdojo.rollout.episode import EpisodeSpec, run_episode
from webdojo.sites.server import SiteServer
from webdojo.store.run_store import RunStore
from webdojo.tasks.loader import load_spec
from webdojo.training.processing import train_tokenizer

TREE = """RootWebArea 'Select YM2l8 and click Submit.'
StaticText 'Select YM2l8 and click Submit.'
[0] checkbox 'TVkEpYW' checked: false
StaticText 'TVkEpYW'
[1] button 'Submit'"""


@pytest.mark.parametrize(
    "action",
    [
        Click(element=4),
        Type(element=2, text="Thaddeus", enter=False),
        Select(element=3, option="Blue"),
        Scroll(direction="down"),
        Stop(answer="42"),
    ],
)
def test_replies_are_bare_commands_that_parse_back(action) -> None:
    template = get_template("compact")
    text = template.render(action)
    assert "\n" not in text and "<think>" not in text and "`" not in text
    assert template.parse(text).action == action


def test_the_tree_drops_labels_that_repeat_their_element_and_is_capped(task) -> None:
    template = get_template("compact", max_tree_lines=3)
    page = template.page(make_obs(axtree=TREE))
    assert page.splitlines() == [
        "RootWebArea 'Select YM2l8 and click Submit.'",
        "checkbox 'TVkEpYW' [0] checked: false",
        "button 'Submit' [1]",
        "...",
    ]
    ungrounded = get_template("compact", max_tree_lines=3, ground=False)
    assert ungrounded.page(make_obs(axtree=TREE)).splitlines()[1:3] == [
        "[0] checkbox 'TVkEpYW' checked: false",
        "[1] button 'Submit'",
    ]


@pytest.mark.parametrize(
    ("action", "reply"),
    [
        (Click(element=0), "<think>checkbox 'TVkEpYW' [0]</think>click [0]"),
        (
            Type(element=1, text="x y", enter=False),
            "<think>button 'Submit' [1]</think>type [1] [x y] [0]",
        ),
        (Click(element=7), "click [7]"),  # not on the page as shown: nothing to name
        (Stop(answer="done"), "stop [done]"),
    ],
)
def test_replies_name_the_page_line_of_their_element_first(action, reply) -> None:
    template = get_template("compact")
    text = template.reply(action, make_obs(axtree=TREE))
    assert text == reply
    parsed = template.parse(text)
    assert parsed.action == action
    assert get_template("compact", ground=False).reply(action, make_obs(axtree=TREE)) == (
        template.render(action)
    )


def test_the_last_actions_and_their_errors_are_told(task) -> None:
    template = get_template("compact", last_actions=2)
    history = [make_step(n, f"click [{n}]", Click(element=n)) for n in range(4)]
    failed = ErrorInfo(code="unknown_element", message="no element 9", fault="agent")
    obs = make_obs(axtree=TREE, last_error=failed)
    (system, user) = template.build_messages(task, obs, history, None)
    assert system["content"] == template.system_prompt() and len(system["content"]) < 400
    done = user["content"].splitlines()[-1]
    assert done == "Done: click [2]; click [3] (failed: unknown_element)"


def test_the_objective_can_come_last_right_before_the_reply(task) -> None:
    """``compact:objective=last`` (a template spec a command's --template takes): the same
    lines, the objective moved after the page and the last actions."""
    history = [make_step(0, "click [1]", Click(element=1))]
    first = get_template("compact").build_messages(task, make_obs(axtree=TREE), history, None)
    last = get_template("compact:objective=last")
    moved = last.build_messages(task, make_obs(axtree=TREE), history, None)
    lines = first[1]["content"].splitlines()
    assert lines[0] == f"Objective: {task.instruction}"
    assert moved[1]["content"].splitlines() == [*lines[1:], lines[0]]
    assert moved[0] == first[0]


@pytest.mark.browser
async def test_miniwob_steps_fit_in_a_few_hundred_tokens_and_the_teacher_solves_them(
    tmp_path,
) -> None:
    tasks = load_spec("miniwob:click-test+click-button+enter-text+focus-text+click-checkboxes")
    template = get_template("compact")
    teacher = ScriptedPolicy(template=template)
    prompts: list[str] = []
    with SiteServer(tasks.sites) as server, RunStore(tmp_path) as store:
        env = InProcessEnv(server)
        try:
            for task in tasks.tasks:
                spec = EpisodeSpec(task=task, key=task.id, max_steps=task.max_steps, seed=7)
                record = await run_episode(env, teacher, spec, store)
                assert record.success, (task.id, record.error)
                session, obs = await env.open(task, template.observation_options(), seed=7)
                messages = template.build_messages(task, obs, [], None)
                prompts.append("\n".join(m["content"] for m in messages))
                await session.aclose()
        finally:
            await env.aclose()
    tokenizer = train_tokenizer(prompts * 20)
    lengths = [len(tokenizer.encode(p)) for p in prompts]
    assert max(lengths) < 400, lengths


@pytest.mark.browser
async def test_the_teacher_acts_only_on_elements_the_model_was_shown(tmp_path) -> None:
    """forms-report's severity select and its Send button are below the fold: the teacher
    scrolls to each first, so every reply that acts on an element names its line."""
    tasks = load_spec("family:forms-report:1@0")
    teacher = ScriptedPolicy(template=get_template("compact"))
    with SiteServer(tasks.sites) as server, RunStore(tmp_path) as store:
        env = InProcessEnv(server)
        try:
            task = tasks.tasks[0]
            spec = EpisodeSpec(task=task, key=task.id, max_steps=task.max_steps, seed=0)
            record = await run_episode(env, teacher, spec, store)
        finally:
            await env.aclose()
    assert record.success, record.error
    rows = [json.loads(line) for line in (tmp_path / "steps.jsonl").read_text().splitlines()]
    acted = [r["text"] for r in rows if (r["action"] or {}).get("element") is not None]
    assert len(acted) == len(task.solution) - 1  # every step but the stop
    assert all(text.startswith("<think>") for text in acted), acted
    assert sum(r["text"] == "scroll [down]" for r in rows) >= 1


FORM = """[6] combobox 'Session timeout' value: '60 minutes' options: '15 minutes', '30 minutes', '60 minutes', '2 hours', '4 hours', '8 hours', '12 hours'
[7] textbox 'Notification email' value: 'ops@tallyworks.example'
[8] link 'Don't ask: it's fine' url: http://127.0.0.1:1/x
StaticText 'Don't ask: it's fine'"""


def test_ids_follow_the_name_not_the_facts_and_are_never_cut_off() -> None:
    """A line with a value or options keeps ``role 'name' [id]`` whole: the id comes right
    after the name (names may hold quotes), and the line is cut after it, not through it."""
    template = get_template("compact", max_line_chars=40)
    page = template.page(make_obs(axtree=FORM)).splitlines()
    assert page == [
        "combobox 'Session timeout' [6] value: '6",
        "textbox 'Notification email' [7] value: ",
        "link 'Don't ask: it's fine' [8] url: htt",
    ]  # the StaticText repeating the link's name went
    short = get_template("compact", max_line_chars=10).page(make_obs(axtree=FORM)).splitlines()
    assert [line.rsplit(" ", 1)[-1] for line in short] == ["[6]", "[7]", "[8]"]
    reply = template.reply(Select(element=6, option="2 hours"), make_obs(axtree=FORM))
    assert reply == "<think>combobox 'Session timeout' [6]</think>select [6] [2 hours]"
    assert template.parse(reply).action == Select(element=6, option="2 hours")
    assert "<think>" in template.system_prompt()
    assert "<think>" not in get_template("compact", ground=False).system_prompt()


TWINS = TREE + "\n[5] button 'OK'\n[6] button 'OK'"


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        # the line names the Submit button; the command's id is another element's
        ("<think>button 'Submit' [0]</think>click [0]", Click(element=1)),
        (
            "<think>button 'Submit' [7]</think>type [7] [a b] [0]",
            Type(element=1, text="a b", enter=False),
        ),
        # two elements bear the name: the command's own id when it is one of them, else the first
        ("<think>button 'OK' [5]</think>click [6]", Click(element=6)),
        ("<think>button 'OK' [9]</think>click [9]", Click(element=5)),
        # nothing to settle: no line of the page has that name, no line at all, no element
        ("<think>button 'Cancel' [0]</think>click [0]", Click(element=0)),
        ("<think>the box to tick</think>click [0]", Click(element=0)),
        ("click [3]", Click(element=3)),
        ("<think>button 'Submit' [1]</think>stop [done]", Stop(answer="done")),
    ],
)
def test_a_grounded_reply_acts_on_the_element_its_line_names(reply, action) -> None:
    template = get_template("compact")
    read = template.read(reply, make_obs(axtree=TWINS))
    assert read.action == action
    assert read.raw == reply  # the reply is kept as the model wrote it
    as_written = get_template("compact", resolve_names=False).read(reply, make_obs(axtree=TWINS))
    assert as_written.action == template.parse(reply).action
