"""Gymnasium's ``check_env`` on every registered webdojo id (about 5 s each on 2 cores).

    python scripts/gym_check_all.py [--only PREFIX] [--json]

Prints one line per id that fails and a summary; exit 1 if any failed. The test suite checks
two built-in tasks and four MiniWoB++ pages (tests/environment/test_gym.py). Pages
drawn by wall-clock timers (chase-circle's moving circle, stock-market's ticker) can differ
between two runs of one seed: their content depends on how long the reset took.
"""

from __future__ import annotations

import argparse
import json
import time
import traceback
import warnings

import gymnasium as gym
from gymnasium.utils.env_checker import check_env

import webdojo  # noqa: F401  (registers the ids)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="webdojo/", help="check the ids with this prefix")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args()
    ids = sorted(i for i in gym.registry if i.startswith(args.only) and i.startswith("webdojo/"))
    failed: dict[str, str] = {}
    started = time.perf_counter()
    for env_id in ids:
        env = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env = gym.make(env_id)
                check_env(env.unwrapped)
        except Exception as exc:  # report every id, not only the first failure
            failed[env_id] = f"{type(exc).__name__}: {exc}"
            print(f"FAIL {env_id}: {failed[env_id]}\n{traceback.format_exc(limit=3)}", flush=True)
        finally:
            if env is not None:
                env.close()
    summary = {
        "ids": len(ids),
        "passed": len(ids) - len(failed),
        "failed": sorted(failed),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary) if args.json else summary)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
