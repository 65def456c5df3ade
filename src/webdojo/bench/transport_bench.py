"""How should screenshots travel? base64 inside JSON against raw bytes in msgpack, measured.

Two parts, on real 1280x720 observations of the built-in sites (JPEG q80 and PNG):

* ``codec``: for each format and transport, the bytes of a StepResponse on the wire, the
  server's encode time (model -> body) and the client's decode time (body -> model);
* ``e2e``: step latency through a real ``webdojo serve --workers 0`` process on loopback
  (uvicorn, httpx), one session, the two transports taking turns step by step, with the
  part that is not browser work (client time minus the pool's time) reported separately.

``python -m webdojo.bench.transport_bench`` prints the table; ``run_transport_bench()``
returns it as a dict. Benchmarks report, they do not assert.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx

from webdojo.actions import Click
from webdojo.bench.pages import COUNTER_XY, write_pages
from webdojo.bench.server_report import bench_main, percentiles_ms, table
from webdojo.bench.static import StaticServer
from webdojo.browser import BrowserHost, SessionOptions
from webdojo.observation import ImageFormat, Observation, ObservationOptions
from webdojo.server.child_process import ServerProcess
from webdojo.sites.server import SiteServer
from webdojo.tasks.loader import load_spec
from webdojo.wire.protocol import StepInfo, StepResponse
from webdojo.wire.transport import JSON, MSGPACK, decode, encode

FORMATS = {
    "jpeg": ObservationOptions(image_format=ImageFormat.JPEG, jpeg_quality=80),
    "png": ObservationOptions(image_format=ImageFormat.PNG),
}
TRANSPORTS = {"json": JSON, "msgpack": MSGPACK}


def _summary(values_s: list[float]) -> dict[str, float]:
    return percentiles_ms(values_s, (50, 90), digits=3)


# --- codec ------------------------------------------------------------------------------


async def capture_observations() -> dict[str, list[Observation]]:
    """The start page of every built-in site, as JPEG and as PNG."""
    task_set = load_spec("builtin")
    out: dict[str, list[Observation]] = {name: [] for name in FORMATS}
    with SiteServer(task_set.sites) as sites:
        async with await BrowserHost.launch() as host:
            for site in sorted(task_set.sites):
                session = await host.new_session(SessionOptions().allowing(sites.base_url))
                try:
                    await session.goto(sites.url_for(site, "index.html"))
                    for name, options in FORMATS.items():
                        out[name].append(await session.observe(options))
                finally:
                    await session.aclose()
    return out


def _timed(fn: Callable[[], object], reps: int) -> float:
    """Median seconds of one call."""
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def codec_bench(observations: dict[str, list[Observation]], reps: int = 30) -> dict[str, Any]:
    """Bytes, encode and decode time of a StepResponse per image format and transport."""
    result: dict[str, Any] = {}
    for fmt, obs_list in observations.items():
        for transport, media in TRANSPORTS.items():
            sizes, enc, dec = [], [], []
            for obs in obs_list:
                response = StepResponse(step_index=0, observation=obs, done=False, info=StepInfo())
                body = encode(response, media)
                sizes.append(len(body))
                enc.append(_timed(lambda r=response, m=media: encode(r, m), reps))  # type: ignore[misc]
                dec.append(_timed(lambda b=body, m=media: decode(StepResponse, b, m), reps))  # type: ignore[misc]
            shots = [len(o.screenshot or b"") for o in obs_list]
            result[f"{fmt}/{transport}"] = {
                "screenshot_kb": round(statistics.mean(shots) / 1024, 1),
                "body_kb": round(statistics.mean(sizes) / 1024, 1),
                "encode_ms": round(statistics.mean(enc) * 1000, 3),
                "decode_ms": round(statistics.mean(dec) * 1000, 3),
            }
    return result


# --- end to end -------------------------------------------------------------------------


async def e2e_bench(steps: int = 60, warmup: int = 5) -> dict[str, Any]:
    """Step latency through a server process, the two transports alternating each step."""
    samples: dict[str, list[float]] = {}
    overhead: dict[str, list[float]] = {}
    with TemporaryDirectory() as tmp:
        write_pages(Path(tmp))
        with (
            StaticServer(tmp) as pages,
            ServerProcess(["--workers", "0", "--allow-host", pages.base_url]) as server,
        ):
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                for fmt, options in FORMATS.items():
                    await _e2e_format(
                        client, pages.url("a.html"), fmt, options, steps, warmup, samples, overhead
                    )
    return {
        key: {**_summary(values), "overhead_p50_ms": _summary(overhead[key])["p50_ms"]}
        for key, values in samples.items()
    }


async def _e2e_format(
    client: httpx.AsyncClient,
    url: str,
    fmt: str,
    options: ObservationOptions,
    steps: int,
    warmup: int,
    samples: dict[str, list[float]],
    overhead: dict[str, list[float]],
) -> None:
    body = {"start_url": url, "observation": options.model_dump(mode="json")}
    created = await client.post("/v1/sessions", json=body)
    created.raise_for_status()
    path = f"/v1/sessions/{created.json()['session_id']}/step"
    click = Click(x=COUNTER_XY[0], y=COUNTER_XY[1]).model_dump(mode="json")
    order = list(TRANSPORTS.items())
    index = 0
    try:
        for i in range(warmup + steps):
            for transport, media in order if i % 2 else order[::-1]:
                start = time.perf_counter()
                reply = await client.post(
                    path, json={"step_index": index, "action": click}, headers={"accept": media}
                )
                reply.raise_for_status()
                step = decode(StepResponse, reply.content, reply.headers["content-type"])
                took = time.perf_counter() - start
                index += 1
                if i >= warmup:
                    key = f"{fmt}/{transport}"
                    samples.setdefault(key, []).append(took)
                    pool_s = step.info.timings_ms.get("pool", 0.0) / 1000
                    overhead.setdefault(key, []).append(took - pool_s)
    finally:
        await client.delete(path.removesuffix("/step"))


async def run_transport_bench(steps: int = 60, reps: int = 30) -> dict[str, Any]:
    observations = await capture_observations()
    return {"codec": codec_bench(observations, reps), "e2e": await e2e_bench(steps)}


def render(result: dict[str, Any]) -> str:
    codec, e2e = result["codec"], result["e2e"]
    cells = ["screenshot_kb", "body_kb", "encode_ms", "decode_ms"]
    lines = ["codec (mean over the built-in sites' start pages, 1280x720)"]
    columns = {"shot KB": 8, "body KB": 8, "encode ms": 10, "decode ms": 10}
    lines += table(14, columns, [(k, [r[c] for c in cells]) for k, r in codec.items()])
    lines.append("end to end through webdojo serve --workers 0 (click + observation)")
    columns = {"p50 ms": 8, "p90 ms": 8, "non-browser p50 ms": 19}
    cells = ["p50_ms", "p90_ms", "overhead_p50_ms"]
    lines += table(14, columns, [(k, [r[c] for c in cells]) for k, r in e2e.items()])
    return "\n".join(lines)


def main() -> None:
    bench_main(__doc__ or "", run_transport_bench, render, steps=60)


if __name__ == "__main__":
    main()
