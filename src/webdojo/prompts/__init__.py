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
(``max_images``, ``screenshot``, ``axtree``, ``max_history_lines``, ``coord_space``...).
"""

from __future__ import annotations

from typing import Any

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
    """The template called ``name``, configured with ``options``. ConfigError if unknown."""
    cls = TEMPLATES.get(name)
    if cls is None:
        raise ConfigError(
            f"unknown prompt template {name!r}; choose one of: {', '.join(TEMPLATES)}"
        )
    try:
        return cls(**options)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad options for template {name!r}: {exc}") from exc


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
