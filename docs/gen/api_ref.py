"""The Python API pages: one page per top-level package of ``src/webdojo``, one mkdocstrings
block per module in it, and an index of every module with the first line of its docstring.

Modules are found on disk, not listed by hand, so a new module appears without a docs edit.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from md_text import cell

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "webdojo"
# Top-level modules (not packages) share a page by what they are for.
TOP_PAGES = {
    "core": ("webdojo", "actions", "action_docs", "action_values", "observation", "history"),
    "utilities": ("asgi", "background", "local_http", "doctor"),
    "record_replay": ("record_replay",),
}


@dataclass(frozen=True)
class Module:
    name: str  # dotted, e.g. webdojo.tasks.schema
    path: Path

    @property
    def summary(self) -> str:
        """The docstring's first sentence (or line), for the index."""
        tree = ast.parse(self.path.read_text(encoding="utf-8"))
        doc = (ast.get_docstring(tree) or "").strip()
        first = doc.split("\n\n")[0].replace("\n", " ")
        return first.split(". ")[0].rstrip(".") + "." if first else ""


def _dotted(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list[Module]:
    """Every public module: no path part starts with an underscore, except ``__init__``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if any(p.startswith("_") and p != "__init__" for p in parts):
            continue
        found.append(Module(_dotted(path), path))
    return sorted(found, key=lambda m: m.name)


def page_of(module: Module) -> str:
    """The page slug a module is documented on."""
    parts = module.name.split(".")
    if len(parts) > 1 and (PACKAGE / parts[1]).is_dir():
        return parts[1]
    leaf = parts[-1] if len(parts) > 1 else "webdojo"
    return next(page for page, names in TOP_PAGES.items() if leaf in names)


def pages() -> dict[str, list[Module]]:
    """Page slug -> its modules, package first."""
    out: dict[str, list[Module]] = {}
    for module in modules():
        out.setdefault(page_of(module), []).append(module)
    return dict(sorted(out.items()))


def page(slug: str, members: list[Module]) -> str:
    title = {"core": "Core: actions, observations", "utilities": "Utilities"}.get(
        slug, f"webdojo.{slug}"
    )
    out = [f"# {title}", ""]
    for module in members:
        out += [f"::: {module.name}", ""]
    return "\n".join(out)


def index(all_pages: dict[str, list[Module]]) -> str:
    out = [
        "# Python API",
        "",
        "Generated from the docstrings of `src/webdojo` when the site is built: every public",
        "module, grouped by package. Start with `webdojo.make` (core), the records in",
        "`webdojo.store.records`, the task schema in `webdojo.tasks.schema` and the error tree",
        "in `webdojo.errors`.",
        "",
        "| module | what it is |",
        "|---|---|",
    ]
    for slug, members in all_pages.items():
        for module in members:
            link = f"{slug}.md#{module.name}"
            out.append(f"| [`{module.name}`]({link}) | {cell(module.summary)} |")
    return "\n".join([*out, ""])
