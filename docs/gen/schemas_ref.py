"""The record schemas page, from the pydantic models themselves.

Types, defaults and required fields come from ``model_json_schema()`` (what a JSON line on disk
must be); each field's description is the comment on its line in the model's source, which is
where webdojo documents its record fields.
"""

from __future__ import annotations

import ast
import inspect
import io
import json
import tokenize
from typing import Any

from json_types import json_type
from md_text import cell, prose
from pydantic import BaseModel

from webdojo import actions
from webdojo.store import records, verdicts
from webdojo.tasks import schema as task_schema

# The records a user reads or writes, with the file each lives in.
TOP = (
    (records.StepRecord, "`RUN_DIR/steps.jsonl`, one line per step"),
    (records.EpisodeRecord, "`RUN_DIR/episodes.jsonl`, one line per finished episode attempt"),
    (task_schema.Task, "task files (`tasks.json`, any `.jsonl` of `webdojo tasks import`)"),
    (verdicts.Verdict, "`RUN_DIR/verdicts/<judge>.jsonl`, one line per judged episode"),
)
MODULES = (records, verdicts, task_schema, actions)


def field_comments(cls: type) -> dict[str, str]:
    """Field name -> the comment on its line (and the comment lines right below it)."""
    source = inspect.getsource(cls)
    comments: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and "type: ignore" not in tok.string:
            comments[tok.start[0]] = tok.string.lstrip("#").strip()
    lines = source.splitlines()
    out: dict[str, str] = {}
    for node in ast.parse(source).body[0].body:  # type: ignore[attr-defined]
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        row = node.end_lineno or node.lineno
        if row not in comments:
            continue
        text = [comments[row]]
        while row < len(lines) and lines[row].strip().startswith("#"):
            row += 1
            text.append(comments[row])
        out[node.target.id] = " ".join(text)
    return out


def _classes(first: object) -> dict[str, type[BaseModel]]:
    """Model classes by name, the top model's own module winning over the others."""
    found: dict[str, type[BaseModel]] = {}
    for module in (*MODULES, first):
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, BaseModel):
                found[name] = obj
    return found


def anchor(model: str, name: str) -> str:
    """Each top model documents its own nested models: ``Target`` differs between two."""
    return f"{model}-{name}".lower() if model != name else model.lower()


def _default(prop: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" in prop:
        return f"`{json.dumps(prop['default'])}`"
    return "generated"


def _table(model_schema: dict[str, Any], comments: dict[str, str], model: str) -> list[str]:
    required = set(model_schema.get("required", []))
    rows = ["| field | type | default | what |", "|---|---|---|---|"]
    for name, prop in model_schema.get("properties", {}).items():
        what = prop.get("description") or comments.get(name, "")
        what = cell(what)
        kind = json_type(prop, lambda sub: anchor(model, sub))
        rows.append(f"| `{name}` | {kind} | {_default(prop, name in required)} | {what} |")
    return rows


def _section(model: str, name: str, model_schema: dict[str, Any], cls: type | None) -> list[str]:
    if name == model:
        out = [f"## {name} {{#{anchor(model, name)}}}", ""]
    else:
        out = [f"### {model} › {name} {{#{anchor(model, name)}}}", ""]
    if model_schema.get("description"):
        out += [prose(model_schema["description"].strip()), ""]
    if "properties" in model_schema:
        out += _table(model_schema, field_comments(cls) if cls else {}, model)
    elif "enum" in model_schema:
        out.append("One of: " + ", ".join(f"`{v}`" for v in model_schema["enum"]) + ".")
    return [*out, ""]


def page() -> str:
    out = [
        "# Record schemas",
        "",
        "Generated from the pydantic models when the site is built. Every record is strict",
        '(`extra="forbid"`): an unknown field is an error. Run files carry a `schema_version`;',
        "older versions are upgraded when read (`webdojo.store.run_reader.read_run`).",
        "",
    ]
    for model, where in TOP:
        name = model.__name__
        full = model.model_json_schema()
        classes = _classes(inspect.getmodule(model))
        section = _section(name, name, full, model)
        out += [*section[:2], f"Stored in {where}.", "", *section[2:]]
        for sub_name, sub in sorted(full.get("$defs", {}).items()):
            out += _section(name, sub_name, sub, classes.get(sub_name))
        out += [
            f'??? note "The JSON schema of {name}"',
            "",
            "    ```json",
            *("    " + line for line in json.dumps(full, indent=2).splitlines()),
            "    ```",
            "",
        ]
    return "\n".join(out)
