"""An error has one data form, ``ErrorInfo``: ``from_info(exc.info())`` gives the error back."""

from __future__ import annotations

import pytest

from webdojo.errors import ErrorInfo, InternalError, WebdojoError, all_codes, from_info
from webdojo.observation import ErrorInfo as ObservationErrorInfo


@pytest.mark.parametrize("cls", all_codes().values(), ids=lambda cls: cls.code)
def test_every_error_survives_its_data_form(cls: type[WebdojoError]) -> None:
    sent = cls("it broke", seconds=1.5, nested={"a": [1, None]})
    sent.details["message"] = "a detail named like the constructor's argument"
    got = from_info(ErrorInfo.model_validate_json(sent.info().model_dump_json()))
    assert type(got) is cls
    assert (got.code, got.message, got.details) == (sent.code, sent.message, sent.details)
    assert (got.fault, got.retryable) == (sent.fault, sent.retryable)
    assert got.info() == sent.info()


def test_the_dict_form_is_the_info_without_empty_details() -> None:
    bare = InternalError("x")
    assert bare.to_dict() == {"code": "internal_error", "fault": "infra", "message": "x",
                              "retryable": False}  # fmt: skip
    assert bare.info().details is None
    assert InternalError("x", n=1).to_dict()["details"] == {"n": 1}


def test_an_unknown_code_comes_back_as_an_internal_error_naming_it() -> None:
    got = from_info(ErrorInfo(code="from_the_future", fault="env", message="m", details={"a": 1}))
    assert type(got) is InternalError and got.details == {"a": 1, "code": "from_the_future"}


def test_observation_re_exports_the_one_type() -> None:
    assert ObservationErrorInfo is ErrorInfo
