"""Benchmarks: programs that print ratios against a baseline measured in the same run.
Nothing in ``server/`` or ``rollout/`` imports them.

* ``env_bench`` (``webdojo bench env``): the browser environment against raw Playwright.
* ``rollout_bench`` (``webdojo bench rollout``): the rollout system against its baselines,
  with ``rollout_legs`` (the legs) and ``rollout_report`` (the table).
* ``latency_bench``, ``transport_bench`` (``python -m webdojo.bench.<name>``): the server's
  step latency against in-process sessions, and JSON against msgpack on the wire; both share
  ``server_report``.
* ``worker_bench`` (``python -m webdojo.bench.worker_bench``): one server worker's
  per-operation queues against one FIFO, and warm against cold creates.
* ``volatile_site`` (with ``volatile_app``, ``volatile_manifest`` and ``volatile_assets/``): a
  local site full of volatile requests under fake host names, for the record/replay cache's
  benchmark; its manifest is the ground truth of which request fields change.
"""
