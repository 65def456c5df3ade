"""Task families on the built-in booking site (Tidewater Stays): its destinations and its
calendar's today are read from ``data.js``.

``booking-search``: search a given destination for a given party (1-3 adults, 0-1 children)
and a stay of 1-4 nights in the calendar's first month, starting on the search page.
2,340 instances.
"""

from __future__ import annotations

import functools
import itertools
import re
from datetime import date, timedelta
from typing import Any

from webdojo.tasks.families.family import Family, Instance
from webdojo.tasks.families.steps import click
from webdojo.tasks.loader import builtin_root

SITE = "booking"
KEY = "booking.search"
DEFAULT_ADULTS = 2  # the search form's steppers start at 2 adults, 0 children
MAX_NIGHTS = 4
_DESTINATION = re.compile(r'\{ id: "([^"]+)", name: "([^"]+)" \}')


@functools.cache
def _data() -> str:
    return (builtin_root() / SITE / "data.js").read_text(encoding="utf-8")


def destinations() -> tuple[tuple[str, str], ...]:
    """(id, name) of every destination, in the select's order."""
    block = _data().split("var DESTINATIONS", 1)[1].split("];", 1)[0]
    return tuple(_DESTINATION.findall(block))


def today() -> date:
    found = re.search(r'var BOOKING_TODAY = "([\d-]+)"', _data())
    assert found is not None, "booking/data.js has no BOOKING_TODAY"
    return date.fromisoformat(found[1])


def month_end() -> date:
    """The last day of today's month: the calendar opens on that month."""
    return (today().replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)


def stays() -> tuple[tuple[date, date], ...]:
    """(check-in, check-out) of 1 to MAX_NIGHTS nights from today to the month's end, so that
    no month navigation is needed."""
    first, last = today(), month_end()
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    return tuple(
        (a, a + timedelta(days=n))
        for a in days
        for n in range(1, MAX_NIGHTS + 1)
        if a + timedelta(days=n) <= last
    )


PARTIES = tuple(itertools.product((1, 2, 3), (0, 1)))  # (adults, children)


def _long(day: date) -> str:
    return f"{day:%A} {day.day} {day:%B %Y}"


def _party(adults: int, children: int) -> str:
    text = f"{adults} adult{'s' if adults > 1 else ''}"
    return text + (f" and {children} child{'ren' if children > 1 else ''}" if children else "")


def _search_steps(
    dest: str, stay: tuple[date, date], party: tuple[int, int]
) -> list[dict[str, Any]]:
    """Choose the destination, open the calendar, click check-in then check-out, step the
    guests from the form's default, search."""
    adults, children = party
    stepper = "adults-inc" if adults > DEFAULT_ADULTS else "adults-dec"
    return [
        {"type": "select", "target": {"html_id": "dest-select"}, "option": dest},
        click("date-field"),
        *(click(f"day-{day.isoformat()}") for day in stay),
        *[click(stepper)] * abs(adults - DEFAULT_ADULTS),
        *[click("children-inc")] * children,
        click("search-btn"),
        {"type": "stop"},
    ]


def search(
    destination: tuple[str, str], stay: tuple[date, date], party: tuple[int, int]
) -> Instance:
    dest_id, name = destination
    checkin, checkout = stay
    one_day = timedelta(days=1)
    # a night too many, or (ending on the month's last day) a day too early to check in
    wrong_stay = (
        (checkin, checkout + one_day) if checkout < month_end() else (checkin - one_day, checkout)
    )
    others = destinations()
    wrong_dest = others[(others.index(destination) + 1) % len(others)]
    searched = {
        "dest": dest_id,
        "checkin": checkin.isoformat(),
        "checkout": checkout.isoformat(),
        "adults": party[0],
        "children": party[1],
    }  # what the search form stores
    checks: list[dict[str, Any]] = [
        {"kind": "storage", "key": KEY, "path": path, "op": "eq", "value": value}
        for path, value in searched.items()
    ]
    checks.append({"kind": "url", "op": "contains", "value": "results.html"})
    wrong = [
        _search_steps(name, wrong_stay, party),  # the wrong dates
        _search_steps(wrong_dest[1], stay, party),  # the destination next in the list
    ]
    if party != (DEFAULT_ADULTS, 0):
        wrong.append(_search_steps(name, stay, (DEFAULT_ADULTS, 0)))  # guests left as they were
    return Instance(
        instruction=(
            f"Search Tidewater Stays for a stay in {name} for {_party(*party)}, checking in on "
            f"{_long(checkin)} and checking out on {_long(checkout)}."
        ),
        start_url="index.html",
        checks=checks,
        solution=_search_steps(name, stay, party),
        wrong_solutions=wrong,
        params=searched,
    )


FAMILIES = [
    Family(
        name="booking-search",
        site=SITE,
        summary="search a given destination, check-in and check-out dates and party",
        axes=(destinations(), stays(), PARTIES),
        build=search,
        max_steps=11,
        tags=("search", "date-picker"),
    ),
]
