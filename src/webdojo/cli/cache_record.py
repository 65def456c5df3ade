"""``webdojo cache record TASK_FILE --policy P``: a rollout whose sessions record their traffic.

Every episode is one visit of the archive; the rollout's own run directory is kept inside the
archive (``ARCHIVE/run``), so what the policy did is stored next to what the site sent.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console

from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.cache.archive import META, read_meta
from webdojo.cache.record_spec import RecordSpec
from webdojo.cache.recorder import finish_recording
from webdojo.cli.run import choose_policy
from webdojo.errors import ConfigError
from webdojo.models.config import ModelConfig
from webdojo.record_replay import resolver_rules
from webdojo.rollout.run import RunConfig, run_job
from webdojo.tasks.loader import TaskSet, load_spec


def allowed_hosts(task_set: TaskSet, mapped: frozenset[str]) -> tuple[str, ...]:
    """The hosts a recording may contact: the tasks' websites, the --resolve names, and
    loopback when a task runs on a built-in site."""
    hosts = set(mapped)
    for task in task_set.tasks:
        if task.local_site is not None:
            hosts.add("127.0.0.1")
            continue
        url = task.start_url or task.website or ""
        host = urlsplit(url if "//" in url else f"//{url}").hostname
        if host:
            hosts.add(host.lower())
    return tuple(sorted(hosts))


def record_tasks(
    spec: str,
    out: Path,
    visits: int,
    policy: str | None,
    resolve: tuple[str, ...],
    overwrite: bool,
    console: Console,
) -> dict[str, Any]:
    """Run ``policy`` over the task set ``visits`` times, recording every session."""
    if (out / META).exists() and not overwrite:
        raise ConfigError(f"{out} already holds an archive; pass --overwrite to replace it")
    task_set = load_spec(spec)
    rules, mapped = resolver_rules(resolve)
    chosen = choose_policy(policy, ModelConfig.from_env(), 0, "webgym_memory", console)
    config = RunConfig(
        tasks=spec,
        policy=chosen.name,
        repeats=visits,
        concurrency=1,  # one session at a time: visits stay apart in the archive
        out=str(out / "run"),
        record=RecordSpec(str(out), allowed_hosts(task_set, mapped)),
        browser_args=(f"--host-resolver-rules={rules}",) if rules else (),
        # The policy's proxy resolves names itself and would bypass the resolver rules that
        # map the user's --resolve hosts: with such a mapping the policy is off.
        network=NetworkPolicy(enabled=not rules),
    )
    try:
        records = asyncio.run(run_job(config, task_set, chosen))
    finally:
        recorded = finish_recording(str(out))  # kept even when the run failed
    if not recorded:
        raise ConfigError(f"no session of {spec} was recorded (the task set has no episode)")
    meta = read_meta(out)
    return {
        "out": str(out),
        "exchanges": meta.exchanges,
        "visits": meta.visits,
        "episodes": len(records),
        "run": str(out / "run"),
    }
