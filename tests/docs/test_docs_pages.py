"""What the hand-written pages and the README say is checked against the code: every command
they show exists with the flags they use, and every relative link leads somewhere. A failure
names the page and the line."""

from __future__ import annotations

import re
from pathlib import Path

import docs_commands
import docs_links
from docs_pages import DOCS, ROOT, Snippet, blocks, inline_code, links, pages
from docs_sessions import RUNNABLE

README_MAX_LINES = 150
# the path a test asks shared_data.shared_file() for (an f-string's literal head)
SHARED_FILE = re.compile(r'shared_file\(\s*f?"([^"{]+)')


def documented_commands(page: Path) -> list[Snippet]:
    found = [line for block in blocks(page) for line in docs_commands.command_lines(block)]
    return found + [s for s in inline_code(page) if docs_commands.inline_command(s)]


def command_problems(page: Path) -> list[str]:
    return [
        f"{s.where}: `{s.text}`: {why}"
        for s in documented_commands(page)
        if (why := docs_commands.problem(s.text))
    ]


def link_problems(page: Path) -> list[str]:
    return [f"{s.where}: {why}" for s in links(page) if (why := docs_links.problem(s))]


def test_every_documented_command_exists() -> None:
    problems = [p for page in pages() for p in command_problems(page)]
    assert not problems, "commands in the docs that do not exist:\n" + "\n".join(problems)


def test_every_relative_link_resolves() -> None:
    problems = [p for page in pages() for p in link_problems(page)]
    assert not problems, "dead links:\n" + "\n".join(problems)


def test_a_stale_command_and_a_dead_link_are_named_with_page_and_line(tmp_path: Path) -> None:
    page = tmp_path / "stale.md"
    page.write_text(
        "# Stale\n\n"
        "See [the old page](old-page.md).\n\n"
        "```bash\n"
        "webdojo run --tasks builtin --limit 2\n"
        "webdojo evaluate --suite core\n"
        "webdojo eval --suite core --shots 3\n"
        "```\n"
    )
    assert command_problems(page) == [
        f"{page}:7: `webdojo evaluate --suite core`: no command 'evaluate' in `webdojo`",
        f"{page}:8: `webdojo eval --suite core --shots 3`: `webdojo eval` has no option --shots",
    ]
    assert link_problems(page) == [f"{page}:3: links to old-page.md, which does not exist"]


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_console_sessions_are_only_on_pages_that_run() -> None:
    """A ```console block promises a session that runs offline, and is run by
    test_shell_sessions.py; anything else goes in a ```bash block."""
    runnable = {DOCS / page for page in RUNNABLE}
    elsewhere = [
        f"{page.relative_to(ROOT)}:{block.lines[0][0] - 1 if block.lines else '?'}"
        for page in pages()
        if page not in runnable
        for block in blocks(page)
        if block.lang == "console"
    ]
    assert not elsewhere, "console blocks on pages that are not run:\n" + "\n".join(elsewhere)


def _covers(entry: str, rel: str) -> bool:
    """A listed path covers a requested one: the same, a folder of it, or inside it."""
    rel = rel.rstrip("/")
    return rel == entry or rel.startswith(entry + "/") or entry.startswith(rel + "/")


def test_every_public_test_file_is_documented() -> None:
    """Each file a test asks ``shared_file()`` for is listed on the test-data page (itself or
    its folder), where it says where the file comes from."""
    page = (DOCS / "how-to" / "test-data.md").read_text(encoding="utf-8")
    listed = {entry.rstrip("/") for entry in re.findall(r"`([^`\s]+)`", page)}
    asked = {
        match
        for path in (ROOT / "tests").rglob("*.py")
        for match in SHARED_FILE.findall(path.read_text(encoding="utf-8"))
    }
    assert len(asked) > 5
    missing = [rel for rel in sorted(asked) if not any(_covers(entry, rel) for entry in listed)]
    assert not missing, f"public test files missing from docs/how-to/test-data.md: {missing}"
