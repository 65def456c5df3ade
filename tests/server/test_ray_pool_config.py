"""RayPoolConfig without a cluster: validation, and which address the driver gives Ray."""

from __future__ import annotations

import pytest

from webdojo.errors import ConfigError
from webdojo.server.pool.ray_pool import RayPool, RayPoolConfig
from webdojo.server.serve import build_pool


@pytest.mark.parametrize(
    ("address", "driver_ip"),
    [
        (None, "127.0.0.1"),  # a private Ray instance stays on loopback
        ("auto", "127.0.0.1"),
        ("127.0.0.1:6379", "127.0.0.1"),
        ("localhost:6379", "127.0.0.1"),
        ("[::1]:6379", "127.0.0.1"),
        ("10.0.0.5:6379", None),  # a real cluster: Ray picks this machine's address
        ("head.example:6379", None),
        ("ray://127.0.0.1:10001", None),  # Ray Client runs no node here
    ],
)
def test_driver_ip_keeps_a_local_cluster_on_loopback(
    address: str | None, driver_ip: str | None
) -> None:
    assert RayPoolConfig(address=address).driver_ip() == driver_ip


def test_explicit_node_ip_wins() -> None:
    assert RayPoolConfig(address="auto", node_ip_address="10.1.2.3").driver_ip() == "10.1.2.3"


def test_bad_configs_are_config_errors() -> None:
    with pytest.raises(ConfigError):
        RayPoolConfig(workers=0)
    with pytest.raises(ConfigError):
        RayPoolConfig(num_cpus=-1)


def test_serve_builds_a_ray_pool_from_its_flags() -> None:
    pool = build_pool(3, "127.0.0.1:6379", num_cpus=0.5)
    assert isinstance(pool, RayPool)
    assert (pool.config.address, pool.config.workers, pool.config.num_cpus) == (
        "127.0.0.1:6379",
        3,
        0.5,
    )
    assert pool.stats().workers == 3 and pool.stats().workers_alive == 0  # nothing started
    assert build_pool(0, "auto").stats().workers == 1  # --workers 0 with --ray: one actor
