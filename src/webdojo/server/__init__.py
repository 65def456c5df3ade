"""The environment server (``webdojo serve``): browser sessions for trainers over HTTP.

``api/`` is the HTTP front (FastAPI app, wire protocol, middleware, errors, session
bookkeeping); ``pool/`` places sessions on workers (in this process, in worker processes or in
Ray actors); ``worker/`` is one worker (a browser behind per-operation queues) and how a pool
reaches it. ``serve.py`` builds a pool and the app and runs them under uvicorn;
``child_process.py`` runs ``webdojo serve`` as a child process. Nothing here imports the
rollout engine, the benchmarks, the viewer, the checks or the CLI (``docs/architecture.md``).
"""
