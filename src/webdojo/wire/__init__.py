"""The server's wire format, which the server and its clients share: the request and response
models of the HTTP API (``protocol.py``) and how bodies are encoded, msgpack or JSON
(``transport.py``). It sits below both, so that a client never imports the server."""
