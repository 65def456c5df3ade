"""What the environments of one event loop share: one browser and one site server.

Every ``webdojo.make`` environment in a process could hold its own Chromium; a trainer that
makes 64 of them would start 64 browsers. Instead the environments of an event loop share one
``InProcessEnv`` (one browser, relaunched if it dies, a fresh context per episode) and one
``SiteServer`` to which each environment adds the local sites its task needs. The first
environment of a loop starts them; the last one to close stops them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from webdojo.rollout.env_client import InProcessEnv
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import Site


@dataclass
class Runtime:
    """The browser and site server of one event loop, counted by their users."""

    loop: asyncio.AbstractEventLoop
    sites: SiteServer
    env: InProcessEnv
    users: int = 0
    served: set[str] = field(default_factory=set)

    def serve(self, sites: dict[str, Site]) -> None:
        """Serve these sites too (a site already served under its name is kept)."""
        for name, site in sites.items():
            if name not in self.served:
                self.sites.add(site)
                self.served.add(name)


_RUNTIMES: dict[asyncio.AbstractEventLoop, Runtime] = {}


def acquire(sites: dict[str, Site]) -> Runtime:
    """This event loop's runtime (started on first use), serving ``sites`` as well."""
    loop = asyncio.get_running_loop()
    runtime = _RUNTIMES.get(loop)
    if runtime is None:
        server = SiteServer({})
        runtime = _RUNTIMES[loop] = Runtime(loop, server, InProcessEnv(server))
    runtime.serve(sites)
    runtime.users += 1
    return runtime


async def release(runtime: Runtime) -> None:
    """One user fewer; the last one closes the browser and the site server."""
    runtime.users -= 1
    if runtime.users > 0:
        return
    del _RUNTIMES[runtime.loop]  # first: an environment made meanwhile starts a new one
    try:
        await runtime.env.aclose()
    finally:
        runtime.sites.close()
