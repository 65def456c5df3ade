"""RayPool on a real two-node Ray cluster on loopback (``ray.cluster_utils.Cluster``).

Two nodes with one CPU each, and actors that need one CPU: the two workers must land on
different nodes. The first test spreads sessions, kills one actor with ``ray.kill`` and
watches its capacity come back; the second runs ``webdojo serve --ray ADDRESS`` as a real
process against the same cluster. The cluster is set up per DESIGN.md ("Ray on one machine,
on loopback only"). If Ray cannot start here, the fixture fails with Ray's own error.
"""

from __future__ import annotations

import os
import tempfile

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # must be set before Ray is imported

from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest
import ray
from _pool_fixtures import FAST, Site, serve_site, wait_until
from ray.cluster_utils import Cluster

from webdojo.actions import Click
from webdojo.errors import NetworkBlocked, SessionLost, UnknownSession
from webdojo.observation import ObservationOptions
from webdojo.server.child_process import ServerProcess
from webdojo.server.pool.ray_pool import RayPool, RayPoolConfig
from webdojo.server.worker.core import WorkerConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

SHOT = ObservationOptions()
PATIENT_S = 180.0  # placing an actor and launching its Chromium on a loaded 2-core machine


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A head node and a second node, one CPU each, all on 127.0.0.1; yields its address."""
    head = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False}
    local = Cluster(initialize_head=True, head_node_args=head)
    try:
        local.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        local.wait_for_nodes()
        ray.init(address=local.address, _node_ip_address="127.0.0.1")
        yield local.address
    finally:
        ray.shutdown()
        local.shutdown()


def _running(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _config(address: str) -> RayPoolConfig:
    return RayPoolConfig(
        address=address,
        workers=2,
        num_cpus=1,  # one node's whole CPU: the two actors cannot share a node
        worker=WorkerConfig(warm_contexts=1, warm_options=FAST),
        start_timeout_s=PATIENT_S,
    )


async def test_sessions_spread_over_nodes_and_a_killed_actor_comes_back(
    cluster: str, site: Site
) -> None:
    pool = RayPool(_config(cluster))
    try:
        await pool.start()
        nodes = pool.nodes()
        assert sorted(nodes) == ["ray-0", "ray-1"]
        assert len(set(nodes.values())) == 2  # one actor per node

        by_worker: dict[str, list[str]] = {}
        for _ in range(4):
            session_id, worker, obs = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
            assert obs.title == "Counter"
            assert isinstance(obs.screenshot, bytes) and obs.screenshot[:2] == b"\xff\xd8"  # JPEG
            by_worker.setdefault(worker, []).append(session_id)
        assert pool.stats().sessions_by_worker == {"ray-0": 2, "ray-1": 2}
        assert sorted(pool.sessions_by_node()) == sorted(nodes.values())  # both nodes host
        assert set(pool.sessions_by_node().values()) == {2}
        for sessions in by_worker.values():
            for session_id in sessions:
                obs = await pool.step(session_id, Click(x=5, y=5), SHOT)
                assert obs.last_error is None

        # A webdojo error raised inside the actor comes back as itself, not as RayTaskError.
        with pytest.raises(NetworkBlocked) as refused:
            await pool.create("http://127.0.0.1:9/", FAST, SHOT)  # not an allowed origin
        assert type(refused.value).__module__ == "webdojo.errors"
        assert refused.value.code == type(refused.value).code

        # Kill one actor: its sessions are lost, the other node's keep working.
        doomed, spared = by_worker["ray-0"], by_worker["ray-1"]
        restarts = pool.stats().restarts
        actors = await pool.worker_stats()
        browser = psutil.Process(actors["ray-0"]["pid"]).children(recursive=True)  # + Chromium
        assert browser
        tmpdirs = [Path(actors[name]["tmpdir"]) for name in ("ray-0", "ray-1")]
        assert all(path.is_dir() for path in tmpdirs)  # each actor has its own TMPDIR
        assert any(
            tmpdirs[0].glob("webdojo-host-*/playwright_chromiumdev_profile-*")
        )  # the browser's profile
        ray.kill(ray.get_actor(pool.actor_names()["ray-0"]))
        with pytest.raises(SessionLost) as lost:
            await pool.step(doomed[0], Click(x=5, y=5), SHOT)
        assert lost.value.retryable and lost.value.code == "session_lost"
        with pytest.raises(SessionLost):
            await pool.observe(doomed[1], SHOT)
        for session_id in spared:
            obs = await pool.step(session_id, Click(x=5, y=5), SHOT)
            assert obs.last_error is None

        # Capacity comes back: a replacement actor (the freed CPU is on the same node).
        await wait_until(
            lambda: pool.stats().workers_alive == 2 and pool.stats().restarts == restarts + 1,
            "the killed actor is replaced",
            timeout_s=PATIENT_S,
        )
        assert len(set(pool.nodes().values())) == 2
        await wait_until(lambda: not any(map(_running, browser)), "its Chromium exits too")
        # The replacement swept the killed actor's TMPDIR and the profile in it.
        await wait_until(lambda: not tmpdirs[0].exists(), "the killed actor's TMPDIR goes")
        tmpdirs.append(Path((await pool.worker_stats())["ray-0"]["tmpdir"]))
        session_id, worker, obs = await pool.create(site.page(), FAST.allowing(site.url), SHOT)
        assert worker == "ray-0"  # the replacement has the fewest sessions
        assert (await pool.step(session_id, Click(x=5, y=5), SHOT)).last_error is None

        for old in [*doomed, *spared, session_id]:
            await pool.close(old)  # a lost session is simply forgotten
        assert pool.stats().sessions == 0
        with pytest.raises(UnknownSession):
            await pool.close(doomed[0])
        names = list(pool.actor_names().values())
    finally:
        await pool.aclose()
    for name in names:  # the actors are gone with the pool
        with pytest.raises(ValueError):
            ray.get_actor(name)
    assert [path for path in tmpdirs if path.exists()] == []  # each removed at shutdown


def test_serve_with_ray_runs_sessions_on_the_cluster(cluster: str, site: Site) -> None:
    """``serve --ray ADDRESS`` as a real process: a second Ray driver joins the cluster. On
    SIGTERM it shuts down in order (``ray.init`` would make SIGTERM exit at once), so its
    actors remove their TMPDIRs."""
    args = ["--ray", cluster, "--workers", "2", "--navigation-timeout", "10", "--log-level", "info"]
    args += ["--allow-host", site.url]  # the test site, as an operator allows a local server
    before = set(Path(tempfile.gettempdir()).glob("webdojo-worker-*-ray-*"))
    with (
        ServerProcess(args, start_timeout_s=PATIENT_S) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        health = client.get("/v1/health").json()
        assert health["workers"] == 2 and health["workers_alive"] == 2
        created = client.post("/v1/sessions", json={"start_url": site.page()})
        assert created.status_code == 201, created.text
        body = created.json()
        assert body["worker"] in {"ray-0", "ray-1"}
        assert body["observation"]["title"] == "Counter"
        session = body["session_id"]
        step = client.post(
            f"/v1/sessions/{session}/step",
            json={"step_index": 0, "action": {"type": "click", "x": 5, "y": 5}},
        )
        assert step.status_code == 200, step.text
        assert step.json()["observation"]["last_error"] is None
        assert client.delete(f"/v1/sessions/{session}").status_code == 204
    assert "Application shutdown complete" in server.log(), server.log()[-3000:]
    assert set(Path(tempfile.gettempdir()).glob("webdojo-worker-*-ray-*")) <= before
