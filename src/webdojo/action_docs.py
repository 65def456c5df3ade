"""The action space documented for prompts, generated from the action models of
``webdojo.actions``, whose docstrings are their one and only documentation: a prompt cannot
drift from the actions it describes.

* ``describe_actions()``: one line per action, with its fields and docstring (the ``funcall``
  template embeds it as is: the signatures are its call syntax);
* ``action_doc(name)``: one action's docstring, plain;
* ``action_summary(name)``: the first sentence of it.
"""

from __future__ import annotations

import re

from webdojo.actions import ACTION_NAMES, ACTION_TYPES

_ACTION_DOCS = {  # action name -> its docstring on one line
    cls.model_fields["type"].default: " ".join((cls.__doc__ or "").split()) for cls in ACTION_TYPES
}


def describe_actions(names: tuple[str, ...] = ACTION_NAMES) -> str:
    """One line per action: name, fields and docstring. Prompt templates embed this text."""
    lines = []
    for cls in ACTION_TYPES:
        name = cls.model_fields["type"].default
        if name not in names:
            continue
        fields = [f for f in cls.model_fields if f not in {"type", "space"}]
        lines.append(f"- {name}({', '.join(fields)}): {_ACTION_DOCS[name]}")
    return "\n".join(lines)


def action_summary(name: str) -> str:
    """The first sentence of an action's docstring, with reST backticks made plain."""
    doc = _ACTION_DOCS[name].replace("``", "`")
    return re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+(?=[A-Z`])", doc, maxsplit=1)[0]


def action_doc(name: str) -> str:
    """The whole docstring of one action, plain."""
    return _ACTION_DOCS[name].replace("``", "`")
