"""Prometheus metrics of one server (``GET /metrics``).

Each app gets its own ``CollectorRegistry``, so that several apps in one process (tests, the
benchmarks) never share or clash over counters. Point-in-time figures (sessions by state, queue
depths, workers, restarts) are read from the registry and the pool at scrape time by a custom
collector, so they can never drift from the truth; events (latencies, errors, sessions
opened/ended) are counted as they happen.

    webdojo_sessions{state}                 gauge     open | done | lost
    webdojo_max_sessions                    gauge
    webdojo_queue_depth{op}                 gauge     per operation type, all workers
    webdojo_workers / webdojo_workers_alive gauge
    webdojo_worker_restarts_total           counter   from the pool
    webdojo_workers_retired_total           counter   planned replacements, from the pool
    webdojo_operation_seconds{op}           histogram create | step | observe | final_state | close
    webdojo_errors_total{code}              counter   every error response, by stable code
    webdojo_sessions_opened_total           counter
    webdojo_sessions_ended_total{reason}    counter   closed | expired | lost
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from webdojo.server.pool.base import PoolStats

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# a step is ~30 ms, a navigation ~100 ms, a cold create ~200 ms, a timeout 10-15 s
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class _Live(Collector):
    """Figures read at scrape time."""

    def __init__(
        self,
        sessions: Callable[[], dict[str, int]],
        stats: Callable[[], PoolStats],
        max_sessions: int,
    ) -> None:
        self._sessions = sessions
        self._stats = stats
        self._max_sessions = max_sessions

    def collect(self) -> Iterable[Metric]:
        sessions = GaugeMetricFamily(
            "webdojo_sessions", "Sessions held by the server, by state", labels=["state"]
        )
        for state, n in self._sessions().items():
            sessions.add_metric([state], n)
        yield sessions
        yield GaugeMetricFamily(
            "webdojo_max_sessions", "Admission limit (--max-sessions)", value=self._max_sessions
        )
        stats = self._stats()
        queues = GaugeMetricFamily(
            "webdojo_queue_depth", "Operations waiting or running, by type", labels=["op"]
        )
        for op, n in sorted(stats.queue_depth.items()):
            queues.add_metric([op], n)
        yield queues
        yield GaugeMetricFamily("webdojo_workers", "Workers in the pool", value=stats.workers)
        yield GaugeMetricFamily(
            "webdojo_workers_alive", "Workers currently alive", value=stats.workers_alive
        )
        yield CounterMetricFamily(
            "webdojo_worker_restarts", "Worker (or browser) restarts", value=stats.restarts
        )
        yield CounterMetricFamily(
            "webdojo_workers_retired",
            "Workers replaced after --max-worker-sessions sessions",
            value=stats.retired,
        )


class ServerMetrics:
    def __init__(
        self,
        sessions: Callable[[], dict[str, int]],
        stats: Callable[[], PoolStats],
        max_sessions: int,
    ) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(_Live(sessions, stats, max_sessions))
        self.latency = Histogram(
            "webdojo_operation_seconds",
            "Server-side latency of each operation, pool work included",
            ["op"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.errors = Counter(
            "webdojo_errors", "Error responses by stable code", ["code"], registry=self.registry
        )
        self.opened = Counter("webdojo_sessions_opened", "Sessions created", registry=self.registry)
        self.ended = Counter(
            "webdojo_sessions_ended",
            "Sessions ended, by reason",
            ["reason"],
            registry=self.registry,
        )

    @contextlib.contextmanager
    def timed(self, op: str) -> Iterator[None]:
        """Observe the operation's latency, whether it succeeds or fails."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.latency.labels(op).observe(time.perf_counter() - start)

    def error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
