"""A run store writer for the kill test: resumes ``ROOT`` like ``webdojo run`` does (finished
episodes skipped), then writes EPISODES episodes of 3 large steps each, printing each episode's
key once ``append_episode`` has returned (acknowledged). Run as a script by the test."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_builders import episode, step

from webdojo.store.run_reader import read_run
from webdojo.store.run_store import RunStore

PADDING = "x" * 500_000  # lines that take a while to write: kills land inside them


def main(root: Path, episodes: int) -> None:
    done = set(read_run(root, strict=True).episodes)
    with RunStore(root) as store:
        for i in range(episodes):
            key = f"t{i}#0"
            if key in done:
                continue
            uid = f"{key}-{len(done)}"  # a new attempt id per resume, as the engine makes
            for index in range(3):
                store.append_step(step(uid, index, key=key, text=f"{index} {PADDING}"))
            store.append_episode(episode(key, True, episode=uid))
            print(key, flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
