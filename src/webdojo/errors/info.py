"""``ErrorInfo``: a ``WebdojoError`` as data, the one form an error takes outside Python's
exception machinery (observations, step and verdict records, the wire, worker answers).

``WebdojoError.info()`` makes one; ``errors.from_info`` turns one back into the typed error.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ErrorInfo(BaseModel):
    """A WebdojoError as data; its ``code`` says which class (``errors.all_codes``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str  # stable machine-readable code, e.g. ``parse_error``, ``page_crashed``
    fault: str  # agent | env | infra | config (``errors.Fault``)
    message: str  # for people and models
    retryable: bool = False
    details: dict[str, Any] | None = None  # code-specific data; None when there is none
