"""``parse(render(a, f), f).action == a`` for every action each format can express, on fixed
examples and on seeded random ones with awkward text (brackets, quotes, fences, unicode)."""

from __future__ import annotations

import random

import pytest

from webdojo.actions import (
    Action,
    Click,
    CloseTab,
    CoordSpace,
    DoubleClick,
    GoBack,
    GoForward,
    Goto,
    Hover,
    NewTab,
    Press,
    Scroll,
    Select,
    Stop,
    TabFocus,
    Type,
    Wait,
)
from webdojo.parsing import ParseFormat, default_coord_space, parse, render

N = CoordSpace.NORM1000
P = CoordSpace.PIXEL

NAV: list[Action] = [
    Press(keys="Enter"),
    Press(keys="Control+Shift+t"),
    Press(keys="+"),
    Goto(url="https://example.com/a?b=1#c"),
    GoBack(),
    GoForward(),
    NewTab(),
    NewTab(url="https://example.com"),
    TabFocus(index=2),
    CloseTab(),
    Stop(),
    Stop(answer="N/A"),
    Stop(answer='He said "yes" [1] (twice) \\ `code` ```fence```\nline two'),
]
QWEN_ONLY: list[Action] = [
    Click(x=245, y=312, space=N),
    Click(x=0, y=1000, space=N),
    Click(x=12.5, y=7.25, space=N),
    DoubleClick(x=1, y=2, space=N),
    Hover(x=3, y=4, space=N),
    Type(text="hello", x=5, y=6, space=N, enter=True),
    Type(text="draft", x=5, y=6, space=N),
    Type(text="focused", enter=True),
    Scroll(direction="down"),
    Scroll(direction="up", amount=300, x=500, y=500, space=N),
    Scroll(direction="left", amount=120),
    Scroll(direction="right"),
    Wait(seconds=2.5),
    Wait(),
]
BROWSERAGENT_ONLY: list[Action] = [
    Click(element=1459),
    Hover(element=0),
    Type(element=331, text="Princes in the Tower", enter=True),
    Type(element=5, text="1", enter=True),
    Type(element=5, text="", enter=False),
    Type(element=5, text="a] [1", enter=False),
    Type(element=5, text="[[x]]\nsecond line"),
    Select(element=7, option="Large (L) ]"),
    Scroll(direction="down"),
    Scroll(direction="up"),
]
FUNCALL_ONLY: list[Action] = [
    Click(x=412, y=230),
    Click(element=5),
    Click(x=0.5, y=1e-3),
    DoubleClick(element=2),
    Hover(x=1, y=2),
    Type(text="hello", x=100, y=200, enter=True),
    Type(text="x", element=3),
    Type(text="focused"),
    Scroll(direction="down"),
    Scroll(direction="up", amount=300, x=640, y=360),
    Scroll(direction="left", x=1, y=2),
    Scroll(direction="right", element=4),
    Scroll(direction="down", amount=10, element=4),
    Select(element=3, option="Large"),
    Wait(seconds=0),
    Wait(seconds=3),
]
EXPRESSIBLE: dict[str, list[Action]] = {
    "qwen": NAV + QWEN_ONLY,
    "browseragent": [a for a in NAV if not isinstance(a, Press) or a.keys != "+"]
    + [Press(keys="+")]
    + BROWSERAGENT_ONLY,
    "funcall": NAV + FUNCALL_ONLY,
}
NOT_EXPRESSIBLE: dict[str, list[Action]] = {
    "qwen": [Click(element=3), Select(element=1, option="a"), Type(text="a", element=2)],
    "browseragent": [
        Click(x=1, y=2),
        DoubleClick(element=1),
        Wait(),
        Scroll(direction="down", amount=100),
        Scroll(direction="down", element=3),
        Type(text="a"),
    ],
    "funcall": [],
}


def _cases() -> list[tuple[str, Action]]:
    return [(fmt, a) for fmt, actions in EXPRESSIBLE.items() for a in actions]


@pytest.mark.parametrize(("fmt", "action"), _cases(), ids=lambda v: str(v)[:40])
def test_round_trip(fmt: str, action: Action) -> None:
    text = render(action, fmt)
    assert parse(text, fmt).action == action, text


