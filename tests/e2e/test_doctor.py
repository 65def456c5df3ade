"""`webdojo doctor` reports Chromium, Playwright and the model endpoint truthfully."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fakes.openai_server import FakeOpenAIServer, unused_port

pytestmark = pytest.mark.browser


def doctor(**env: str) -> tuple[int, dict]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("WEBDOJO_", "OPENAI_"))}
    proc = subprocess.run(
        [sys.executable, "-m", "webdojo.cli", "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean | env,
    )
    return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1])


def test_healthy_machine_without_a_model() -> None:
    code, found = doctor()
    assert code == 0
    assert found["chromium"]["ok"] and found["chromium"]["version"][0].isdigit()
    assert found["playwright"]
    assert found["model"] == {"ok": None, "configured": False}
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    assert found["sandbox"]["root"] == root and found["sandbox"]["sandbox"] == (not root)
    assert ("non-root user" in found["sandbox"].get("warning", "")) == root  # said as root


def test_reachable_and_unreachable_model(fake_openai: FakeOpenAIServer) -> None:
    code, found = doctor(
        WEBDOJO_MODEL_BASE_URL=fake_openai.base_url, WEBDOJO_MODEL=fake_openai.model
    )
    assert code == 0 and found["model"]["ok"] is True
    code, found = doctor(WEBDOJO_MODEL_BASE_URL=f"http://127.0.0.1:{unused_port()}/v1")
    assert code == 1
    assert found["model"]["ok"] is False and found["model"]["error"]["code"].startswith("model_")


def test_missing_chromium_is_a_typed_error() -> None:
    code, found = doctor(WEBDOJO_CHROMIUM="/nonexistent/chromium")
    assert code == 1
    assert found["chromium"]["error"]["code"] == "chromium_not_found"
    assert "apt-get install -y chromium" in found["chromium"]["error"]["message"]
