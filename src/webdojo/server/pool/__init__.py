"""Where sessions live: the ``Pool`` protocol (``base``) and its implementations, one worker
in the server process (``inline``, ``--workers 0``), N worker processes (``local``) and Ray
actors (``ray_pool``), the last two on the shared placement, deadline and restart logic of
``managed``. Pools reach workers only through ``webdojo.server.worker``.
"""