@pytest.mark.parametrize(
    ("fmt", "action"),
    [(f, a) for f, actions in NOT_EXPRESSIBLE.items() for a in actions],
    ids=lambda v: str(v)[:40],
)
def test_render_refuses_what_the_format_cannot_say(fmt: str, action: Action) -> None:
    with pytest.raises(ValueError):
        render(action, fmt)


def test_render_refuses_a_foreign_coordinate_space() -> None:
    with pytest.raises(ValueError, match="coord_space"):
        render(Click(x=1, y=2, space=P), "qwen")
    with pytest.raises(ValueError, match="coord_space"):
        render(Click(x=1, y=2, space=N), "funcall")
    text = render(Click(x=1, y=2, space=P), "qwen", coord_space=P)
    assert parse(text, "qwen", coord_space=P).action == Click(x=1, y=2, space=P)


def test_every_action_type_is_expressible_somewhere() -> None:
    covered = {type(a) for actions in EXPRESSIBLE.values() for a in actions}
    assert covered == {
        Click, DoubleClick, Hover, Type, Scroll, Select, Press, Goto, GoBack, GoForward,
        NewTab, TabFocus, CloseTab, Wait, Stop,
    }  # fmt: skip


# --- seeded random actions --------------------------------------------------------------------

PIECES = [
    "a", "Z", "7", " ", "  ", "[", "]", "(", ")", "{", "}", '"', "'", "\\", "`", "```", "\n",
    "\t", ",", ":", "#", "东京", "👋", "שלום", "é", "</tool_call>", "<think>", "] [1", "[0]",
    "click(5)", "stop [x]", "\u2028", "\x00", "</think>", "<conclusion>", "</conclusion>",
]  # fmt: skip


def _text(rng: random.Random, max_pieces: int = 12) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, max_pieces)))


def _point(rng: random.Random, space: CoordSpace) -> dict[str, object]:
    top = 1000 if space is N else 4000
    pick = rng.choice([lambda: rng.randint(0, top), lambda: round(rng.uniform(0, top), 3)])
    return {"x": pick(), "y": pick(), "space": space}


def _random_action(rng: random.Random, fmt: str) -> Action:
    space = default_coord_space(fmt) or P
    element = {"element": rng.randint(0, 5000)}
    target = {
        "qwen": lambda: _point(rng, space),
        "browseragent": lambda: element,
        "funcall": lambda: rng.choice([element, _point(rng, space)]),
    }[fmt]
    kinds: list[Action] = [
        Click(**target()),  # type: ignore[arg-type]
        Hover(**target()),  # type: ignore[arg-type]
        Type(text=_text(rng), enter=rng.random() < 0.5, **target()),  # type: ignore[arg-type]
        Stop(answer=_text(rng, 30)),
        Goto(url="https://example.com/" + rng.choice(["", "a]b", "x?q=1&r=[2]", "%E4"])),
        TabFocus(index=rng.randint(0, 20)),
        Press(keys=rng.choice(["Enter", "Control+a", "Shift+Tab", "ArrowDown", "F5", "a", "]"])),
    ]
    if fmt != "browseragent":
        kinds.append(DoubleClick(**target()))  # type: ignore[arg-type]
        amount = rng.choice([None, rng.randint(1, 20_000)])
        kinds.append(Scroll(direction=rng.choice(["up", "down", "left", "right"]), amount=amount))
    if fmt != "qwen":
        kinds.append(Select(element=rng.randint(0, 99), option=_text(rng)))
    return rng.choice(kinds)


@pytest.mark.parametrize("fmt", [f.value for f in ParseFormat])
def test_round_trip_random(fmt: str) -> None:
    rng = random.Random(f"webdojo-{fmt}")
    rendered = 0
    for _ in range(400):
        action = _random_action(rng, fmt)
        try:
            text = render(action, fmt)
        except ValueError as exc:  # browseragent: text that would read as another command
            assert fmt == "browseragent" and "cannot carry" in str(exc)
            continue
        rendered += 1
        assert parse(text, fmt).action == action, (action, text)
    assert rendered >= 300
