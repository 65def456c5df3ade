"""Every built-in and MiniWoB++ task as a Gymnasium id, registered by ``import webdojo`` in
either import order, and Gymnasium's own ``check_env`` on real Chromium for one id of each
kind of page that it stresses differently. (``check_env`` on every id, about 6 s each:
``python scripts/gym_check_all.py``.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

gym = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import webdojo  # noqa: E402, F401  (registers the ids)
from webdojo.tasks.loader import builtin_root, load_spec  # noqa: E402
from webdojo.tasks.miniwob import miniwob_task  # noqa: E402
from webdojo.tasks.miniwob_pages import task_names  # noqa: E402

# check_env resets with one seed and compares observations, steps with random text and checks
# the spaces. Every built-in site is static files behind one server and one env (reset
# determinism there is the page's own: none reads the clock or Math.random), so two stand for
# them: the plain login form, and booking's calendar, the one page that could read today's date.
# MiniWoB++ pages run through another path (the injected page script, a seeded instance):
# click-test stands for them; the kind of task (click, type, choose) changes nothing that
# check_env sends, as its actions are random text.
CHECKED = [
    "webdojo/booking.search-kyoto",
    "webdojo/login.account-id",
    "webdojo/miniwob.click-test",
]


def test_every_task_is_registered_with_its_step_cap() -> None:
    builtin = {t.id: t.max_steps for t in load_spec("builtin").tasks}
    miniwob = {t.id: t.max_steps for t in map(miniwob_task, task_names())}
    ours = {k: v for k, v in gym.registry.items() if k.startswith("webdojo/")}
    assert set(ours) == {f"webdojo/{t}" for t in builtin | miniwob}
    assert len(ours) == len(builtin) + len(miniwob) >= 63 + 100
    for env_id, spec in ours.items():
        assert spec.max_episode_steps == (builtin | miniwob)[env_id.removeprefix("webdojo/")]
        assert spec.kwargs == {"task": env_id.removeprefix("webdojo/")}
    real_time = {k for k, spec in ours.items() if spec.nondeterministic}
    assert real_time == {"webdojo/miniwob.chase-circle", "webdojo/miniwob.stock-market"}


@pytest.mark.parametrize(
    "order", ["import webdojo, gymnasium", "import gymnasium, webdojo", "import webdojo"]
)
def test_import_webdojo_registers_in_either_order_and_alone_loads_no_gymnasium(
    order: str,
) -> None:
    probe = (
        f"{order}\nimport sys, json\nloaded = 'gymnasium' in sys.modules\n"
        "ids = [k for k in sys.modules['gymnasium'].registry if k.startswith('webdojo/')] "
        "if loaded else []\nprint(json.dumps([loaded, len(ids)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded, count = json.loads(out.stdout.strip().splitlines()[-1])
    if order == "import webdojo":
        assert (loaded, count) == (False, 0)  # a webdojo command pays nothing for Gymnasium
    else:
        assert loaded and count == len([k for k in gym.registry if k.startswith("webdojo/")])


# Reads of the clock or of unseeded randomness (``new Date()`` with no argument): a page with one
# could show something else on each reset, which only check_env on that site would catch.
UNSEEDED = re.compile(r"Math\.random|Date\.now|performance\.now|new Date\(\s*\)")


def test_no_built_in_page_reads_the_clock_or_unseeded_randomness() -> None:
    """What lets two built-in ids stand for all of them in check_env (see CHECKED)."""
    sources = [p for p in builtin_root().rglob("*") if p.suffix in (".js", ".html")]
    assert len({p.parent.name for p in sources}) >= 6
    found = [f"{p}: {m}" for p in sources for m in UNSEEDED.findall(p.read_text("utf-8"))]
    assert not found, found


# Their first observation depended on when the episode's images arrived (the email icons,
# jQuery UI's close button); tests/envs/test_miniwob_browser.py checks that they are drawn.
LATE_IMAGES = ["webdojo/miniwob.email-inbox-delete", "webdojo/miniwob.click-dialog"]
# runs on the page's clock: registered nondeterministic, which check_env honours
REAL_TIME = ["webdojo/miniwob.chase-circle"]


@pytest.mark.browser
@pytest.mark.parametrize("env_id", CHECKED + LATE_IMAGES + REAL_TIME)
def test_gymnasium_check_env_passes(env_id: str) -> None:
    env = gym.make(env_id)
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


@pytest.mark.browser
def test_an_episode_through_gymnasium_make() -> None:
    env = gym.make("webdojo/login.account-id")
    try:
        obs, info = env.reset(seed=0)
        assert obs["goal"] == info["instruction"] and obs["screenshot"].shape == (720, 1280, 3)
        assert "Sign in" in obs["axtree"] and obs["last_action_error"] == ""
        obs, reward, terminated, truncated, info = env.step("no action here")
        assert obs["last_action_error"].startswith("[parse_error]") and reward == 0.0
        obs, reward, terminated, truncated, info = env.step('stop("LL-51893")')
        assert (reward, terminated, truncated) == (1.0, True, False)
        assert env.render().shape == (720, 1280, 3)  # type: ignore[union-attr]
    finally:
        env.close()
