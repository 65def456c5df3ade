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


def test_command_groups_are_imported_when_they_run() -> None:
    """The groups in ``LAZY_GROUPS`` (the trainer's options pull numpy, the judges every judge
    class, the viewer uvicorn) load with their commands, not at the command line's start: that
    start is every command's, and the test suite's many CLI processes', fixed cost."""
    code = "import webdojo.cli.app\n" + "import json, sys\n"
    code += "late = ['numpy', 'uvicorn', 'webdojo.judges.spec', 'webdojo.cli.train']\n"
    code += "print(json.dumps([m for m in late if m in sys.modules]))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def test_every_lazy_group_loads_and_lists_its_commands() -> None:
    from typer.testing import CliRunner

    from webdojo.cli.app import LAZY_GROUPS, app

    runner = CliRunner()
    top = runner.invoke(app, ["--help"])
    assert top.exit_code == 0
    for name in LAZY_GROUPS:
        assert name in top.output
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0 and "Commands" in result.output, (name, result.output)


def test_openai_is_imported_with_a_model_client_only() -> None:
    assert "openai" not in loaded_after("import webdojo.policies")
    made = "from webdojo.models import ModelClient, ModelConfig\n"
    made += "ModelClient(ModelConfig(base_url='http://127.0.0.1:9/v1'))"
    assert "openai" in loaded_after(made)
