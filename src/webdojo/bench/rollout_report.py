"""The report of ``webdojo bench rollout``: rich tables over a ``RolloutBenchResult``."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table

from webdojo.bench.rollout_result import RolloutBenchResult


def _f(value: float | None, digits: int = 1, suffix: str = "") -> str:
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def rollout_bench_table(result: RolloutBenchResult) -> Group:
    """The report: rollouts, saturation, latency, queues, targets. CPU us: this process tree
    (Chromium, server and workers included) as a share of all cores; CPU all: the machine."""
    parts: list[Any] = [_rollout_table(result), _saturation_table(result)]
    if result.latency_ms:
        parts.append(_latency_table(result.latency_ms))
    if result.queues:
        parts.append(_queue_table(result.queues))
    parts.append(_target_table(result))
    return Group(*parts)


def _rollout_table(result: RolloutBenchResult) -> Table:
    chromium = result.machine.get("chromium")
    title = "rollouts: simulated VLM workload" + (f", Chromium {chromium}" if chromium else "")
    roll = Table(title=title, title_justify="left")
    roll.add_column("leg", no_wrap=True)
    for col in (
        "eps",
        "steps",
        "wall s",
        "steps/s",
        "p50 ms",
        "p90 ms",
        "CPU us",
        "CPU all",
        "ok",
        "faults",
    ):
        roll.add_column(col, justify="right")
    for r in result.rollouts:
        roll.add_row(
            r.name,
            str(r.episodes),
            str(r.steps),
            _f(r.wall_s),
            _f(r.steps_per_s),
            _f(r.step_p50_ms, 0),
            _f(r.step_p90_ms, 0),
            _pct(r.cpu.get("tree_util")),
            _pct(r.cpu.get("system_util")),
            _pct(r.success_rate),
            str(r.faults),
        )
    faults = [f"{r.name}: {r.fault_codes}" for r in result.rollouts if r.fault_codes]
    if faults:
        roll.caption = "faults (recorded, engine went on): " + "; ".join(faults)
    return roll


def _saturation_table(result: RolloutBenchResult) -> Table:
    sat = Table(title="saturated click + screenshot", title_justify="left")
    sat.add_column("contender", no_wrap=True)
    for col in ("sessions", "steps/s", "% of raw", "p50 ms", "p90 ms", "CPU us", "CPU all"):
        sat.add_column(col, justify="right")
    for s in result.saturation:
        share = result.over(s.name, "raw")
        sat.add_row(
            s.name,
            str(s.sessions),
            _f(s.steps_per_s),
            _pct(share),
            _f(s.p50_ms, 0),
            _f(s.p90_ms, 0),
            _pct(s.cpu.get("tree_util")),
            _pct(s.cpu.get("system_util")),
        )
    floors = [
        f"{leg} {ratio:.3f}"
        for leg in ("in-process", "server")
        if (ratio := result.floor_ratio(leg)) is not None
    ]
    sat.caption = (
        "raw: mouse.click + page.screenshot; raw CDP: the same click and a bare CDP "
        "Page.captureScreenshot, which readies nothing (webdojo's screenshot hides the caret "
        "and finishes animations as Playwright's does, in fewer round trips)"
        + (f". Of raw CDP: {', '.join(floors)}" if floors else "")
    )
    return sat


def _latency_table(latency_ms: dict[str, dict[str, float | None]]) -> Table:
    lat = Table(title="step latency at low load (one session)", title_justify="left")
    for col in ("env", "p50 ms", "p90 ms", "n"):
        lat.add_column(col, justify="left" if col == "env" else "right")
    for name, v in latency_ms.items():
        lat.add_row(name, _f(v["p50"]), _f(v["p90"]), str(v["n"]))
    return lat


def _queue_table(queues: dict[str, Any]) -> Table:
    table = Table(
        title="worker queues: fast in-page steps among slow navigations", title_justify="left"
    )
    for col in ("mode", "fast p50 ms", "fast p90 ms", "fast steps/s", "slow navs/s"):
        table.add_column(col, justify="left" if col == "mode" else "right")
    for mode in ("per_op", "fifo"):
        r = queues.get(mode) or {}
        table.add_row(
            mode,
            _f(r.get("fast_step_p50_ms")),
            _f(r.get("fast_step_p90_ms")),
            _f(r.get("fast_steps_per_s")),
            _f(r.get("slow_navigations_per_s")),
        )
    return table


def _target_table(result: RolloutBenchResult) -> Table:
    table = Table(title=f"targets (bench took {result.wall_s:.0f} s)", title_justify="left")
    for col in ("ratio", "measured", "target", "met"):
        table.add_column(col, justify="left" if col == "ratio" else "right")
    labels = {
        "async_over_sync": ("async / sync steps/s", ">="),
        "async_over_sync_steady": ("  async steady phase / sync", ">="),
        "server_over_raw": ("server / raw Playwright saturated", ">="),
        "server_latency_ratio": ("server / in-process step p50", "<="),
    }
    for name, t in result.targets().items():
        label, op = labels[name]
        met = {True: "[green]yes[/green]", False: "[red]no[/red]", None: "-"}[t["met"]]
        table.add_row(label, _f(t["value"], 2), f"{op} {t['target']:.2f}", met)
    for note in result.skipped:
        table.add_row(f"[dim]skipped: {note}[/dim]", "", "", "")
    ceiling = result.cpu_ceiling()
    if ceiling is not None:
        table.caption = (
            f"CPU ceiling: {ceiling['cpu_ms_per_step']:.0f} ms of CPU per env step on "
            f"{ceiling['cores']} cores allow {ceiling['steps_per_s']:.1f} steps/s; async "
            f"in-process ran at {ceiling['async_share'] * 100:.0f}% of that"
            + (
                f", so async / sync cannot exceed {ceiling['async_over_sync_bound']:.1f} here"
                if "async_over_sync_bound" in ceiling
                else ""
            )
        )
    return table
