"""A real HTTP server that speaks the OpenAI chat-completions protocol, for tests.

It runs a FastAPI app under uvicorn in a background thread on 127.0.0.1 (a free port) and
answers ``POST /v1/chat/completions``, ``GET /v1/models`` and ``POST /v1/images/generations``:

* replies come from a queue (``push``) or from a function of the request (``respond_with``);
  with neither, every request gets ``default_reply``;
* every request body is recorded (``requests``), so tests can check images, history, params;
* it can be told to fail: ``Reply(status=500)``, ``Reply(delay_s=...)`` (hang past a timeout),
  ``Reply(raw_body="{not json")``, ``Reply(choices=[])``, ``Reply(text=None)`` (no content);
* image generations answer ``image_png`` (a tiny PNG unless a test sets another) as b64_json,
  or an error with ``image_status``; their bodies are recorded in ``image_requests``.

Use it as a context manager or through the fixtures in ``tests/fakes/conftest_plugin.py``::

    with FakeOpenAIServer() as server:
        server.push("Action: ...", Reply(status=500))
        ModelConfig(base_url=server.base_url, model=server.model)
"""

from __future__ import annotations

import asyncio
import base64
import io
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from PIL import Image

from webdojo.asgi import free_port

FAKE_MODEL = "fake-model"


def tiny_png(color: str = "#c84") -> bytes:
    """An 8x8 PNG of one color."""
    out = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(out, "PNG")
    return out.getvalue()


@dataclass
class Reply:
    """What the server does for one request."""

    text: str | None = "ok"  # assistant content; None sends a message without content
    status: int = 200  # an HTTP error status sends an OpenAI-style error body instead
    delay_s: float = 0.0  # sleep before answering (to run past a client's timeout)
    raw_body: str | None = None  # send these bytes as-is (malformed JSON...)
    choices: list[Any] | None = None  # override the choices list (e.g. [] for "no choices")
    finish_reason: str = "stop"
    headers: dict[str, str] = field(default_factory=dict)  # e.g. {"retry-after": "0"}


Responder = Callable[[dict[str, Any]], "Reply | str"]


class FakeOpenAIServer:
    """See the module docstring. Thread-safe enough for tests: one lock guards the queue."""

    def __init__(self, model: str = FAKE_MODEL, default_reply: Reply | str = "ok") -> None:
        self.model = model
        self.default_reply = default_reply
        self.requests: list[dict[str, Any]] = []  # JSON bodies of chat requests, in order
        self.model_list_calls = 0
        self.image_requests: list[dict[str, Any]] = []  # JSON bodies of image generations
        self.image_png = tiny_png()  # what every image generation returns
        self.image_status = 200  # an HTTP error status fails image generations instead
        self.in_flight = 0  # chat requests (since the last reset) being answered right now
        self.max_in_flight = 0  # the most seen at once since the last reset
        self._generation = 0  # bumped by reset(): replies still hanging from before end early
        self._queue: deque[Reply | str] = deque()
        self._responder: Responder | None = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # --- scripting ------------------------------------------------------------------------

    def push(self, *replies: Reply | str) -> None:
        """Queue replies; each request takes the next one."""
        with self._lock:
            self._queue.extend(replies)

    def respond_with(self, fn: Responder | None) -> None:
        """Answer with ``fn(request_body)`` once the queue is empty."""
        self._responder = fn

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self._generation += 1
            self.in_flight = 0
            self.max_in_flight = 0
        self._responder = None
        self.model_list_calls = 0
        self.image_requests.clear()
        self.image_png, self.image_status = tiny_png(), 200

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def last_request(self) -> dict[str, Any]:
        return self.requests[-1]

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        config = uvicorn.Config(
            self._app(),
            host="127.0.0.1",
            port=0,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="fake-openai", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("fake OpenAI server did not start")
            time.sleep(0.01)
        sock = self._server.servers[0].sockets[0]
        self.port = sock.getsockname()[1]
        return self

    def stop(self) -> None:
        self._closing.set()  # cuts any hanging reply short
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the app --------------------------------------------------------------------------

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            queued = self._queue.popleft() if self._queue else None
        if queued is None:
            queued = self._responder(body) if self._responder else self.default_reply
        return Reply(text=queued) if isinstance(queued, str) else queued

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            self.model_list_calls += 1
            return {"object": "list", "data": [{"id": self.model, "object": "model",
                                                "created": 0, "owned_by": "webdojo-tests"}]}  # fmt: skip

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> Response:
            body = await request.json()
            generation = self._generation
            reply = self._next_reply(body)
            self._count(generation, +1)
            try:
                await self._sleep(reply.delay_s, generation)
            finally:
                self._count(generation, -1)
            return self._render(reply, body)

        @app.post("/v1/images/generations")
        async def images(request: Request) -> Response:
            body = await request.json()
            with self._lock:
                self.image_requests.append(body)
            if self.image_status >= 400:
                return self._render(Reply(status=self.image_status), body)
            data = [{"b64_json": base64.b64encode(self.image_png).decode()}]
            return JSONResponse({"created": int(time.time()), "data": data})

        return app

    def _count(self, generation: int, delta: int) -> None:
        with self._lock:
            if generation == self._generation:
                self.in_flight += delta
                self.max_in_flight = max(self.max_in_flight, self.in_flight)

    async def _sleep(self, seconds: float, generation: int) -> None:
        """Hang for ``seconds``, cut short by stop() or reset()."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self._closing.is_set():
            if generation != self._generation:
                return
            await asyncio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

    def _render(self, reply: Reply, body: dict[str, Any]) -> Response:
        if reply.raw_body is not None:
            return Response(reply.raw_body, reply.status, reply.headers, "application/json")
        if reply.status >= 400:
            error = {"error": {"message": f"fake failure {reply.status}", "type": "server_error",
                               "code": reply.status}}  # fmt: skip
            return JSONResponse(error, reply.status, reply.headers)
        return JSONResponse(self._completion(reply, body), reply.status, reply.headers)

    def _completion(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant"}
        if reply.text is not None:
            message["content"] = reply.text
        choices = reply.choices
        if choices is None:
            choices = [{"index": 0, "message": message, "finish_reason": reply.finish_reason}]
        prompt_tokens = len(str(body.get("messages", "")).split())
        completion_tokens = len((reply.text or "").split())
        return {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def unused_port() -> int:
    """A port nothing listens on (for connection-refused tests)."""
    return free_port()


# --- helpers for assertions ----------------------------------------------------------------


def image_urls(body: dict[str, Any]) -> list[str]:
    """Every image URL in a recorded request, in message order."""
    return [
        part["image_url"]["url"]
        for msg in body.get("messages", [])
        if isinstance(msg.get("content"), list)
        for part in msg["content"]
        if part.get("type") == "image_url"
    ]


def message_text(msg: dict[str, Any]) -> str:
    """The text of one message, whether its content is a string or a list of parts."""
    content = msg.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if p.get("type") == "text")
