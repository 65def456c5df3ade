"""Where a command's CPU goes, by kind of process: the map behind "The test suite" in
docs/benchmarks.md.

    python3 scripts/suite_cpu.py [--json FILE] -- make test

Samples /proc five times a second while the command runs and sums, by kind (the test
processes, `webdojo` commands they start, Playwright's node drivers, Chromium's browser,
renderer, GPU and other processes, ...), the CPU of every process that runs under it, and
counts how many of each kind it started. Only the standard library: it runs before `make`
has built a virtualenv. A process that ends between two samples loses at most its last fifth
of a second; one that lives less than that is not seen at all.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def kind_of(pid: str) -> str:
    """A process's kind, from its command line."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone"
    args = raw.replace(b"\0", b" ").decode(errors="replace")
    if "playwright/driver/node" in args:
        return "node driver"
    if "chromium" in args:
        kind = args.split("--type=")[1].split()[0] if "--type=" in args else "browser"
        return f"chromium {kind}"
    if "pytest" in args or "xdist" in args:
        return "pytest"
    if "webdojo.cli" in args or "/bin/webdojo" in args:
        return "webdojo command"
    if "python" in args.split(" ")[0]:
        return "python, other"
    return "other: " + args.split(" ")[0].rsplit("/", 1)[-1][:30]


def stat(pid: str) -> tuple[int, str, float] | None:
    """(parent, start time, CPU seconds so far) of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[19], (int(fields[11]) + int(fields[12])) / TICKS


class Sampler:
    """CPU per process of the tree under ``root``, keyed by (pid, start time)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.inside: set[int] = {root}
        self.seen: dict[tuple[str, str], list] = {}  # key -> [kind, cpu]

    def sample(self) -> None:
        found = {}
        for pid in os.listdir("/proc"):
            if pid.isdigit() and (info := stat(pid)) is not None:
                found[int(pid)] = info
        for pid in sorted(found):  # parents mostly have lower pids than their children
            parent, start, cpu = found[pid]
            if pid not in self.inside and parent in self.inside:
                self.inside.add(pid)
            if pid in self.inside:
                entry = self.seen.setdefault((str(pid), start), [kind_of(str(pid)), 0.0])
                entry[1] = max(entry[1], cpu)

    def table(self) -> dict[str, dict[str, float]]:
        cpu: collections.Counter[str] = collections.Counter()
        started: collections.Counter[str] = collections.Counter()
        for kind, seconds in self.seen.values():
            cpu[kind] += seconds
            started[kind] += 1
        return {k: {"cpu_s": round(cpu[k], 1), "started": started[k]} for k, _ in cpu.most_common()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the table here")
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to measure after --")
    start = time.monotonic()
    proc = subprocess.Popen(command)
    sampler = Sampler(proc.pid)
    while proc.poll() is None:
        sampler.sample()
        time.sleep(args.interval)
    wall = time.monotonic() - start
    table = sampler.table()
    total = sum(row["cpu_s"] for row in table.values())
    for kind, row in table.items():
        print(f"{row['cpu_s']:9.1f} s {row['cpu_s'] / total:6.1%} {row['started']:6d}  {kind}")
    print(f"{total:9.1f} s CPU in {wall:.0f} s: {total / wall:.2f} of {os.cpu_count()} cores busy")
    if args.json:
        result = {"wall_s": round(wall, 1), "cpu_s": round(total, 1), "kinds": table}
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
