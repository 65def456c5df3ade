"""``webdojo doctor``: is this machine ready to run webdojo?"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.errors import WebdojoError


async def diagnose() -> dict[str, Any]:
    """Chromium path and version (by launching it), Playwright version, model endpoint."""
    findings: dict[str, Any] = {
        "python": sys.version.split()[0],
        "playwright": _package_version("playwright"),
        "webdojo": _package_version("webdojo"),
    }
    findings["chromium"] = await _chromium()
    findings["sandbox"] = _sandbox()
    findings["model"] = await _model()
    findings["ok"] = findings["chromium"]["ok"] and findings["model"]["ok"] is not False
    return findings


def _package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


async def _chromium() -> dict[str, Any]:
    from webdojo.browser.chromium import find_chromium
    from webdojo.browser.host import BrowserHost

    try:
        path = find_chromium()
        async with await BrowserHost.launch() as host:
            found = {"ok": True, "path": path, "version": host.version}
        if "headless" not in Path(path).name:
            found["hint"] = (
                "a full browser runs headless here; Chromium's headless shell costs well under "
                "half the CPU per episode: apt-get install -y chromium-headless-shell"
            )
        return found
    except WebdojoError as exc:
        return {"ok": False, "error": exc.to_dict()}


def _sandbox() -> dict[str, Any]:
    """Whether Chromium keeps its sandbox: webdojo turns it off only as root, where Chromium
    refuses to start with it. A page that exploits the renderer then reaches the whole machine."""
    from webdojo.browser.chromium import BrowserConfig, is_root

    sandbox = "--no-sandbox" not in BrowserConfig().launch_args()
    found: dict[str, Any] = {"root": is_root(), "sandbox": sandbox}
    if not sandbox:
        found["warning"] = (
            "running as root, so Chromium runs without its sandbox: for sites you do not "
            "control, run webdojo as a non-root user, or inside a container or VM "
            "(docs/deployment.md)"
        )
    return found


async def _model() -> dict[str, Any]:
    """``ok`` is None when no endpoint is configured: that is fine (scripted policy)."""
    from webdojo.models.client import ModelClient
    from webdojo.models.config import ModelConfig

    config = ModelConfig.from_env()
    if config is None:
        return {"ok": None, "configured": False}
    result: dict[str, Any] = {
        "configured": True,
        "base_url": config.base_url,
        "model": config.model,
    }
    try:
        async with ModelClient(config) as client:
            result["reply"] = await client.ping()
        result["ok"] = True
    except WebdojoError as exc:
        result.update(ok=False, error=exc.to_dict())
    return result


def render(findings: dict[str, Any], console: Console) -> None:
    table = Table(title="webdojo doctor", show_header=False, title_justify="left")
    table.add_column("check")
    table.add_column("result")
    chromium, model = findings["chromium"], findings["model"]
    table.add_row("python", findings["python"])
    table.add_row("webdojo", str(findings["webdojo"]))
    table.add_row("playwright", str(findings["playwright"]))
    if chromium["ok"]:
        table.add_row("chromium", f"[green]{chromium['version']}[/green]  {chromium['path']}")
        if chromium.get("hint"):
            table.add_row("", f"[yellow]{escape(chromium['hint'])}[/yellow]")
    else:
        table.add_row("chromium", f"[red]{escape(chromium['error']['message'])}[/red]")
    sandbox = findings["sandbox"]
    if sandbox["sandbox"]:
        table.add_row("sandbox", "[green]on[/green]")
    else:
        table.add_row("sandbox", f"[yellow]off[/yellow]  {escape(sandbox['warning'])}")
    table.add_row("model endpoint", _model_line(model))
    console.print(table)


def _model_line(model: dict[str, Any]) -> str:
    if not model["configured"]:
        return "[yellow]not configured[/yellow] (set WEBDOJO_MODEL_BASE_URL; the scripted policy is used)"
    where = f"{model['base_url']} ({model['model']})"
    if model["ok"]:
        return f"[green]reachable[/green]  {where}"
    return f"[red]unreachable[/red]  {where}: {escape(model['error']['message'])}"
