"""The root of the error tree: ``WebdojoError`` and the ``Fault`` that says who is to blame."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar


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

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape used in step records and (later) server error bodies."""
        out: dict[str, Any] = {
            "code": self.code,
            "fault": self.fault.value,
            "message": self.message,
            "retryable": self.retryable,
        }
        if self.details:
            out["details"] = self.details
        return out

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"
