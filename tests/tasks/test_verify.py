"""Verifier checks are pure functions of a FinalState: each op passes and fails where it should."""

from __future__ import annotations

import pytest

from webdojo.observation import FinalState
from webdojo.tasks.schema import Task
from webdojo.tasks.verify import first_number, follow_path, normalize_text, verify

STORAGE = {
    "shop.cart": [{"sku": "lamp", "qty": 2}, {"sku": "mug", "qty": 1}],
    "shop.orders": [{"id": "A1", "total": 59.5, "items": [{"sku": "lamp"}], "shipping": "express"}],
    "login.settings": {"name": "Ada", "alerts": {"email": True, "sms": False}},
}


def make_task(checks: list[dict], **extra) -> Task:
    return Task.model_validate(
        {
            "id": "t.x",
            "website": "shop",
            "instruction": "do it",
            "start_url": "index.html",
            "rubric": {"fact_groups": [{"id": 1, "facts": ["a"]}]},
            "verifier": {"checks": checks},
            "solution": [{"type": "stop"}],
            **extra,
        }
    )


def state(
    answer: str | None = None, url: str = "http://127.0.0.1:1/shop/done.html?o=A1"
) -> FinalState:
    return FinalState(
        url=url, title="Done", storage=STORAGE, text="Thank you! Order A1 placed.", answer=answer
    )


@pytest.mark.parametrize(
    ("check", "answer", "expected"),
    [
        ({"kind": "answer", "match": "exact", "value": "Edward IV"}, "  edward iv. ", True),
        ({"kind": "answer", "match": "exact", "value": "Edward IV"}, "King Edward IV", False),
        ({"kind": "answer", "match": "contains", "value": "Edward IV"}, "King Edward IV", True),
        (
            {"kind": "answer", "match": "any_of", "values": ["Oslo", "Christiania"]},
            "christiania",
            True,
        ),
        ({"kind": "answer", "match": "any_of", "values": ["Oslo"]}, "Bergen", False),
        (
            {"kind": "answer", "match": "number", "value": 1234.5, "tolerance": 0.01},
            "It costs $1,234.50",
            True,
        ),
        ({"kind": "answer", "match": "number", "value": 12, "tolerance": 0}, "13 items", False),
        ({"kind": "answer", "match": "number", "value": 12}, "no digits here", False),
        ({"kind": "answer", "match": "regex", "value": r"^A\d+$"}, "a17", True),
        ({"kind": "answer", "match": "exact", "value": "x"}, None, False),
    ],
)
def test_answer_checks(check: dict, answer: str | None, expected: bool) -> None:
    assert verify(make_task([check]), state(answer)).passed is expected


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        (
            {"kind": "storage", "key": "shop.cart", "path": "0.sku", "op": "eq", "value": "lamp"},
            True,
        ),
        (
            {"kind": "storage", "key": "shop.cart", "path": "-1.sku", "op": "eq", "value": "mug"},
            True,
        ),
        (
            {
                "kind": "storage",
                "key": "shop.cart",
                "path": "*.sku",
                "op": "eq",
                "value": ["lamp", "mug"],
            },
            True,
        ),
        (
            {
                "kind": "storage",
                "key": "shop.cart",
                "path": "*.sku",
                "op": "contains",
                "value": "mug",
            },
            True,
        ),
        (
            {
                "kind": "storage",
                "key": "shop.cart",
                "path": "*.sku",
                "op": "not_contains",
                "value": "mug",
            },
            False,
        ),
        ({"kind": "storage", "key": "shop.cart", "op": "len_eq", "value": 2}, True),
        ({"kind": "storage", "key": "shop.cart", "op": "len_gte", "value": 3}, False),
        ({"kind": "storage", "key": "shop.cart", "path": "5.sku", "op": "eq", "value": "x"}, False),
        (
            {"kind": "storage", "key": "shop.orders", "path": "0.total", "op": "gte", "value": 50},
            True,
        ),
        (
            {"kind": "storage", "key": "shop.orders", "path": "0.total", "op": "lte", "value": 50},
            False,
        ),
        (
            {
                "kind": "storage",
                "key": "shop.orders",
                "path": "0.shipping",
                "op": "in",
                "value": ["express", "air"],
            },
            True,
        ),
        (
            {
                "kind": "storage",
                "key": "shop.orders",
                "path": "0.shipping",
                "op": "gte",
                "value": 3,
            },
            False,
        ),
        (
            {
                "kind": "storage",
                "key": "login.settings",
                "path": "alerts.sms",
                "op": "eq",
                "value": False,
            },
            True,
        ),
        (
            {"kind": "storage", "key": "login.settings", "path": "alerts.push", "op": "missing"},
            True,
        ),
        (
            {"kind": "storage", "key": "login.settings", "path": "alerts.email", "op": "exists"},
            True,
        ),
        ({"kind": "storage", "key": "nope", "op": "exists"}, False),
        (
            {
                "kind": "storage",
                "key": "login.settings",
                "path": "name",
                "op": "ne",
                "value": "Bob",
            },
            True,
        ),
        ({"kind": "url", "op": "contains", "value": "done.html"}, True),
        ({"kind": "url", "op": "regex", "value": r"o=A\d$"}, True),
        ({"kind": "url", "op": "endswith", "value": "o=B2"}, False),
        ({"kind": "text", "op": "contains", "value": "order a1 PLACED"}, True),
        ({"kind": "text", "op": "not_contains", "value": "error"}, True),
    ],
)
def test_state_checks(check: dict, expected: bool) -> None:
    result = verify(make_task([check]), state())
    assert result.passed is expected
    assert result.reasons[0].startswith("ok" if expected else "fail")


def test_all_checks_must_pass_and_every_check_is_explained() -> None:
    task = make_task(
        [
            {"kind": "storage", "key": "shop.cart", "path": "0.qty", "op": "eq", "value": 2},
            {"kind": "answer", "match": "exact", "value": "A1"},
        ]
    )
    assert verify(task, state("A1")).passed
    failed = verify(task, state("A2"))
    assert not failed.passed
    assert [r.split(":")[0] for r in failed.reasons] == ["ok", "fail"]


def test_helpers() -> None:
    assert normalize_text("  'Hello,   World!' ") == "hello, world"
    assert first_number("about -3.5 km") == -3.5
    assert first_number("$1,250") == 1250
    assert follow_path({"a": [1, {"b": 2}]}, "a.1.b") == 2
