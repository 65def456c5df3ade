"""Size cap and adversarial inputs: 100 KB outputs parse (or fail) promptly, never hang.

The timeouts are generous (5 s); the parsers take milliseconds on these inputs. They exist to
catch quadratic scans or catastrophic regex backtracking, not to measure speed.
"""

from __future__ import annotations

import contextlib
import random

import pytest

from webdojo.actions import Click, GoBack, Stop
from webdojo.errors import AgentError, ParseError
from webdojo.parsing import MAX_INPUT_CHARS, parse

K100 = 100_000
QWEN_CALL = '<tool_call>{"name": "computer_use", "arguments": {"action": "go_back"}}</tool_call>'

AT_THE_END = [
    ("qwen", "lorem ipsum " * (K100 // 12) + QWEN_CALL, GoBack()),
    ("qwen", "Memory:\n" * (K100 // 8) + QWEN_CALL, GoBack()),
    ("qwen", "Memory: " + '"' * K100 + "\n" + QWEN_CALL, GoBack()),
    ("qwen", "Memory: {" + '"a": [' * (K100 // 6) + "\n" + QWEN_CALL, GoBack()),
    (
        "browseragent",
        "<think>" + "word [1] " * (K100 // 9) + "</think>\n```click [3]```",
        Click(element=3),
    ),
    ("browseragent", "stop\n" * (K100 // 5), Stop()),
    ("funcall", "lorem ipsum ( " * (K100 // 14) + "click(1, 2)", Click(x=1, y=2)),
    ("funcall", "prose\n" * 16_000 + "stop('" + "a" * 9_000 + "')", Stop(answer="a" * 9_000)),
    ("funcall", "`" * K100 + "x y\n" + "click(1, 2)", Click(x=1, y=2)),
]

ADVERSARIAL = [
    ("qwen", "<tool_call>" * (K100 // 11)),
    ("qwen", "<tool_call>" + "{" * K100),
    ("qwen", "<tool_call>" + "[" * K100),
    ("qwen", '<tool_call>{"name": "' + "\\" * K100),
    ("qwen", "<tool_call>{'a': " + ",   " * (K100 // 4)),
    ("qwen", "<tool_call>" + "-" * K100 + "1"),
    ("qwen", "<tool_call>" + "1+" * (K100 // 2) + "1"),
    ("qwen", "<think>" * (K100 // 7)),
    ("qwen", "</think>" * (K100 // 8)),
    ("browseragent", "```" * (K100 // 3)),
    ("browseragent", "````" + "```x" * (K100 // 4)),
    ("browseragent", "```stop " + "[" * K100 + "```"),
    ("browseragent", "```type [1] [x[1]" + " " * K100 + "x```"),
    ("browseragent", "<conclusion>" * (K100 // 12)),
    ("browseragent", "```\nclick [1]\n" + "click\n" * (K100 // 6) + "```"),
    ("funcall", "click(" * (K100 // 6)),
    ("funcall", "click(" * 32 + "(" * K100),
    ("funcall", "click(" * 32 + "'a" * (K100 // 2)),
    ("funcall", "click(" * 32 + "'" + "\\a" * (K100 // 2)),
    ("funcall", "click(" + "[" * 5_000 + "]" * 5_000 + ")"),
    ("funcall", "click(" + "-" * 20_000 + "1, 2)"),
    ("funcall", 'stop("""' + "a\n" * (K100 // 2)),
    ("qwen", '<tool_call>"' + '\\"' * (K100 // 2) + "</tool_call>"),
    ("qwen", "<tool_call>```a" + " " * K100 + "b</tool_call>"),
    ("qwen", "<tool_call>" + "1" * K100),
    ("funcall", "click(" + "1" * K100 + ", 2)"),
]

FRAGMENTS = [
    "<tool_call>", "</tool_call>", "<think>", "</think>", "<conclusion>", "```", "`", "[", "]",
    "(", ")", "{", "}", '"', "'", "\\", ",", " ", "\n", "click(", "stop [", "[1]", "Memory:",
    "1) ", "**", "#", "-", "1", "a", ":", "=",
]  # fmt: skip
PREFIXES = [
    "", "<tool_call>", "<tool_call>{", "<tool_call>```json\n", "```", "<think>", "Memory: {",
    "click(", "stop('", "```type [1] ", "```stop ", "</think>",
]  # fmt: skip


@pytest.mark.timeout(5)
@pytest.mark.parametrize(("fmt", "text", "expected"), AT_THE_END, ids=range(len(AT_THE_END)))
def test_100kb_with_the_action_at_the_end(fmt: str, text: str, expected: object) -> None:
    assert len(text) >= K100 - 20
    assert parse(text, fmt).action == expected


@pytest.mark.timeout(5)
@pytest.mark.parametrize(("fmt", "text"), ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_adversarial_100kb_fails_cleanly(fmt: str, text: str) -> None:
    with pytest.raises(AgentError) as info:
        parse(text, fmt)
    assert "Expected format" in info.value.message


@pytest.mark.timeout(5)
@pytest.mark.parametrize("fmt", ["qwen", "browseragent", "funcall"])
def test_over_the_cap_is_refused_at_once(fmt: str) -> None:
    text = "x" * (MAX_INPUT_CHARS + 1) + "\nstop('a')"
    with pytest.raises(ParseError, match="limit") as info:
        parse(text, fmt)
    assert info.value.details["length"] == len(text)


def test_at_the_cap_is_still_read() -> None:
    call = "click(1, 2)"
    text = " " * (MAX_INPUT_CHARS - len(call)) + call
    assert parse(text, "funcall").action == Click(x=1, y=2)


@pytest.mark.timeout(60)
def test_random_repetitive_100kb_inputs_never_hang_or_crash() -> None:
    """Repeated fragments of each format's syntax, the shape that exposes regex backtracking
    and quadratic scans. Only AgentErrors may come out."""
    rng = random.Random(20260101)
    for _ in range(40):
        fragment = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 4)))
        text = rng.choice(PREFIXES) + fragment * (K100 // len(fragment))
        for fmt in ("qwen", "browseragent", "funcall"):
            with contextlib.suppress(AgentError):
                parse(text, fmt)
