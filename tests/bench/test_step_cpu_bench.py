"""``webdojo bench step-cpu``: every contender really steps, and each process's CPU lands in
its own column (no timing asserts: one short round)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from rich.console import Console

from e2e.cli_process import last_json, webdojo
from webdojo.bench.step_cpu import COLUMNS, FLOOR, Contender, Setup, Step, run_step_cpu

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_cli_measures_the_floor_in_process_and_the_server() -> None:
    data = last_json(
        webdojo("bench", "step-cpu", "--rounds", "1", "--seconds", "1", "--sessions", "1", "--json")
    )
    assert data["step"] == "inpage" and data["sessions"] == 1 and data["floor"] == FLOOR
    rows = {c["name"]: c for c in data["contenders"]}
    assert list(rows) == [FLOOR, "in-process", "server"]
    assert rows[FLOOR]["over_floor"] == 1.0
    for row in rows.values():
        cpu = row["cpu_ms_per_step"]
        assert row["steps_per_s"] > 0 and set(cpu) == {*COLUMNS, "total"}
        assert cpu["renderer"] > 0 and cpu["browser"] > 0 and cpu["total"] > 0
    # the server's own process is where a served step's Python runs; in-process, it is ours
    assert rows["server"]["cpu_ms_per_step"]["server"] > rows[FLOOR]["cpu_ms_per_step"]["server"]
    assert rows["in-process"]["cpu_ms_per_step"]["client"] > 0


async def test_navigating_steps_and_a_contender_of_ones_own() -> None:
    entered: list[str] = []

    @contextmanager
    def marked() -> Iterator[None]:
        entered.append("in")
        yield

    async def extra(setup: Setup, inprocess: list[Step]) -> list[Contender]:
        assert setup.nav and setup.urls[1].endswith("b.html")
        return [Contender("mine", inprocess, marked)]

    result = await run_step_cpu(
        nav=True, rounds=2, seconds=0.5, sessions=1, server=False, extra=extra
    )
    data = json.loads(json.dumps(result.to_json()))
    assert data["step"] == "nav" and [c["name"] for c in data["contenders"]] == [
        FLOOR,
        "in-process",
        "mine",
    ]
    assert len(entered) == 3  # the warm-up and both rounds
    assert all(len(windows) == 2 for windows in result.windows.values())
    console = Console(record=True, width=160)
    console.print(result.table())
    text = console.export_text()
    assert "mine" in text and "renderer" in text
