"""One worker and how a pool reaches it. ``core.Worker`` owns a browser (``browsers``: warm
contexts, recycling) behind per-operation queues (``queues``), configured by ``config``. A
pool holds a ``handle.WorkerHandle`` on it: a local process (``process``, which runs
``python -m webdojo.server.worker.main`` and talks ``ipc``) or a Ray actor (``ray_actor``).

This package must stay light to import: worker processes import it first.
"""
