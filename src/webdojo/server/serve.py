"""``webdojo serve``: build the pool and the app, and run them under uvicorn.

Pools: ``workers == 0`` runs sessions in this process (``InlinePool``); ``workers >= 1`` starts
that many worker processes (``LocalPool``); ``ray_address`` (``auto`` or ``HOST:PORT``) puts
the workers in Ray actors (``RayPool``). The last two are imported only when asked for.

The socket is bound here, before uvicorn starts, so that a busy port is a clear error and
``port=0`` yields the real port, printed as ``listening on http://HOST:PORT`` (the first line
on stdout, which ``ServerProcess`` reads). uvicorn runs on uvloop and httptools where they are
installed (``asgi.fast_io``): they take about a millisecond of CPU off every request.
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import secrets
from typing import Any

from webdojo.asgi import bind_tcp, fast_io, make_server, run_blocking, url_of
from webdojo.browser.netpolicy import NetworkPolicy
from webdojo.browser.options import SessionOptions
from webdojo.envs.wiki_server import serve_qa
from webdojo.errors import ConfigError
from webdojo.server.api.app import ServerSettings, create_app
from webdojo.server.api.connections import ConnectionLimits, guarded_http, raise_open_file_limit
from webdojo.server.pool.base import Pool
from webdojo.server.worker.config import WorkerConfig
from webdojo.tasks.loader import TaskSet, load_spec
from webdojo.tasks.qa_tasks import load_qa_tasks

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8700


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def check_exposure(host: str, token: str | None) -> None:
    """Refuse to serve browsers to the network without a token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"binding {host} exposes browsers to the network: give a bearer token "
            f"(--token {secrets.token_urlsafe(24)} for example) or bind 127.0.0.1"
        )


def build_pool(workers: int, ray_address: str | None, **pool_options: Any) -> Pool:
    """The pool for these flags. ``pool_options`` go to LocalPool / RayPool as they are; the
    in-process pool takes their ``worker`` (its ``WorkerConfig``) only."""
    if workers < 0:
        raise ConfigError(f"--workers must be 0 or more, not {workers}")
    if ray_address is not None:
        from webdojo.server.pool.ray_pool import RayPool  # ray is heavy; import only when asked

        return RayPool(address=ray_address, workers=max(1, workers), **pool_options)
    if workers == 0:
        from webdojo.server.pool.inline import InlinePool

        # a killed server's profile is swept by the next
        return InlinePool(pool_options.get("worker"), own_tmpdir=True)
    from webdojo.server.pool.local import LocalPool

    return LocalPool(workers=workers, **pool_options)


def checked_retirement(max_worker_sessions: int, workers: int, ray_address: str | None) -> int:
    """``--max-worker-sessions`` as given, refused where it cannot apply."""
    if max_worker_sessions < 0:
        raise ConfigError(f"--max-worker-sessions must be 0 or more, not {max_worker_sessions}")
    if max_worker_sessions and workers == 0 and ray_address is None:
        raise ConfigError(
            "--max-worker-sessions needs --workers N or --ray: the server's "
            "own process (--workers 0) cannot be replaced"
        )
    return max_worker_sessions


