"""Serving the policy being trained behind the OpenAI chat-completions protocol.

The training loop rolls out with the same ``openai`` policy as every other run, so the model
it trains must answer at an OpenAI-compatible endpoint: vLLM when it is installed (a
subprocess, ``vllm_command``), else this module's small server, which runs a ``ModelBundle``
in-process with transformers. Either way the policy, the prompt template and the parser are
the ones of a real run.

The in-process server answers ``GET /v1/models`` and non-streaming ``POST
/v1/chat/completions`` (``messages``, ``max_tokens``, ``temperature``, ``top_p``, ``seed``) on
loopback. One generation runs at a time (a lock): a tiny model on a CPU gains nothing from
more, and a GPU user wants vLLM anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from webdojo.asgi import LOOPBACK, ThreadServer, free_port
from webdojo.errors import ModelError
from webdojo.models import ModelConfig


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str  # "stop" (end of turn) or "length" (max_tokens reached)


@dataclass(frozen=True)
class Sampling:
    max_tokens: int
    temperature: float
    top_p: float | None
    seed: int | None


Generate = Callable[[list[dict[str, Any]], Sampling], Completion]


class ChatRequest(BaseModel):
    """The part of the OpenAI request this server reads; other fields are accepted and ignored."""

    model_config = ConfigDict(extra="allow")

    model: str = ""
    messages: list[dict[str, Any]] = Field(min_length=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    temperature: float = Field(default=1.0, ge=0.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None


def chat_app(generate: Generate, model_name: str, max_tokens: int = 256) -> FastAPI:
    """The app: ``generate`` answers one request at a time, in a worker thread."""
    app = FastAPI(title="webdojo policy server", docs_url=None, redoc_url=None)
    lock = threading.Lock()

    def run(request: ChatRequest) -> Completion:
        with lock:
            return generate(
                request.messages,
                Sampling(
                    max_tokens=request.max_completion_tokens or request.max_tokens or max_tokens,
                    temperature=request.temperature,
                    top_p=request.top_p,
                    seed=request.seed,
                ),
            )

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": model_name, "object": "model", "owned_by": "webdojo"}],
        }

    @app.post("/v1/chat/completions")
    async def chat(request: ChatRequest) -> JSONResponse:
        if request.model and request.model != model_name:
            return _error(404, f"model {request.model!r} is not served here (only {model_name!r})")
        completion = await asyncio.to_thread(run, request)
        return JSONResponse(_response(completion, model_name))

    return app


def _response(completion: Completion, model_name: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model_name,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": completion.text},
                "finish_reason": completion.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "total_tokens": completion.prompt_tokens + completion.completion_tokens,
        },
    }


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": "invalid_request_error", "code": status}},
        status_code=status,
    )


class PolicyServer:
    """``chat_app`` in a daemon thread on loopback; ``model_config()`` points a policy at it."""

    def __init__(self, generate: Generate, model_name: str, max_tokens: int = 256) -> None:
        self.model_name = model_name
        self._server = ThreadServer(
            chat_app(generate, model_name, max_tokens), LOOPBACK, 0, lifespan="off"
        )

    @property
    def base_url(self) -> str:
        return f"{self._server.url}/v1"

    def model_config(self, **settings: Any) -> ModelConfig:
        """A config for this endpoint; ``settings`` (temperature, max_tokens...) override."""
        return ModelConfig(base_url=self.base_url, model=self.model_name, **settings)

    def __enter__(self) -> Self:
        self._server.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.stop()


def vllm_available() -> bool:
    return importlib.util.find_spec("vllm") is not None


class VllmServer:
    """vLLM's OpenAI server on a saved checkpoint, as a child process on loopback.

    Not exercised by our tests: vLLM needs a GPU, and this machine has neither it nor vLLM."""

    def __init__(self, checkpoint: Path, model_name: str, start_timeout_s: float = 600) -> None:
        self.model_name = model_name
        self.port = free_port()
        self.base_url = f"http://{LOOPBACK}:{self.port}/v1"
        self._command = vllm_command(checkpoint, self.port, model_name)
        self._timeout = start_timeout_s
        self._process: subprocess.Popen[bytes] | None = None

    def model_config(self, **settings: Any) -> ModelConfig:
        return ModelConfig(base_url=self.base_url, model=self.model_name, **settings)

    def __enter__(self) -> Self:
        self._process = subprocess.Popen(self._command)
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline and self._process.poll() is None:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return self
            time.sleep(1)
        self.__exit__(None, None, None)
        raise ModelError(f"vLLM did not start serving {self.base_url} (see its log above)")

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()


def vllm_command(checkpoint: Path, port: int, model_name: str) -> list[str]:
    """The vLLM server for a saved checkpoint, on loopback (used when vLLM is installed)."""
    return [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(checkpoint),
        "--served-model-name",
        model_name,
        "--host",
        LOOPBACK,
        "--port",
        str(port),
    ]
