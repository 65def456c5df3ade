"""When each test file ran in each test process, and what that says about the suite's time:
the harness behind docs/benchmarks.md's "The test suite".

As a pytest plugin, it appends one JSON line per file run (file, process, start, end, tests)
and one per process at its end to ``$SUITE_TIMELINE`` (default ``suite-timeline.jsonl``):

    PYTHONPATH=scripts .venv/bin/python -m pytest -n 2 --dist loadfile -p suite_timeline

Then ``python scripts/suite_timeline.py [FILE] [--top 10]`` prints each process's time in
tests and when it finished, and the longest files with their running total.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

_PATH = os.environ.get("SUITE_TIMELINE", "suite-timeline.jsonl")
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
_current: dict[str, Any] = {}
_logging = [True]  # False in pytest-xdist's controller: its workers log their own files


def pytest_configure(config: Any) -> None:
    controller = not hasattr(config, "workerinput") and config.getoption("dist", "no") != "no"
    _logging[0] = not controller


def _write(line: dict[str, Any]) -> None:
    with open(_PATH, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    if not _logging[0]:
        return
    name = nodeid.split("::")[0]
    if _current.get("file") != name:
        if _current:
            _write({**_current, "worker": _WORKER})
        _current.clear()
        _current.update(file=name, start=time.time(), end=time.time(), tests=0)


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    if _current:
        _current["end"] = time.time()
        _current["tests"] += 1


def pytest_sessionfinish(session: object, exitstatus: int) -> None:
    if not _logging[0]:
        return
    if _current:
        _write({**_current, "worker": _WORKER})
    _write({"finished": time.time(), "worker": _WORKER})


def report(path: Path, top: int) -> None:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    runs = [line for line in lines if "file" in line]
    finished = {line["worker"]: line["finished"] for line in lines if "finished" in line}
    by_worker: dict[str, float] = defaultdict(float)
    by_file: dict[str, float] = defaultdict(float)
    for run in runs:
        by_worker[run["worker"]] += run["end"] - run["start"]
        by_file[run["file"]] += run["end"] - run["start"]
    last = max(finished.values(), default=0.0)
    for worker in sorted(by_worker):
        early = last - finished.get(worker, last)
        print(
            f"{worker}: {by_worker[worker]:.0f} s in tests, finished {early:.0f} s before the last"
        )
    print(f"{len(by_file)} files, {sum(by_file.values()):.0f} s in all")
    total = 0.0
    for name, seconds in sorted(by_file.items(), key=lambda item: -item[1])[:top]:
        total += seconds
        print(f"{seconds:7.1f} {total:7.0f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=_PATH, type=Path)
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    report(args.path, args.top)


if __name__ == "__main__":
    main()
