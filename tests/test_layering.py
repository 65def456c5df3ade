"""The layers of ``docs/architecture.md``, enforced on every import in ``src/webdojo``.

Every module is parsed with ``ast`` (nothing is imported); every ``import`` and ``from ...
import`` counts, at the top of a module, inside a function or under ``if TYPE_CHECKING``.
Each module belongs to the unit with the longest matching name in ``LAYERS`` (``server.api``
before ``server``). A module may import its own unit and every unit of a lower layer, nothing
else: no import goes up or sideways, so no two units import each other. ``APART`` adds the one
rule a line of layers cannot draw. The page shows the same layers; a test checks they agree.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = SRC / "webdojo"
DOC = ROOT / "docs" / "architecture.md"

# Bottom first. Keep docs/architecture.md's picture the same (a test compares them).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "background", "local_http", "server", "server.child_process"),
    ("action_values", "observation", "asgi"),
    ("actions", "models"),
    ("action_docs", "history", "parsing", "tasks", "cache"),
    ("browser", "prompts", "sites", "store", "wire", "taskgen", "envs"),
    ("record_replay", "doctor", "policies", "judges", "training", "server.worker"),
    ("rollout", "server.pool"),
    ("server.api", "checks", "environment", "eval"),
    ("server.serve", "adapters", "loop", "sitegen", "viewer"),
    ("bench",),
    ("cli",),
)
# Units that never import each other, whatever their layers: the server and the engines that
# drive it from outside (a client speaks to it over HTTP; both import the wire format).
APART: dict[str, tuple[str, ...]] = {"server": ("rollout", "checks", "environment", "eval")}
# The bare ``webdojo`` package: ``webdojo.make`` / ``make_async`` (imported when called), the
# hook that registers the Gymnasium ids, and the ``Task`` type of make()'s signature.
ROOT_MAY_IMPORT = ("environment", "tasks.schema")
LAYER_OF = {unit: n for n, layer in enumerate(LAYERS) for unit in layer}


@dataclass(frozen=True)
class Edge:
    path: Path  # relative to the directory that holds the ``webdojo`` package
    line: int
    importer: str  # dotted name below webdojo, e.g. "server.api.app"
    target: str  # dotted name below webdojo of what it imports ("" for webdojo itself)


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str, package: Path) -> bool:
    base = package.joinpath(*name.split(".")) if name else package
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def resolve_from(node: ast.ImportFrom, importer: str, is_package: bool) -> str | None:
    """The name below webdojo that ``from X import ...`` reads from, or None if X is not
    part of webdojo."""
    if node.level:
        here = importer.split(".") if is_package else importer.split(".")[:-1]
        here = here[: len(here) - (node.level - 1)]
        return ".".join([p for p in here if p] + ([node.module] if node.module else []))
    if node.module == "webdojo":
        return ""
    if node.module and node.module.startswith("webdojo."):
        return node.module.removeprefix("webdojo.")
    return None


@functools.cache
def _parsed(text: str) -> ast.Module:
    # the checker's own tests parse copies of the sources: each file is parsed once
    return ast.parse(text)


def imports_of(path: Path, package: Path) -> list[Edge]:
    importer = module_name(path, package)
    where = path.relative_to(package.parent)
    edges = []
    for node in ast.walk(_parsed(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "webdojo" or alias.name.startswith("webdojo."):
                    targets.append(alias.name.removeprefix("webdojo").removeprefix("."))
        elif isinstance(node, ast.ImportFrom):
            base = resolve_from(node, importer, path.name == "__init__.py")
            if base is None:
                continue
            for alias in node.names:  # ``from webdojo.server import ipc`` imports a module
                sub = f"{base}.{alias.name}" if base else alias.name
                targets.append(sub if is_module(sub, package) else base)
        edges.extend(Edge(where, node.lineno, importer, t) for t in targets)
    return edges


def unit_of(name: str) -> str | None:
    """The longest unit in ``LAYERS`` that ``name`` is or lies under."""
    matches = [u for u in LAYER_OF if covers(u, name)]
    return max(matches, key=len) if matches else None


def covers(unit: str, name: str) -> bool:
    return name == unit or name.startswith(unit + ".")


def is_allowed(edge: Edge) -> bool:
    if edge.importer == "":
        return any(covers(allowed, edge.target) for allowed in ROOT_MAY_IMPORT)
    unit, target = unit_of(edge.importer), unit_of(edge.target)
    assert unit is not None, f"{edge.importer} belongs to no unit"
    if target is None:  # the bare package: above every layer
        return False
    if unit == target:
        return True
    return LAYER_OF[target] < LAYER_OF[unit] and not _apart(unit, target)


def _apart(a: str, b: str) -> bool:
    return any(
        (covers(x, a) and any(covers(y, b) for y in ys))
        or (covers(x, b) and any(covers(y, a) for y in ys))
        for x, ys in APART.items()
    )


def forbidden_edges(package: Path = PACKAGE) -> list[Edge]:
    edges = [e for path in sorted(package.rglob("*.py")) for e in imports_of(path, package)]
    return [e for e in edges if not is_allowed(e)]


def describe(edge: Edge) -> str:
    unit, target = unit_of(edge.importer) or "?", unit_of(edge.target) or "webdojo"
    if unit in LAYER_OF and target in LAYER_OF and _apart(unit, target):
        why = "they are kept apart (APART)"
    elif target in LAYER_OF and unit in LAYER_OF:
        why = f"layer {LAYER_OF[target]} is not below {unit}'s layer {LAYER_OF[unit]}"
    else:
        why = "the bare package is above every layer"
    return f"src/{edge.path}:{edge.line} imports webdojo.{edge.target}, which {unit} may not: {why}"


def layers_table() -> str:
    """The picture of ``LAYERS`` on the page: the top layer first."""
    rows = [
        f"| {n} | {', '.join(f'`{u}`' for u in layer)} |"
        for n, layer in reversed(list(enumerate(LAYERS)))
    ]
    return "\n".join(["| layer | units |", "|---:|---|", *rows])


# --- tests ------------------------------------------------------------------------------------


def test_every_module_belongs_to_a_unit() -> None:
    names = [module_name(p, PACKAGE) for p in sorted(PACKAGE.rglob("*.py"))]
    orphans = [n for n in names if n and unit_of(n) is None]
    assert not orphans, f"modules in no unit of LAYERS: {orphans}"


def test_every_unit_names_real_code_once() -> None:
    units = [u for layer in LAYERS for u in layer]
    assert len(units) == len(set(units)), "a unit in two layers"
    named = {*units, *APART, *(u for us in APART.values() for u in us), *ROOT_MAY_IMPORT}
    missing = sorted(n for n in named if not is_module(n, PACKAGE))
    assert not missing, f"LAYERS names modules that do not exist: {missing}"


def test_no_forbidden_imports() -> None:
    bad = forbidden_edges()
    assert not bad, "imports that break docs/architecture.md:\n" + "\n".join(map(describe, bad))


def _copy_with(tmp_path: Path, module: str, line: str) -> tuple[Path, int]:
    """The sources copied to ``tmp_path`` with ``line`` imported inside a function at the end
    of ``module`` (a path below the package); returns the copy and that line's number."""
    copy = tmp_path / "webdojo"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    text = (PACKAGE / module).read_text(
        encoding="utf-8"
    ) + f"\n\ndef _probe() -> None:\n    {line}\n"
    (copy / module).write_text(text, encoding="utf-8")
    return copy, len(text.splitlines())


def test_an_import_up_a_layer_is_caught(tmp_path: Path) -> None:
    """The checker itself, on a copy of the sources: the store importing the judges inside a
    function is reported with its file and line (and is the only report)."""
    copy, line = _copy_with(tmp_path, "store/run_store.py", "import webdojo.judges")
    assert [describe(e) for e in forbidden_edges(copy)] == [
        f"src/webdojo/store/run_store.py:{line} imports webdojo.judges, which store may not: "
        f"layer {LAYER_OF['judges']} is not below store's layer {LAYER_OF['store']}"
    ]


def test_units_kept_apart_are_caught_below_as_above(tmp_path: Path) -> None:
    """The server's API sits above the rollout engine, and still may not import it."""
    copy, line = _copy_with(tmp_path, "server/api/app.py", "import webdojo.rollout")
    assert [describe(e) for e in forbidden_edges(copy)] == [
        f"src/webdojo/server/api/app.py:{line} imports webdojo.rollout, which server.api may "
        "not: they are kept apart (APART)"
    ]


def test_the_document_shows_the_same_layers() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert layers_table() in text, (
        "docs/architecture.md does not show LAYERS; the table it should hold:\n" + layers_table()
    )
