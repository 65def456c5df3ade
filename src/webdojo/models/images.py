"""An image model behind an OpenAI-compatible endpoint: ``POST /v1/images/generations`` with
``response_format="b64_json"``, one picture per call.

``ImageClient`` is a ``ModelClient`` (same config, concurrency cap, retries, deadline and error
translation: every failure leaves as ``ModelError``/``ModelTimeout``) whose one call is
``generate``. It always hands back PNG bytes: a server that answers in another format (JPEG,
WebP) is converted, one that sends no decodable image is a ``ModelError``.
"""

from __future__ import annotations

import base64
import binascii
import io
import time
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from webdojo.errors import ModelError
from webdojo.models.client import ModelClient

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class ImageResult:
    """One generated picture."""

    png: bytes  # the image as PNG
    prompt: str  # the description it was asked for
    latency_s: float = 0.0  # wall time of the call, retries included, queueing excluded
    model: str = ""  # the image model asked
    attempts: int = 1  # 1 + the number of retries it took


class ImageClient(ModelClient):
    """``async with ImageClient(ModelConfig(base_url=..., model="image-model")) as images``.
    The config's model must be named: an endpoint's model list says nothing of which one draws."""

    async def __aenter__(self) -> ImageClient:
        return self

    async def generate(self, prompt: str, *, size: str = "512x512") -> ImageResult:
        model = self.config.model
        if not model:
            raise ModelError("no image model named (pass its name, e.g. --image-model)")
        extra = dict(self.config.extra_body)
        async with self._semaphore:
            start = time.perf_counter()
            response, attempts = await self._retrying(
                lambda: self._client.images.generate(
                    model=model,
                    prompt=prompt,
                    n=1,
                    size=size,
                    response_format="b64_json",
                    extra_body=extra or None,
                )
            )
            latency = time.perf_counter() - start
        png = _png_of(response, self.config.base_url, attempts)
        return ImageResult(png, prompt, latency, model, attempts)


def _png_of(response: object, url: str, attempts: int) -> bytes:
    data = getattr(response, "data", None) or []
    encoded = getattr(data[0], "b64_json", None) if data else None
    if not isinstance(encoded, str) or not encoded:
        raise ModelError(f"image endpoint {url} sent no b64_json image", url=url, attempts=attempts)
    try:
        raw = base64.b64decode(encoded, validate=True)
        if raw.startswith(PNG_SIGNATURE):
            return raw
        with Image.open(io.BytesIO(raw)) as image:  # another format: make it a PNG
            out = io.BytesIO()
            image.save(out, "PNG")
            return out.getvalue()
    except (binascii.Error, ValueError, OSError, UnidentifiedImageError) as exc:
        raise ModelError(
            f"image endpoint {url} sent an image that does not decode: {exc}",
            url=url,
            attempts=attempts,
        ) from exc
