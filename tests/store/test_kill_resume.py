"""A writer killed (SIGKILL) again and again at arbitrary points of its writes: every resume
finds whole lines only, every acknowledged episode is there with its steps, and no episode is
stored twice. Where each kill lands varies from run to run; what is checked holds wherever it
lands, so the test does not depend on timing."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webdojo.store.run_reader import read_run
from webdojo.store.run_store import EPISODES, STEPS, RunStore

WRITER = Path(__file__).with_name("kill_writer.py")
EPISODES_PLANNED = 50
KILLS = 25


def start(root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(root), str(EPISODES_PLANNED)],
        stdout=subprocess.PIPE,
        text=True,
    )


def torn(root: Path) -> bool:
    return any(
        (data := (root / name).read_bytes()) and not data.endswith(b"\n")
        for name in (STEPS, EPISODES)
        if (root / name).exists()
    )


def check_whole(root: Path, acknowledged: set[str]) -> None:
    with RunStore(root):  # what a resume does first: a torn last line is cut off
        pass
    for name in (STEPS, EPISODES):
        data = (root / name).read_bytes()
        assert not data or data.endswith(b"\n"), f"{name} ends in a torn line"
    run = read_run(root, strict=True)
    assert not run.skipped and not run.invalid
    assert acknowledged <= set(run.episodes)  # nothing acknowledged is lost
    keys = [line.split('"key":"', 1)[1].split('"', 1)[0]
            for line in (root / EPISODES).read_text().splitlines()]  # fmt: skip
    assert len(keys) == len(set(keys)), "an episode was stored twice"
    for key in run.episodes:
        assert len(list(run.steps_of(key))) == 3, key


@pytest.mark.slow  # starts and kills processes: left out of make test-fast
def test_kills_at_any_point_lose_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(7)
    acknowledged: set[str] = set()
    for _ in range(KILLS):
        writer = start(tmp_path)
        assert writer.stdout is not None
        line = writer.stdout.readline().strip()  # wait for progress: each round moves on
        if not line:  # the writer finished before we could kill it
            writer.communicate()
            break
        acknowledged.add(line)
        time.sleep(rng.uniform(0, 0.01))  # then kill it somewhere in what follows
        writer.send_signal(signal.SIGKILL)
        rest, _ = writer.communicate()
        acknowledged |= {k for k in rest.split() if k}
        check_whole(tmp_path, acknowledged)
    final = start(tmp_path)
    out, _ = final.communicate(timeout=120)
    assert final.returncode == 0
    acknowledged |= set(out.split())
    check_whole(tmp_path, acknowledged)
    assert set(read_run(tmp_path, strict=True).episodes) == {
        f"t{i}#0" for i in range(EPISODES_PLANNED)
    }
