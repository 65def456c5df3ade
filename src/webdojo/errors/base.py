"""The root of the error tree: ``WebdojoError`` and the ``Fault`` that says who is to blame."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from webdojo.errors.info import ErrorInfo


class Fault(StrEnum):
    """Who is to blame for an error; see the module docstring."""

    AGENT = "agent"
    ENV = "env"
    INFRA = "infra"
    CONFIG = "config"


class WebdojoError(Exception):
    """Base class. ``code`` is stable across releases; ``message`` is for people and models."""

    code: ClassVar[str] = "webdojo_error"
    fault: ClassVar[Fault] = Fault.INFRA
    retryable: ClassVar[bool] = False

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def info(self) -> ErrorInfo:
        """The error as data: what observations, records and the wire carry."""
        return ErrorInfo(
            code=self.code,
            fault=self.fault.value,
            message=self.message,
            retryable=self.retryable,
            details=self.details or None,
        )

    def to_dict(self) -> dict[str, Any]:
        """``info()`` as a plain dict without an empty ``details``: the ``error`` object of
        JSON outputs (``webdojo doctor``, the OpenEnv socket's error frames)."""
        out = self.info().model_dump()
        if out["details"] is None:
            del out["details"]
        return out

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"
