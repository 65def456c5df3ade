"""What a ``webdojo`` command imports before it runs. Every command pays for what the command
line imports at its start: openai (about a second), Playwright, torch and transformers (seconds)
are imported only by the commands, and the code paths, that use them."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("openai", "playwright", "torch", "transformers", "aiohttp")


def loaded_after(code: str) -> list[str]:
    """Which of ``HEAVY`` a fresh interpreter holds after running ``code``."""
    probe = (
        f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules.keys() & {set(HEAVY)!r})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    loaded: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return loaded


def test_the_command_line_starts_without_heavy_packages() -> None:
    assert loaded_after("import webdojo.cli.app") == []


def test_openai_is_imported_with_a_model_client_only() -> None:
    assert "openai" not in loaded_after("import webdojo.policies")
    made = "from webdojo.models import ModelClient, ModelConfig\n"
    made += "ModelClient(ModelConfig(base_url='http://127.0.0.1:9/v1'))"
    assert "openai" in loaded_after(made)
