"""Task families on the built-in forms site (City of Larkspur Bay online services). The site
has no data file: its choices (topics, problem categories, neighbourhoods, ...) are read from
the forms' HTML, and names, emails, streets and descriptions are free values.

``forms-subscribe``: sign up for the bulletin with a given email, one topic, a frequency and an
email format, starting on the sign-up form. 4,320 instances.
``forms-report``: report a street problem of a given category at a given address, with a given
severity and description, starting on the report form. 5,760 instances.
``forms-survey``: take the resident survey with a given neighbourhood, years in the city, one
service rating and a top priority, starting on the survey form. 3,000 instances.
"""

from __future__ import annotations

import functools
import html
import itertools
import re
from dataclasses import dataclass
from typing import Any

from webdojo.tasks.families.family import Family, Instance
from webdojo.tasks.families.steps import click, select, type_text
from webdojo.tasks.loader import builtin_root

SITE = "forms"
KEY = "forms.submissions"
_CHOICE = r'<input type="(?:radio|checkbox)" id="([^"]+)" name="{name}" value="([^"]*)"[^>]*>\s*([^<]+)</label>'
_OPTION = re.compile(r'<option value="([^"]*)">([^<]+)</option>')
_RATED = re.compile(r'<th scope="row" id="rate-([a-z]+)-label">([^<]+)</th>')

FIRST_NAMES = (
    "alex",
    "bea",
    "carlos",
    "dana",
    "eli",
    "fatima",
    "gus",
    "hana",
    "ivan",
    "jo",
    "kemi",
    "luca",
)
LAST_NAMES = (
    "reyes",
    "okafor",
    "lindqvist",
    "moreau",
    "tanaka",
    "novak",
    "quinn",
    "haddad",
    "silva",
    "brennan",
    "kowalski",
    "ng",
)
DOMAINS = ("mailbox.example", "post.example", "inbox.example")
STREETS = (
    "Pelham Row",
    "Quarry Road",
    "Wharf Lane",
    "Mill Hill Road",
    "Harbour Street",
    "Lantern Way",
    "Eastmarsh Avenue",
    "Northgate Close",
    "Old Mill Lane",
    "Bayfront Drive",
    "Cedar Crescent",
    "Kingfisher Road",
)
HOUSE_NUMBERS = (3, 7, 12, 18, 24, 31, 45, 56, 68, 82)
DESCRIPTIONS = {  # two per category, each long enough for the form (10 characters)
    "pothole": ("Deep pothole in the middle of the lane", "The road surface is breaking up"),
    "streetlight": ("The streetlight stays dark all night", "The lamp flickers on and off"),
    "graffiti": ("Graffiti sprayed across a shop wall", "Tags painted on the bus shelter"),
    "tree": ("A large branch has fallen on the pavement", "A tree is leaning over the road"),
    "drain": ("The drain is blocked and the road floods", "Water pools over the gutter"),
    "other": ("A broken bench on the pavement", "Loose paving stones by the crossing"),
}


@dataclass(frozen=True)
class Choice:
    """One radio button, checkbox or select option: its DOM id ("" for options, which are
    chosen through their select), stored value and visible label."""

    html_id: str
    value: str
    label: str


@functools.cache
def _page(name: str) -> str:
    return (builtin_root() / SITE / name).read_text(encoding="utf-8")


def choices(page: str, name: str) -> tuple[Choice, ...]:
    """The radio buttons or checkboxes called ``name`` on ``page``."""
    found = re.findall(_CHOICE.format(name=re.escape(name)), _page(page))
    return tuple(Choice(i, v, html.unescape(label.strip())) for i, v, label in found)


def options(page: str, select_id: str) -> tuple[Choice, ...]:
    """The options of a select, without its empty placeholder."""
    block = re.search(rf'<select[^>]*id="{select_id}"[^>]*>(.*?)</select>', _page(page), re.S)
    assert block is not None, f"{page} has no select #{select_id}"
    return tuple(Choice("", v, html.unescape(label)) for v, label in _OPTION.findall(block[1]) if v)


