"""The run directory's file names are spelled once, in ``webdojo.store``: every other module
uses the store's constants (``CONFIG``, ``STEPS``, ``EPISODES``), so the layout can be read and
changed in one place. Docstrings and comments may name the files for people."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "webdojo"
NAMES = ("config.json", "steps.jsonl", "episodes.jsonl")
# a whole file name, not the tail of another one (the loop's "loop-config.json")
SPELLED = {name: re.compile(rf"(?<![\w.-]){re.escape(name)}") for name in NAMES}
# not run files: a Hugging Face model directory's config.json
ELSEWHERE = {("training/tiny_models.py", "config.json")}


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the string constants that are docstrings (or bare string statements)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def _spelled(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    return [
        (node.lineno, name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        for name in NAMES
        if SPELLED[name].search(node.value)
    ]


def test_run_file_names_are_spelled_only_in_the_store() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("store/"):
            continue
        found += [
            f"{rel}:{line}: {name!r}"
            for line, name in _spelled(path)
            if (rel, name) not in ELSEWHERE
        ]
    assert found == [], "use webdojo.store's CONFIG, STEPS and EPISODES:\n" + "\n".join(found)
