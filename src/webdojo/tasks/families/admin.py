"""Task families on the built-in admin site (Tallyworks Ops console): users, orders and settings
are read from its ``data.js``, the choices its forms offer from ``admin.js`` and ``index.html``.

``admin-user-edit``: give a user a role and a team in the edit dialog (one of the two may
already be right, never both). 1,380 instances.

``admin-order-reassign``: reassign an open (pending or paid) order to another active user.
1,191 instances.

``admin-settings``: set the notification email (a user's address), the session timeout and
the audit log retention, and save the settings. 1,200 instances.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from webdojo.tasks.families.family import Family, Instance
from webdojo.tasks.families.steps import STOP, click, select, stored, type_text
from webdojo.tasks.loader import builtin_root

SITE = "admin"
OPEN_STATUSES = ("pending", "paid")  # the only orders the console lets you reassign
_RECORD = re.compile(r'"(?P<id>[UO]\d+)": (?P<json>\{[^{}]*\})')


@dataclass(frozen=True)
class User:
    id: str
    name: str
    email: str
    role: str
    team: str
    status: str


@dataclass(frozen=True)
class Order:
    id: str
    customer: str
    status: str
    assignee: str


@dataclass(frozen=True)
class Choice:
    """One option of a settings <select>: its stored value and the label the page shows."""

    value: int
    label: str


def _site_text(name: str) -> str:
    return (builtin_root() / SITE / name).read_text(encoding="utf-8")


@functools.cache
def _records() -> dict[str, dict[str, Any]]:
    """Every user and order in the seed data, by id."""
    return {m["id"]: json.loads(m["json"]) for m in _RECORD.finditer(_site_text("data.js"))}


@functools.cache
def users() -> tuple[User, ...]:
    fields = ("id", "name", "email", "role", "team", "status")
    found = [r for key, r in _records().items() if key.startswith("U")]
    return tuple(User(**{f: r[f] for f in fields}) for r in found)


@functools.cache
def orders() -> tuple[Order, ...]:
    fields = ("id", "customer", "status", "assignee")
    found = [r for key, r in _records().items() if key.startswith("O")]
    return tuple(Order(**{f: r[f] for f in fields}) for r in found)


def _js_list(name: str) -> tuple[str, ...]:
    """A constant array of strings in admin.js, e.g. ``ROLES``."""
    match = re.search(rf"var {name} = \[([^\]]*)\]", _site_text("admin.js"))
    assert match is not None, f"admin.js has no {name}"
    return tuple(re.findall(r'"([^"]+)"', match[1]))


def _options(select_id: str) -> tuple[Choice, ...]:
    """The options of a <select> in index.html."""
    match = re.search(rf'<select id="{select_id}">(.*?)</select>', _site_text("index.html"), re.S)
    assert match is not None, f"admin index.html has no select {select_id}"
    found = re.findall(r'<option value="(\d+)">([^<]+)</option>', match[1])
    return tuple(Choice(int(value), label) for value, label in found)


# --- admin-user-edit ---------------------------------------------------------------------


@functools.cache
def user_edits() -> tuple[tuple[User, str, str], ...]:
    """(user, role, team) for every user and every role and team but the one they have."""
    return tuple(
        (user, role, team)
        for user in users()
        for role in _js_list("ROLES")
        for team in _js_list("TEAMS")
        if (role, team) != (user.role, user.team)
    )


def _edit_steps(user: User, role: str, team: str, save: str = "edit-save") -> list[dict[str, Any]]:
    """Filter the table down to the user, open the edit dialog, choose the role and the team (even
    one the user already has, see ``_settings_steps``), save."""
    return [
        type_text("user-filter", user.name),
        click(f"actions-{user.id}"),
        click(f"act-edit-{user.id}"),
        select("edit-role", role),
        select("edit-team", team),
        click(save),
    ]


def _article(word: str) -> str:
    return ("an " if word[0] in "AEIOU" else "a ") + word


def user_edit(edit: tuple[User, str, str]) -> Instance:
    user, role, team = edit
    others = users()
    neighbour = others[(others.index(user) + 1) % len(others)]  # the next user by id
    teams = _js_list("TEAMS")
    wrong_team = teams[(teams.index(team) + 1) % len(teams)]
    return Instance(
        instruction=f"Make {user.name} {_article(role)} in the {team} team.",
        solution=[*_edit_steps(user, role, team), STOP],
        wrong_solutions=[
            [*_edit_steps(user, role, team, save="edit-cancel"), STOP],  # the dialog not saved
            [*_edit_steps(neighbour, role, team), STOP],  # the wrong user
            [*_edit_steps(user, role, wrong_team), STOP],  # the wrong team
        ],
        checks=[
            stored("admin.users", f"{user.id}.role", role),
            stored("admin.users", f"{user.id}.team", team),
            stored("admin.users", f"{user.id}.status", user.status),  # nothing else changed
        ],
        params={"user": user.id, "role": role, "team": team},
    )


# --- admin-order-reassign ----------------------------------------------------------------


def _active_by_name() -> list[User]:
    """The reassign dialog's choices: active users sorted by name."""
    return sorted((u for u in users() if u.status == "active"), key=lambda u: u.name)


