"""Task families on the built-in login site (Ledgerline account portal): its demo accounts, their
settings and the preference choices are read from its ``data.js``. Every task signs in first,
with the account's username or its work email (both work on the sign-in form).

``login-display-name``: sign in and change the account's display name to a given name.
2,400 instances.

``login-preferences``: sign in and set the time zone, language and date format (not all three
as they already are), then save the preferences. 1,128 instances.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import Any

from webdojo.tasks.families.family import Family, Instance
from webdojo.tasks.families.steps import STOP, click, select, stored, type_text
from webdojo.tasks.loader import builtin_root

SITE = "login"
LOGIN_WITH = ("username", "email")
FIRST_NAMES = (
    "Alex",
    "Bea",
    "Carlos",
    "Dana",
    "Elena",
    "Femi",
    "Grace",
    "Hugo",
    "Isla",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sami",
    "Tess",
)
LAST_NAMES = (
    "Abbott",
    "Baptiste",
    "Castillo",
    "Dube",
    "Eriksen",
    "Fujita",
    "Gallo",
    "Haddad",
    "Ivanova",
    "Jensen",
    "Kaur",
    "Lindgren",
    "Moreau",
    "Nwosu",
    "Ortega",
    "Pike",
    "Quist",
    "Reyes",
    "Sato",
    "Tanaka",
)
_ACCOUNT = re.compile(
    r'(?P<key>\w+): \{ username: "(?P<username>[^"]+)", displayName: "(?P<name>[^"]+)", '
    r'email: "(?P<email>[^"]+)", password: "(?P<password>[^"]+)"'
)
_PREFS = re.compile(
    r'(?P<key>\w+): \{ notifications: .*?timezone: "(?P<tz>[^"]+)", '
    r'language: "(?P<lang>[^"]+)", dateFormat: "(?P<fmt>[^"]+)"',
    re.S,
)


@dataclass(frozen=True)
class Account:
    """A demo account and the preferences it starts with."""

    username: str
    name: str
    email: str
    password: str
    timezone: str
    language: str
    date_format: str

    def login(self, how: str) -> str:
        return self.username if how == "username" else self.email


@dataclass(frozen=True)
class Option:
    """A preference choice: its stored value and how the page shows it."""

    value: str
    label: str


def _data() -> str:
    return (builtin_root() / SITE / "data.js").read_text(encoding="utf-8")


@functools.cache
def accounts() -> tuple[Account, ...]:
    prefs = {m["key"]: m for m in _PREFS.finditer(_data())}
    found = []
    for m in _ACCOUNT.finditer(_data()):
        pref = prefs[m["key"]]
        found.append(
            Account(
                m["username"],
                m["name"],
                m["email"],
                m["password"],
                pref["tz"],
                pref["lang"],
                pref["fmt"],
            )
        )
    return tuple(found)


def _pairs(name: str) -> tuple[tuple[str, ...], ...]:
    """The rows of a constant array of string arrays in data.js, e.g. ``TIMEZONES``."""
    match = re.search(rf"var {name} = \[(.*?)\];", _data(), re.S)
    assert match is not None, f"login data.js has no {name}"
    rows = re.findall(r"\[([^\]]*)\]", match[1])
    return tuple(tuple(re.findall(r'"([^"]+)"', row)) for row in rows)


@functools.cache
def timezones() -> tuple[Option, ...]:
    return tuple(Option(value, label) for value, label in _pairs("TIMEZONES"))


@functools.cache
def languages() -> tuple[Option, ...]:
    return tuple(Option(value, label) for value, label in _pairs("LANGUAGES"))


@functools.cache
def date_formats() -> tuple[Option, ...]:
    """The date formats; the label is the radio button's id."""
    return tuple(Option(value, radio) for value, radio, _example in _pairs("DATE_FORMATS"))


def _city(zone: Option) -> str:
    """How an instruction names a time zone: its city ("(UTC-05:00) Eastern Time - New York")."""
    return re.split(r"\) | - ", zone.label)[-1]


def _sign_in(account: Account, how: str) -> list[dict[str, Any]]:
    """Sign in from the sign-in page (Enter submits it and opens the account overview)."""
    return [
        type_text("login-user", account.login(how)),
        type_text("login-password", account.password, enter=True),
    ]


