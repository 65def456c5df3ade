"""What a ``webdojo`` command imports before it runs: the openai package takes about a second
to import, and most commands (``serve``, ``run --policy scripted``, ``bench``, ``--help``)
never call a model, so it is imported only where a model client is made."""

from __future__ import annotations

import subprocess
import sys


def test_the_command_line_starts_without_openai() -> None:
    probe = "import sys, webdojo.cli.app, webdojo.policies; print('openai' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert proc.stdout.strip() == "False", proc.stderr


def test_a_model_client_imports_it() -> None:
    probe = (
        "import sys; from webdojo.models import ModelClient, ModelConfig; "
        "ModelClient(ModelConfig(base_url='http://127.0.0.1:9/v1')); print('openai' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert proc.stdout.strip() == "True", proc.stderr
