"""Prompt templates, one per output format, and the registry that names them.

=================  ==============  ===============================================================
template           parse format    observation and reply
=================  ==============  ===============================================================
``qwen``           qwen            screenshots; ``Action:`` sentence + ``<tool_call>`` computer_use
``webgym_memory``  qwen            as qwen, plus Memory / Progress / Intention (append-only memory)
``browseragent``   browseragent    accessibility tree; ``<think>``, ``<conclusion>``, fenced command
``funcall``        funcall         screenshot + accessibility tree; one ``click(element=3)`` call
``chat``           funcall         as funcall, append-only: every page and reply stay in the chat
``compact``        browseragent    pruned tree (ids last); the element's line, then ``click [4]``
=================  ==============  ===============================================================

``get_template(name, **options)`` builds one; options are the template's dataclass fields
(``max_images``, ``screenshot``, ``axtree``, ``max_history_lines``, ``coord_space``...). A name
may carry options itself, ``NAME:FIELD=VALUE[,FIELD=VALUE]`` (``compact:objective=last``), so
that a command's ``--template`` and a run's recorded template say which options were used; the
values are read as the fields' types, and keyword options win over the name's.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from pydantic import TypeAdapter, ValidationError

from webdojo.errors import ConfigError
from webdojo.prompts.append_only import AppendOnlyChatTemplate
from webdojo.prompts.base import PromptTemplate
from webdojo.prompts.browseragent import BrowserAgentTemplate
from webdojo.prompts.compact import CompactTemplate
from webdojo.prompts.funcall import FuncallTemplate
from webdojo.prompts.qwen import QwenTemplate, WebGymMemoryTemplate

TEMPLATES: dict[str, type[PromptTemplate]] = {
    cls.name: cls
    for cls in (
        QwenTemplate,
        WebGymMemoryTemplate,
        BrowserAgentTemplate,
        FuncallTemplate,
        AppendOnlyChatTemplate,
        CompactTemplate,
    )
}


def get_template(name: str, **options: Any) -> PromptTemplate:
    """The template ``name`` (``NAME[:FIELD=VALUE,...]``), configured with ``options``.
    ConfigError if unknown or an option is not the template's."""
    cls = template_class(name)
    try:
        return cls(**(spec_options(name, cls) | options))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad options for template {name!r}: {exc}") from exc


def template_class(name: str) -> type[PromptTemplate]:
    """The class of template ``name`` (its options, after a colon, aside)."""
    cls = TEMPLATES.get(name.partition(":")[0])
    if cls is None:
        raise ConfigError(
            f"unknown prompt template {name!r}; choose one of: {', '.join(TEMPLATES)}"
        )
    return cls


def spec_options(name: str, cls: type[PromptTemplate]) -> dict[str, Any]:
    """The options written in ``name`` after its colon, read as the fields' types."""
    written = name.partition(":")[2]
    if not written:
        return {}
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    options: dict[str, Any] = {}
    for pair in written.split(","):
        field, equals, value = pair.partition("=")
        field = field.strip()
        if not equals or field not in fields:
            raise ConfigError(
                f"template {name!r}: {pair!r} is not FIELD=VALUE with a field of {cls.name!r}"
            )
        try:
            options[field] = TypeAdapter(hints[field]).validate_python(value.strip())
        except ValidationError as exc:
            msg = exc.errors()[0]["msg"]
            raise ConfigError(f"template {name!r}: {field}={value!r}: {msg}") from exc
    return options


__all__ = [
    "TEMPLATES",
    "AppendOnlyChatTemplate",
    "BrowserAgentTemplate",
    "CompactTemplate",
    "FuncallTemplate",
    "PromptTemplate",
    "QwenTemplate",
    "WebGymMemoryTemplate",
    "get_template",
]
