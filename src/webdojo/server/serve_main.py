"""``python -m webdojo.server.serve_main``: the server as a process, without the Typer CLI.

Tests and benchmarks start the real server this way; ``webdojo serve`` calls the same
``serve()`` with the same flags.
"""

from __future__ import annotations

import argparse
import sys

from webdojo.errors import WebdojoError
from webdojo.server.serve import DEFAULT_HOST, DEFAULT_PORT, serve


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="webdojo-serve", description=__doc__)
    p.add_argument("--host", default=DEFAULT_HOST)
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="0 = any free port")
    p.add_argument("--workers", type=int, default=0, help="0 = sessions in this process")
    p.add_argument("--max-sessions", type=int, default=64)
    p.add_argument("--token", default=None, help="bearer token (required off loopback)")
    p.add_argument("--ray", dest="ray_address", default=None, help="auto or HOST:PORT")
    p.add_argument("--tasks", default="builtin", help="task spec served by task id")
    p.add_argument("--idle-ttl", type=float, default=300.0, help="session lease, seconds")
    p.add_argument("--action-timeout", type=float, default=10.0)
    p.add_argument("--navigation-timeout", type=float, default=15.0)
    p.add_argument("--log-level", default="warning")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        serve(
            host=args.host,
            port=args.port,
            workers=args.workers,
            max_sessions=args.max_sessions,
            token=args.token,
            ray_address=args.ray_address,
            tasks=args.tasks,
            idle_ttl_s=args.idle_ttl,
            action_timeout_s=args.action_timeout,
            navigation_timeout_s=args.navigation_timeout,
            log_level=args.log_level,
        )
    except WebdojoError as exc:
        print(f"error {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