@dataclasses.dataclass(frozen=True)
class ServeOptions:
    """What ``webdojo serve`` runs with (its flags). ``spare_browser``: each worker keeps a
    browser launched ahead; ``warm_preload``: warm pages load the latest start page ahead
    (both ``WorkerConfig``). ``max_worker_sessions``: each worker is replaced after that many
    sessions (0: never; None: the pool's default, ``DEFAULT_MAX_WORKER_SESSIONS``). ``wiki``:
    see ``served_tasks``. ``openenv``: also OpenEnv's WebSocket protocol at ``/ws``.
    ``read_timeout_s``, ``max_connections_per_client``: the bounds on stalled and crowding
    clients (``api/connections.py``)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    workers: int = 0
    max_sessions: int = 64
    token: str | None = None
    ray_address: str | None = None
    tasks: str = "builtin"
    idle_ttl_s: float = 300.0
    action_timeout_s: float = 10.0
    navigation_timeout_s: float = 15.0
    log_level: str = "warning"
    pool_options: dict[str, Any] | None = None  # to the pool as they are (build_pool)
    archive: str | None = None  # every session replays it: no request reaches the network
    network: NetworkPolicy | None = None
    spare_browser: bool = False
    warm_preload: bool = True
    max_download_mb: float = 50.0  # per session, in its own temp directory
    max_downloads: int = 20
    max_worker_sessions: int | None = None
    wiki: str | None = None
    openenv: bool = False
    read_timeout_s: float = 10.0
    max_connections_per_client: int = 256

    def session(self) -> SessionOptions:
        return SessionOptions(
            action_timeout_s=self.action_timeout_s,
            navigation_timeout_s=self.navigation_timeout_s,
            archive=self.archive,
            network=self.network or NetworkPolicy(),
            max_download_mb=self.max_download_mb,
            max_downloads=self.max_downloads,
        )

    def pool(self) -> Pool:
        options = _pool_options(
            self.pool_options,
            self.workers,
            self.ray_address,
            self.spare_browser,
            self.max_worker_sessions,
            self.warm_preload,
        )
        return build_pool(self.workers, self.ray_address, **options)


def serve(options: ServeOptions) -> None:
    """Serve until interrupted (Ctrl-C / SIGTERM close every session and the pool)."""
    check_exposure(options.host, options.token)
    connections = ConnectionLimits(options.read_timeout_s, options.max_connections_per_client)
    with contextlib.ExitStack() as stack:  # the wiki's server, if any, until we stop
        task_set, own_origins = served_tasks(options.tasks, options.wiki, stack)
        settings = ServerSettings(
            max_sessions=options.max_sessions,
            idle_ttl_s=options.idle_ttl_s,
            token=options.token,
            session=options.session().allowing(*own_origins),
            openenv=options.openenv,
        )
        app = create_app(options.pool(), task_set, settings)
        sock = bind_tcp(options.host, options.port)
        raise_open_file_limit()  # sockets, and the browsers' files, past a 1,024 default
        http = guarded_http(connections)
        print(f"listening on {url_of(sock)}", flush=True)
        run_blocking(make_server(app, options.log_level, **(fast_io() | {"http": http})), sock)


def _pool_options(
    given: dict[str, Any] | None,
    workers: int,
    ray_address: str | None,
    spare_browser: bool,
    max_worker_sessions: int | None,
    warm_preload: bool = True,
) -> dict[str, Any]:
    options = dict(given or {})
    if max_worker_sessions is not None:
        options["max_worker_sessions"] = checked_retirement(
            max_worker_sessions, workers, ray_address
        )
    if spare_browser and workers > 0:  # the in-process pool (0) has no worker to configure
        worker = options.get("worker") or WorkerConfig()
        options["worker"] = dataclasses.replace(worker, spare_browser=True)
    if not warm_preload:
        worker = options.get("worker") or WorkerConfig()
        options["worker"] = dataclasses.replace(worker, warm_preload=False)
    return options


def served_tasks(
    tasks: str, wiki: str | None, stack: contextlib.ExitStack
) -> tuple[TaskSet, tuple[str, ...]]:
    """The tasks the server runs and the origins of the env's own servers besides its site
    server. With a ``wiki`` ZIM (served here until ``stack`` closes): QA tasks in any format
    ``webdojo tasks import`` reads, each starting at the wiki's search page, as in
    ``webdojo run --wiki``; a client runs them by id with ``run --server URL --wiki``."""
    if wiki is None:
        return load_spec(tasks), ()
    task_set, origin = serve_qa(load_qa_tasks(tasks), wiki, stack)
    return task_set, (origin,)