def _sign_in_text(account: Account, how: str) -> str:
    return f"Sign in to Ledgerline as {account.login(how)} (password: {account.password})"


def _other(account: Account) -> Account:
    """Another demo account: the wrong one to sign in to."""
    found = accounts()
    return found[(found.index(account) + 1) % len(found)]


# --- login-display-name ------------------------------------------------------------------


def _rename_steps(account: Account, how: str, name: str, save: bool = True) -> list[dict[str, Any]]:
    """Sign in, open Settings (its Profile tab is shown first), type the name, save."""
    steps = [*_sign_in(account, how), click("nav-settings"), type_text("profile-name", name)]
    return [*steps, click("profile-save")] if save else steps


def display_name(account: Account, how: str, first: str, last: str) -> Instance:
    name = f"{first} {last}"
    return Instance(
        instruction=f"{_sign_in_text(account, how)} and change the account's display name to {name}.",
        solution=[*_rename_steps(account, how, name), STOP],
        wrong_solutions=[
            [*_rename_steps(account, how, name, save=False), STOP],  # typed but not saved
            [*_rename_steps(_other(account), how, name), STOP],  # another account renamed
            [*_rename_steps(account, how, first), STOP],  # only the first name
        ],
        checks=[
            stored("login.session", "user", account.username),
            stored("login.users", f"{account.username}.displayName", name),
        ],
        params={"account": account.username, "login": how, "name": name},
    )


# --- login-preferences -------------------------------------------------------------------


@functools.cache
def preference_choices() -> tuple[tuple[Account, str, Option, Option, Option], ...]:
    """(account, sign-in with, time zone, language, date format), all but the ones that change
    nothing."""
    return tuple(
        (account, how, zone, language, fmt)
        for account, how, zone, language, fmt in itertools.product(
            accounts(), LOGIN_WITH, timezones(), languages(), date_formats()
        )
        if (zone.value, language.value, fmt.value)
        != (account.timezone, account.language, account.date_format)
    )


def _prefs_steps(
    account: Account, how: str, zone: Option, language: Option, fmt: Option, save: bool = True
) -> list[dict[str, Any]]:
    """Sign in, open the Preferences tab, set all three (even one the account already has, as
    the admin site's ``_settings_steps`` does), save."""
    steps = [
        *_sign_in(account, how),
        click("nav-settings"),
        click("tab-preferences"),
        select("pref-timezone", zone.label),
        select("pref-language", language.label),
        click(fmt.label),
    ]
    return [*steps, click("pref-save")] if save else steps


def preferences(choice: tuple[Account, str, Option, Option, Option]) -> Instance:
    account, how, zone, language, fmt = choice
    formats = date_formats()
    wrong_fmt = formats[(formats.index(fmt) + 1) % len(formats)]
    return Instance(
        instruction=(
            f"{_sign_in_text(account, how)}. In the preferences, set the time zone to "
            f"{_city(zone)}, the language to {language.label} and the date format to "
            f"{fmt.value}, and save them."
        ),
        solution=[*_prefs_steps(account, how, zone, language, fmt), STOP],
        wrong_solutions=[
            [*_prefs_steps(account, how, zone, language, fmt, save=False), STOP],  # not saved
            [*_prefs_steps(account, how, zone, language, wrong_fmt), STOP],  # wrong date format
        ],
        checks=[
            stored("login.settings", f"{account.username}.timezone", zone.value),
            stored("login.settings", f"{account.username}.language", language.value),
            stored("login.settings", f"{account.username}.dateFormat", fmt.value),
        ],
        params={
            "account": account.username,
            "login": how,
            "timezone": zone.value,
            "language": language.value,
            "date_format": fmt.value,
        },
    )


FAMILIES = [
    Family(
        name="login-display-name",
        site=SITE,
        summary="sign in and change the account's display name",
        axes=(accounts(), LOGIN_WITH, FIRST_NAMES, LAST_NAMES),
        build=display_name,
        max_steps=9,
        tags=("login", "profile"),
    ),
    Family(
        name="login-preferences",
        site=SITE,
        summary="sign in and set the time zone, language and date format",
        axes=(preference_choices(),),
        build=preferences,
        max_steps=12,
        tags=("login", "preferences"),
    ),
]