@functools.cache
def reassignments() -> tuple[tuple[Order, User], ...]:
    """(open order, active user who is not its assignee yet)."""
    return tuple(
        (order, user)
        for order in orders()
        if order.status in OPEN_STATUSES
        for user in _active_by_name()
        if user.id != order.assignee
    )


def _assign_steps(order: Order, user: User, save: str = "assign-save") -> list[dict[str, Any]]:
    """Filter the orders down to the one, open its menu and the reassign dialog, choose, save."""
    return [
        type_text("order-filter", order.id),
        click(f"oactions-{order.id}"),
        click(f"oact-assign-{order.id}"),
        select("assign-select", f"{user.name} ({user.id}, {user.team})"),  # the option's label
        click(save),
    ]


def order_reassign(pair: tuple[Order, User]) -> Instance:
    order, user = pair
    chosen = _active_by_name()
    wrong_user = next(  # the next name in the dialog's list
        u
        for u in chosen[chosen.index(user) + 1 :] + chosen
        if u.id not in (user.id, order.assignee)
    )
    open_orders = [o for o in orders() if o.status in OPEN_STATUSES]
    wrong_order = open_orders[(open_orders.index(order) + 1) % len(open_orders)]
    return Instance(
        instruction=f"Reassign order {order.id} ({order.customer}) to {user.name}.",
        start_url="index.html#orders",
        solution=[*_assign_steps(order, user), STOP],
        wrong_solutions=[
            [*_assign_steps(order, wrong_user), STOP],  # the wrong assignee
            [*_assign_steps(wrong_order, user), STOP],  # the wrong order
            [*_assign_steps(order, user, save="assign-cancel"), STOP],  # the dialog cancelled
        ],
        checks=[
            stored("admin.orders", f"{order.id}.assignee", user.id),
            stored("admin.orders", f"{order.id}.status", order.status),  # nothing else changed
        ],
        params={"order": order.id, "assignee": user.id},
    )


# --- admin-settings ----------------------------------------------------------------------


def _settings_steps(
    email: str, timeout: Choice, retention: Choice, save: bool = True
) -> list[dict[str, Any]]:
    """Fill in the settings form, each value the objective names even where the page already
    shows it (run FG's model, cloned from demonstrations that skipped those, changed them to
    other values), and save it."""
    steps = [
        type_text("set-notify-email", email),
        select("set-timeout", timeout.label),
        select("set-retention", retention.label),
    ]
    return [*steps, click("settings-save")] if save else steps


def settings(user: User, timeout: Choice, retention: Choice) -> Instance:
    retentions = _options("set-retention")
    wrong_retention = retentions[(retentions.index(retention) + 1) % len(retentions)]
    return Instance(
        instruction=(
            f"In Settings, make {user.email} the notification email, set the session timeout "
            f"to {timeout.label} and the audit log retention to {retention.label}. "
            "Save the settings."
        ),
        start_url="index.html#settings",
        solution=[*_settings_steps(user.email, timeout, retention), STOP],
        wrong_solutions=[
            [*_settings_steps(user.email, timeout, retention, save=False), STOP],  # not saved
            [*_settings_steps(user.email, timeout, wrong_retention), STOP],  # wrong retention
        ],
        checks=[
            stored("admin.settings", "notify_email", user.email),
            stored("admin.settings", "session_timeout_min", timeout.value),
            stored("admin.settings", "audit_retention_days", retention.value),
        ],
        params={"email": user.email, "timeout": timeout.value, "retention": retention.value},
    )


FAMILIES = [
    Family(
        name="admin-user-edit",
        site=SITE,
        summary="give a user a role and a team in the edit dialog",
        axes=(user_edits(),),
        build=user_edit,
        max_steps=10,
        tags=("users", "modal"),
    ),
    Family(
        name="admin-order-reassign",
        site=SITE,
        summary="reassign an open order to another active user",
        axes=(reassignments(),),
        build=order_reassign,
        max_steps=9,
        tags=("orders", "modal"),
    ),
    Family(
        name="admin-settings",
        site=SITE,
        summary="set the notification email, session timeout and audit retention, and save",
        axes=(users(), _options("set-timeout"), _options("set-retention")),
        build=settings,
        max_steps=8,
        tags=("settings", "form"),
    ),
]