def emails() -> tuple[str, ...]:
    pairs = itertools.product(range(len(FIRST_NAMES)), range(len(LAST_NAMES)))
    return tuple(f"{FIRST_NAMES[i]}.{LAST_NAMES[j]}@{DOMAINS[(i + j) % 3]}" for i, j in pairs)


def _submitted(form: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
    """Exactly one submission, of ``form``, whose data has these fields."""
    checks: list[dict[str, Any]] = [
        {"kind": "storage", "key": KEY, "path": "", "op": "len_eq", "value": 1},
        {"kind": "storage", "key": KEY, "path": "-1.form", "op": "eq", "value": form},
    ]
    return checks + [
        {"kind": "storage", "key": KEY, "path": f"-1.data.{name}", "op": op, "value": value}
        for name, (op, value) in fields.items()
    ]


def _other(axis: tuple[Choice, ...], chosen: Choice) -> Choice:
    """The choice after ``chosen``: a plausible slip to a neighbouring option."""
    return axis[(axis.index(chosen) + 1) % len(axis)]


STOP: dict[str, Any] = {"type": "stop"}


# --- forms-subscribe ---------------------------------------------------------------------


def subscribe(email: str, topic: Choice, frequency: Choice, fmt: Choice) -> Instance:
    def steps(confirm: str, freq: Choice) -> list[dict[str, Any]]:
        return [
            type_text("email", email),
            type_text("email-confirm", confirm),
            click(topic.html_id),
            click(freq.html_id),
            click(fmt.html_id),  # also the default format: a demonstration shows every choice
            click("consent"),
            click("submit"),
            STOP,
        ]

    frequencies = choices("subscribe.html", "frequency")
    return Instance(
        instruction=(
            f"Sign up for the Larkspur Bay Bulletin with the email address {email}. Choose only "
            f'the topic "{topic.label}", the frequency "{_plain(frequency.label)}" and the '
            f'email format "{fmt.label}", and agree to the city storing your email.'
        ),
        start_url="subscribe.html",
        checks=_submitted(
            "subscribe",
            {
                "email": ("eq", email),
                "topics": ("eq", [topic.value]),
                "frequency": ("eq", frequency.value),
                "format": ("eq", fmt.value),
            },
        ),
        solution=steps(email, frequency),
        wrong_solutions=[
            steps(email, _other(frequencies, frequency)),  # the wrong frequency
            steps(email.replace("@", ".@", 1), frequency),  # a typo in the confirmation
        ],
        params={
            "email": email,
            "topic": topic.value,
            "frequency": frequency.value,
            "format": fmt.value,
        },
    )


def _plain(label: str) -> str:
    """A label without its parenthesised detail: "Weekly digest (Fridays)" -> "Weekly digest"."""
    return re.sub(r"\s*\(.*\)$", "", label)


# --- forms-report ------------------------------------------------------------------------


def problems() -> tuple[tuple[Choice, str], ...]:
    """Each problem category with each of its descriptions."""
    return tuple(
        (category, text)
        for category in choices("report.html", "category")
        for text in DESCRIPTIONS.get(category.value, (f"{category.label} that needs fixing",))
    )


def addresses() -> tuple[str, ...]:
    return tuple(f"{n} {street}" for street in STREETS for n in HOUSE_NUMBERS)


def report(problem: tuple[Choice, str], severity: Choice, address: str) -> Instance:
    category, description = problem

    def steps(cat: Choice, sev: Choice, text: str | None) -> list[dict[str, Any]]:
        typed = [] if text is None else [type_text("description", text)]
        return [
            click(cat.html_id),
            type_text("street", address),
            select("severity", sev.label),
            *typed,
            click("submit"),
            STOP,
        ]

    severities = severity_levels()
    categories = choices("report.html", "category")
    return Instance(
        instruction=(
            f'Report a street problem: "{category.label}" at {address}. Set how serious it '
            f'is to "{severity.label}" and describe it as "{description}".'
        ),
        start_url="report.html",
        checks=_submitted(
            "report",
            {
                "category": ("eq", category.value),
                "street": ("eq", address),
                "severity": ("eq", severity.value),
                "description": ("contains", description),
            },
        ),
        solution=steps(category, severity, description),
        wrong_solutions=[
            steps(_other(categories, category), severity, description),  # the wrong category
            steps(category, _other(severities, severity), description),  # the wrong severity
            steps(category, severity, None),  # no description: the form refuses it
        ],
        params={
            "category": category.value,
            "severity": severity.value,
            "address": address,
            "description": description,
        },
    )


def severity_levels() -> tuple[Choice, ...]:
    return options("report.html", "severity")


# --- forms-survey ------------------------------------------------------------------------


def services() -> tuple[tuple[str, str], ...]:
    """(key, label) of every row of the survey's rating matrix."""
    return tuple((key, html.unescape(label)) for key, label in _RATED.findall(_page("survey.html")))


def ratings() -> tuple[tuple[str, str, int], ...]:
    """(service key, service label, stars 1-5): one service rated, the rest left alone."""
    return tuple((key, label, n) for key, label in services() for n in range(1, 6))


def survey(
    neighbourhood: Choice, years: Choice, rating: tuple[str, str, int], priority: Choice
) -> Instance:
    service, label, stars = rating
    wrong_stars = stars + 1 if stars < 5 else stars - 1

    def steps(yrs: Choice, n: int, with_priority: bool = True) -> list[dict[str, Any]]:
        chosen = [select("priority", priority.label)] if with_priority else []
        return [
            select("neighbourhood", neighbourhood.label),
            click(yrs.html_id),
            click(f"rate-{service}-{n}"),
            *chosen,
            click("submit"),
            STOP,
        ]

    every = {key: None for key, _ in services()}  # "No opinion" is stored as null
    return Instance(
        instruction=(
            f"Take the resident survey. You live in {neighbourhood.label} and have lived in "
            f"Larkspur Bay for {years.label[0].lower()}{years.label[1:]}. Rate "
            f'"{label}" {stars} out of 5 and leave every other service at "No opinion". '
            f'The top priority for next year is "{priority.label}".'
        ),
        start_url="survey.html",
        checks=_submitted(
            "survey",
            {
                "neighbourhood": ("eq", neighbourhood.value),
                "years": ("eq", years.value),
                "ratings": ("eq", {**every, service: stars}),
                "priority": ("eq", priority.value),
            },
        ),
        solution=steps(years, stars),
        wrong_solutions=[
            steps(years, wrong_stars),  # a rating one star off
            steps(_other(choices("survey.html", "years"), years), stars),  # the wrong duration
            steps(years, stars, with_priority=False),  # the required priority is missing
        ],
        params={
            "neighbourhood": neighbourhood.value,
            "years": years.value,
            "service": service,
            "stars": stars,
            "priority": priority.value,
        },
    )


FAMILIES = [
    Family(
        name="forms-subscribe",
        site=SITE,
        summary="sign up for the bulletin with a given email, topic, frequency and format",
        axes=(
            emails(),
            choices("subscribe.html", "topics"),
            choices("subscribe.html", "frequency"),
            choices("subscribe.html", "format"),
        ),
        build=subscribe,
        max_steps=11,
        tags=("form",),
    ),
    Family(
        name="forms-report",
        site=SITE,
        summary="report a street problem with a given category, address, severity and text",
        axes=(problems(), severity_levels(), addresses()),
        build=report,
        max_steps=9,
        tags=("form",),
    ),
    Family(
        name="forms-survey",
        site=SITE,
        summary="take the survey with a given neighbourhood, years, one rating and a priority",
        axes=(
            options("survey.html", "neighbourhood"),
            choices("survey.html", "years"),
            ratings(),
            options("survey.html", "priority"),
        ),
        build=survey,
        max_steps=9,
        tags=("form",),
    ),
]
