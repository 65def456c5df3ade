"""The layering rules of ``docs/architecture.md``, enforced on every import in ``src/webdojo``.

Every module is parsed with ``ast`` (nothing is imported); every ``import`` and ``from ...
import`` counts, at the top of a module, inside a function or under ``if TYPE_CHECKING``.
Each module belongs to the unit with the longest matching name in ``MAY_IMPORT`` (``server.api``
before ``server``), and may import its own unit and the units listed for it, nothing else.
The same table is in ``docs/architecture.md``; a test checks that the two agree.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = SRC / "webdojo"
DOC = ROOT / "docs" / "architecture.md"

# the core: every unit above it may import all of it
CORE = ("errors", "action_values", "actions", "action_docs", "observation", "history")

# unit -> what it may import besides itself: units, or single modules such as
# ``server.pool.base``. Keep docs/architecture.md's table the same.
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "errors": (),
    "action_values": ("errors",),
    "actions": ("errors", "action_values"),
    "action_docs": ("actions",),
    "observation": ("errors",),  # an observation's last error is an errors.ErrorInfo
    "history": ("errors", "actions", "observation"),
    "local_http": (),
    "background": (),  # held background tasks (asyncio keeps only weak references)
    "asgi": ("errors",),
    # MiniWoB++'s page-side protocol and package location; tasks/ builds its task set on it
    "envs.miniwob": CORE,
    "tasks": (*CORE, "envs.miniwob"),
    "parsing": CORE,
    # the cache below the browser: a session replaying an archive attaches its replayer
    "cache": (*CORE, "background"),
    "browser": (
        *CORE,
        "background",
        "cache.archive",
        "cache.record_spec",
        "cache.recorder",
        "cache.replayer",
    ),
    "models": CORE,
    # the server's wire format, which the server and its clients share
    "wire": (*CORE, "parsing", "tasks"),
    # `webdojo cache record|replay`: launches browsers that record or replay through the cache
    "record_replay": (*CORE, "browser", "cache"),
    "prompts": (*CORE, "parsing", "models", "tasks"),
    "policies": (*CORE, "parsing", "models", "prompts", "tasks"),
    "sites": (*CORE, "local_http", "tasks"),
    "envs": (*CORE, "asgi", "tasks"),  # hosted environments: servers and their task sets
    "store": (*CORE, "tasks"),
    "rollout": (
        *CORE,
        "browser",
        "cache.record_spec",  # the session option that records a run's traffic
        "envs",  # a run with --wiki serves the ZIM
        "policies",
        "sites",
        "store",
        "tasks",
        "wire",  # HttpEnv speaks the server's wire format
    ),
    "server": (),
    "server.worker": (*CORE, "background", "browser"),
    "server.pool": (*CORE, "background", "browser", "server.worker"),
    "server.api": (*CORE, "browser", "parsing", "sites", "tasks", "wire", "server.pool.base"),
    "server.serve": (
        *CORE,
        "asgi",
        "browser",
        "envs",  # --wiki: the server serves the ZIM beside its sessions
        "tasks",
        "server.api",
        "server.pool",
        "server.worker.config",  # --spare-browser configures each worker
    ),
    "server.child_process": CORE,
    "taskgen": (*CORE, "models", "tasks"),
    # site generation validates with `sites check`'s task replays: above checks and rollout
    "sitegen": (*CORE, "browser", "checks", "models", "rollout", "sites", "store", "tasks"),
    "doctor": (*CORE, "browser", "models"),
    "judges": (*CORE, "models", "store", "tasks"),
    # the end of the data flow: scored runs become samples, exports and model updates; the
    # prompts rebuild each sample's context with the policy's own template
    "training": (*CORE, "models", "prompts", "store", "tasks"),
    "checks": (*CORE, "browser", "policies", "rollout", "sites", "store", "tasks"),
    # `train loop`: a program above training and eval (rolls out, judges, selects, trains, scores)
    "loop": (
        *CORE,
        "asgi",  # the served policy's HTTP server
        "eval",
        "judges",
        "models",
        "policies",
        "prompts",
        "rollout",
        "store",
        "tasks",
        "training",
    ),
    # suites, statistics, the manifest and the eval job: above the rollout and the judges
    "eval": (
        *CORE,
        "browser",
        "cache.archive",  # an archive set's files, which the suite's hash covers
        "judges",
        "models",
        "policies",
        "rollout",
        "store",
        "tasks",
    ),
    "bench": (
        *CORE,
        "asgi",
        "local_http",
        "browser",
        "cache",
        "record_replay",  # bench cache: records its pages live
        "adapters",  # bench adapters: the TRL environment class
        "environment",  # bench adapters: webdojo.make and the Gymnasium env
        "policies",  # the policy whose success a benchmark measures (bench miniwob)
        "rollout",
        "server",
        "sites",
        "store",
        "tasks",
        "wire",  # bench transport: the encodings it times
    ),
    "viewer": (*CORE, "asgi", "store", "tasks", "eval.bootstrap"),  # the report's CIs
    # webdojo.make and the Gymnasium ids: one task as an environment, above the rollout
    "environment": (*CORE, "browser", "envs", "parsing", "rollout", "sites", "tasks"),
    # other trainers' shapes (AReaL's agent workflow, TRL): on top of environment and rollout
    "adapters": (
        *CORE,
        "environment",
        "models",
        "policies",
        "prompts",
        "rollout",
        "store",
        "tasks",
    ),
    "cli": (
        *CORE,
        "bench",
        "cache",
        "checks",
        "doctor",
        "envs",
        "eval",
        "judges",
        "loop",
        "models",
        "policies",
        "record_replay",
        "rollout",
        "server.serve",
        "sitegen",
        "store",
        "taskgen",
        "tasks",
        "training",
        "viewer",
        "browser.netpolicy",  # the --allow-host/--deny-host/--network-policy flags
        "server.pool.retirement",  # the default of --max-worker-sessions, shown in --help
    ),
}
ANYONE_MAY_IMPORT = {""}  # the bare ``webdojo`` package
# what the bare package's __init__ imports: webdojo.make / make_async and the Gymnasium hook
ROOT_MAY_IMPORT = ("environment", "tasks.schema")  # the Task type, for make()'s signature


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


def imports_of(path: Path, package: Path) -> list[Edge]:
    importer = module_name(path, package)
    where = path.relative_to(package.parent)
    edges = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
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
    """The longest unit in ``MAY_IMPORT`` that ``name`` is or lies under."""
    matches = [u for u in MAY_IMPORT if covers(u, name)]
    return max(matches, key=len) if matches else None


def covers(unit: str, name: str) -> bool:
    return name == unit or name.startswith(unit + ".")


def is_allowed(edge: Edge) -> bool:
    if edge.importer == "":
        return any(covers(allowed, edge.target) for allowed in ROOT_MAY_IMPORT)
    unit = unit_of(edge.importer)
    assert unit is not None, f"{edge.importer} belongs to no unit"
    if edge.target in ANYONE_MAY_IMPORT or covers(unit, edge.target):
        return True
    return any(covers(allowed, edge.target) for allowed in MAY_IMPORT[unit])


def forbidden_edges(package: Path = PACKAGE) -> list[Edge]:
    edges = [e for path in sorted(package.rglob("*.py")) for e in imports_of(path, package)]
    return [e for e in edges if not is_allowed(e)]


def describe(edge: Edge) -> str:
    unit = unit_of(edge.importer) or "?"
    allowed = ", ".join(MAY_IMPORT.get(unit, ())) or "nothing else"
    return (
        f"src/{edge.path}:{edge.line} imports webdojo.{edge.target}, which {unit} may not "
        f"import (it may import: {allowed})"
    )


# --- tests ------------------------------------------------------------------------------------


def test_every_module_belongs_to_a_unit() -> None:
    names = [module_name(p, PACKAGE) for p in sorted(PACKAGE.rglob("*.py"))]
    orphans = [n for n in names if n and unit_of(n) is None]
    assert not orphans, f"modules in no unit of MAY_IMPORT: {orphans}"


def test_every_unit_and_rule_names_real_code() -> None:
    named = set(MAY_IMPORT) | {a for allowed in MAY_IMPORT.values() for a in allowed}
    missing = sorted(n for n in named if not is_module(n, PACKAGE))
    assert not missing, f"MAY_IMPORT names modules that do not exist: {missing}"


def test_no_forbidden_imports() -> None:
    bad = forbidden_edges()
    assert not bad, "imports that break docs/architecture.md:\n" + "\n".join(map(describe, bad))


def test_a_forbidden_import_is_caught(tmp_path: Path) -> None:
    """The checker itself, on a copy of the sources: a server module that imports the rollout
    engine inside a function is reported with its file and line (and is the only report)."""
    probe = PACKAGE / "server" / "api" / "app.py"
    copy = tmp_path / "webdojo"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    text = (
        probe.read_text(encoding="utf-8")
        + "\n\ndef _probe() -> None:\n    import webdojo.rollout\n"
    )
    (copy / "server" / "api" / "app.py").write_text(text, encoding="utf-8")
    assert [describe(e) for e in forbidden_edges(copy)] == [
        f"src/webdojo/server/api/app.py:{len(text.splitlines())} imports webdojo.rollout, "
        f"which server.api may not import (it may import: {', '.join(MAY_IMPORT['server.api'])})"
    ]


def test_the_document_shows_the_same_table() -> None:
    section = DOC.read_text(encoding="utf-8").split("## Who may import whom", 1)[1]
    rows = re.findall(r"^\| `([\w.]+)` \| (.*) \|$", section, re.M)
    documented = {unit: tuple(re.findall(r"`([\w.]+)`", cell)) for unit, cell in rows}
    assert documented == MAY_IMPORT, "the table of docs/architecture.md is not MAY_IMPORT"
