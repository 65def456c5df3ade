"""The MiniWoB++ solvers themselves (registered into ``webdojo.policies.miniwob.SOLVERS``).

Each reads the instruction with a pattern written from the task page's own wording (e.g.
click-button's ``Click on the "Yes" button.``) and acts on the element list. Forms are solved
field by field: type where a value differs from the wanted one, submit once all agree.
"""

from __future__ import annotations

from webdojo.actions import Action, Select, Type
from webdojo.observation import Element
from webdojo.policies.miniwob import Page, click, solver

TEXT = ("textbox", "searchbox")
MASK = "\u2022"  # how the element list shows each character of a password field
ORDINAL = {"1st": 0, "2nd": 1, "3rd": 2, "4th": 3, "5th": 4}
WIDGETS = {  # click-widget's widget kinds -> how the element list shows them
    "radio": lambda e: e.role == "radio",
    "checkbox": lambda e: e.role == "checkbox",
    "text": lambda e: e.role == "textbox" and e.tag == "input",
    "textarea": lambda e: e.tag == "textarea",
    "button": lambda e: e.role == "button",
}


def quoted(page: Page, before: str) -> str | None:
    """The text between double quotes right after ``before`` in the instruction, stripped
    (some pages pad it with spaces: ``Enter " Nathalie " into ...``)."""
    found = page.match(before + r'\s*"([^"]*)"')
    return None if found is None else found.group(1).strip()


def fill(page: Page, fields: list[tuple[Element, str]], submit: str) -> Action | None:
    """Type into the first field whose value is not yet right, else click ``submit``. The
    element list masks what password fields hold (one bullet per character), so there only
    the length can be compared."""
    for element, wanted in fields:
        value = element.value or ""
        masked = bool(value) and set(value) == {MASK}
        if (len(value) != len(wanted)) if masked else (value != wanted):
            return Type(element=element.id, text=wanted)
    return click(page.named(submit, ("button",)))


def submit_when_checked(page: Page, wanted: list[str], role: str) -> Action | None:
    """Check every wanted box (of ``role``), then click Submit."""
    for name in wanted:
        element = page.named(name, (role,))
        if element is None:
            return None
        if not element.checked:
            return click(element)
    return click(page.named("Submit", ("button",)))


@solver("click-test")
def click_test(page: Page) -> Action | None:
    return click(page.named("Click Me!", ("button",)))


@solver("click-test-2")
def click_test_2(page: Page) -> Action | None:
    found = page.match(r"Click button (\w+)")
    return None if found is None else click(page.named(found.group(1), ("button",)))


@solver("click-button", "unicode-test")
def click_button(page: Page) -> Action | None:
    name = quoted(page, "Click on the")
    return None if name is None else click(page.named(name, ("button",)))


@solver("click-link")
def click_link(page: Page) -> Action | None:
    name = quoted(page, "Click on the link")
    return None if name is None else click(page.named(name))


@solver("click-dialog")
def click_dialog(page: Page) -> Action | None:
    return click(page.named("Close", ("button",)))


@solver("click-dialog-2")
def click_dialog_2(page: Page) -> Action | None:
    name = quoted(page, "labeled")
    if name is None:
        return None
    return click(page.named("Close" if name == "x" else name, ("button",)))


@solver("click-tab")
def click_tab(page: Page) -> Action | None:
    found = page.match(r"Click on Tab #(\d+)")
    return None if found is None else click(page.named(f"Tab #{found.group(1)}", ("tab",)))


@solver("click-option")
def click_option(page: Page) -> Action | None:
    found = page.match(r"Select (.+?) and click Submit")
    return None if found is None else submit_when_checked(page, [found.group(1)], "radio")


@solver("click-checkboxes", "click-checkboxes-large", "click-checkboxes-transfer")
def click_checkboxes(page: Page) -> Action | None:
    found = page.match(r"Select (.*?) and click Submit")
    if found is None:
        return None
    names = [] if found.group(1) == "nothing" else found.group(1).split(", ")
    return submit_when_checked(page, names, "checkbox")


@solver("click-button-sequence")
def click_button_sequence(page: Page) -> Action | None:
    return click(page.named("ONE" if page.steps == 0 else "TWO", ("button",)))


@solver("click-collapsible")
def click_collapsible(page: Page) -> Action | None:
    if page.steps == 0:  # open the section; its Submit button is inside
        section = next((e for e in page.by_role("tab") if e.name.startswith("Section")), None)
        return click(section)
    return click(page.named("Submit", ("button",)))


@solver("click-widget")
def click_widget(page: Page) -> Action | None:
    kind = quoted(page, "Click on a")
    test = WIDGETS.get(kind or "")
    return None if test is None else click(next((e for e in page.elements if test(e)), None))


@solver("choose-list")
def choose_list(page: Page) -> Action | None:
    found = page.match(r"Select (.+?) from the list")
    box = next(iter(page.by_role("combobox", "listbox")), None)
    if found is None or box is None:
        return None
    if box.value != found.group(1):
        return Select(element=box.id, option=found.group(1))
    return click(page.named("Submit", ("button",)))


@solver("focus-text")
def focus_text(page: Page) -> Action | None:
    return click(next(iter(page.by_role(*TEXT)), None))


@solver("focus-text-2")
def focus_text_2(page: Page) -> Action | None:
    found = page.match(r"Focus into the (\w+) input textbox")
    boxes = page.by_role(*TEXT)
    index = ORDINAL.get(found.group(1), -1) if found else -1
    return click(boxes[index]) if 0 <= index < len(boxes) else None


@solver("enter-text", "enter-text-dynamic")
def enter_text(page: Page) -> Action | None:
    text = quoted(page, "Enter")
    boxes = page.by_role(*TEXT)
    return None if text is None or not boxes else fill(page, [(boxes[0], text)], "Submit")


@solver("enter-text-2")
def enter_text_2(page: Page) -> Action | None:
    text = quoted(page, "Type")
    boxes = page.by_role(*TEXT)
    if text is None or not boxes:
        return None
    text = text.upper() if "upper case" in page.query else text.lower()
    return fill(page, [(boxes[0], text)], "Submit")


@solver("enter-password")
def enter_password(page: Page) -> Action | None:
    text = quoted(page, "Enter the password")
    boxes = page.by_role(*TEXT)
    if text is None or len(boxes) < 2:
        return None
    return fill(page, [(boxes[0], text), (boxes[1], text)], "Submit")


@solver("login-user")
def login_user(page: Page) -> Action | None:
    user, password = quoted(page, "username"), quoted(page, "password")
    boxes = page.by_role(*TEXT)
    if user is None or password is None or len(boxes) < 2:
        return None
    return fill(page, [(boxes[0], user), (boxes[1], password)], "Login")
