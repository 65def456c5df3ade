"""The HTTP front of the server: the FastAPI app (``app``), the versioned wire protocol
(``protocol``), how request bodies are read (``request_body``, strict JSON) and how responses
travel (``transport``), the middlewares, webdojo errors as HTTP responses (``http_errors``),
the book of sessions (``registry``), what each route does (``service``) and the Prometheus
metrics. Clients (``webdojo.rollout.http_env``) import only
``protocol`` and ``transport``, the wire format.
"""
