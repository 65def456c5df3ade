"""``webdojo run`` (the command is in ``app.py``): wires config, task set, policy, progress bar
and summary together."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.cli.progress import episode_progress
from webdojo.envs.wiki_server import choose_backend
from webdojo.envs.zim import check_zim_file
from webdojo.errors import ModelDown, ServerDown
from webdojo.models.client import check_endpoint
from webdojo.models.config import ModelConfig
from webdojo.policies import make_policy
from webdojo.policies.base import Policy
from webdojo.rollout.run import RunConfig, run_job
from webdojo.store.summary import summarize
from webdojo.store.tables import summary_tables
from webdojo.tasks.loader import load_spec
from webdojo.tasks.qa_tasks import load_qa_tasks
from webdojo.viewer import write_report


def choose_policy(
    name: str | None, model_config: ModelConfig | None, seed: int, template: str, console: Console
) -> Policy:
    """The explicit policy, else the model endpoint if one is configured, else scripted."""
    if name is None:
        name = "openai" if model_config is not None else "scripted"
        if model_config is None:
            console.print(
                "[dim]note: no model endpoint configured (WEBDOJO_MODEL_BASE_URL); "
                "using the scripted policy, which follows each task's reference solution[/dim]",
                soft_wrap=True,
            )
    return make_policy(name, model_config=model_config, seed=seed, template=template)


def check_policy_endpoint(policy: str, model: ModelConfig | None, console: Console) -> None:
    """Ask the model endpoint once before any browser starts: a dead one raises
    ``ModelError`` here (exit 3) instead of faulting every episode."""
    if policy != "openai" or model is None:
        return
    console.print(
        f"[dim]model endpoint: {asyncio.run(check_endpoint(model))}[/dim]", soft_wrap=True
    )


def run_command(
    *,
    tasks: str,
    policy: str | None,
    limit: int | None,
    concurrency: int,
    repeats: int,
    seed: int,
    out: Path,
    model_base_url: str | None,
    model: str | None,
    template: str | None,
    server: str | None,
    token: str | None,
    archive: str | None,
    as_json: bool,
    console: Console,
    emit_json: Callable[[dict[str, Any]], None],
    wiki: str | None = None,
    network: NetworkPolicy | None = None,
) -> None:
    overrides = {k: v for k, v in {"base_url": model_base_url, "model": model}.items() if v}
    model_config = ModelConfig.from_env(**overrides)
    # QA on a wiki reads any QA format and is BrowserAgent's setting: its template by default
    task_set = load_qa_tasks(tasks) if wiki else load_spec(tasks)
    if wiki:  # a missing ZIM or server program fails here, before the run directory is made
        wiki = str(check_zim_file(Path(wiki)))
        choose_backend(Path(wiki))
    template = template or ("browseragent" if wiki else "webgym_memory")
    chosen = choose_policy(policy, model_config, seed, template, console)
    check_policy_endpoint(chosen.name, model_config, console)
    config = RunConfig(
        tasks=tasks,
        policy=chosen.name,
        limit=limit,
        concurrency=concurrency,
        repeats=repeats,
        seed=seed,
        out=str(out),
        extra={"template": template, "model": None if model_config is None else model_config.model},
        server=server,
        token=token,
        archive=archive,
        wiki=wiki,
        network=network or NetworkPolicy(),
    )
    started = time.perf_counter()
    try:
        asyncio.run(_run_with_progress(config, task_set, chosen, console))
    except (ServerDown, ModelDown):  # summarize what was done, then say why it stopped
        _report(out, time.perf_counter() - started, console, emit_json if as_json else None)
        raise
    _report(out, time.perf_counter() - started, console, emit_json if as_json else None)


def _report(
    out: Path,
    elapsed: float,
    console: Console,
    emit_json: Callable[[dict[str, Any]], None] | None,
) -> None:
    """The run's summary tables and HTML report (and its JSON summary, when asked)."""
    summary = summarize(out)
    for table in summary_tables(summary, elapsed):
        console.print(table)
    report = write_report(out, out / "report.html")
    console.print(f"report: {report}   browse: webdojo view {out}")
    if emit_json is not None:
        emit_json(summary.to_json(elapsed))


async def _run_with_progress(
    config: RunConfig, task_set: Any, policy: Policy, console: Console
) -> None:
    with episode_progress(console, config.out) as bar:
        await run_job(config, task_set, policy, on_episode=bar.episode, on_start=bar.start)
