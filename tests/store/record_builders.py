"""Small valid records for store tests (the fields a test does not care about get defaults)."""

from __future__ import annotations

from typing import Any

from webdojo.actions import Click, Stop
from webdojo.errors import ErrorInfo
from webdojo.observation import FinalState
from webdojo.store.records import (
    EpisodeRecord,
    StepRecord,
    repeat_of,
)
from webdojo.tasks.episode_rules import EndReason
from webdojo.tasks.verify import VerifyResult


def episode(
    key: str, success: bool | None, fault: str | None = None, **extra: Any
) -> EpisodeRecord:
    difficulty = extra.pop("difficulty", 1)
    error = ErrorInfo(code="browser_closed", fault="infra", message="x") if fault else None
    fields: dict[str, Any] = {
        "key": key,
        "repeat": repeat_of(key),
        "episode": key + "-e",
        "task_id": key.split("#")[0],
        "site": "shop",
        "difficulty": difficulty,
        "level": "easy" if difficulty <= 3 else "medium",
        "policy": "scripted",
        "outcome": EndReason.FAULT if fault else EndReason.STOPPED,
        "steps": 3,
        "answer": None,
        "final_url": "http://127.0.0.1/shop/",
        "verifier": None if success is None else VerifyResult(passed=success, reasons=["ok: x"]),
        "success": success,
        "reward": None if success is None else float(success),
        "fault": fault,
        "error": error,
        "final_state": None
        if success is None
        else FinalState(url="http://127.0.0.1/shop/", title="", text="", answer=None),
        "started_at": 1.0,
        "wall_s": 1.5,
    }
    fields.update(extra)
    return EpisodeRecord(**fields)


def step(uid: str, index: int, key: str = "a#0", **extra: Any) -> StepRecord:
    action = extra.pop("action", Click(x=10, y=20))
    fields: dict[str, Any] = {
        "episode": uid,
        "key": key,
        "task_id": key.split("#")[0],
        "step": index,
        "url": "http://127.0.0.1/shop/",
        "title": "Shop",
        "viewport": (1280, 720),
        "text": action.describe() if action is not None else "???",
        "action": action,
        "target": None,
        "error": None,
        "dialogs": [],
        "screenshot": f"screenshots/{uid}-{index}.jpg",
        "next_screenshot": f"screenshots/{uid}-{index + 1}.jpg",
        "policy_s": 0.1,
        "env_s": 0.05,
    }
    fields.update(extra)
    return StepRecord(**fields)


STOP = Stop(answer="done")
