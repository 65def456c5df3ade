"""``Observation.screenshot_rgb``: what adapters decode every step (Gymnasium's array, TRL's
PIL image). Shrinking while decoding must give the image a full decode and a resize would."""

from __future__ import annotations

import io
import pickle

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFile, ImageOps

from webdojo.observation import Observation


def _screenshot(size: tuple[int, int] = (1280, 720), image_format: str = "JPEG") -> bytes:
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for x in range(0, size[0], 40):  # stripes and text: detail a reduced-scale decode could lose
        draw.rectangle((x, 0, x + 19, size[1]), fill=(x % 255, 90, 200))
        draw.text((x + 2, 300), "webdojo", fill="black")
    out = io.BytesIO()
    image.save(out, image_format, quality=80)
    return out.getvalue()


def _obs(screenshot: bytes | None) -> Observation:
    return Observation(
        url="http://127.0.0.1/",
        title="",
        tabs=[],
        viewport_width=1280,
        viewport_height=720,
        screenshot=screenshot,
    )


def test_full_size_by_default() -> None:
    image = _obs(_screenshot()).screenshot_rgb()
    assert image is not None and image.mode == "RGB" and image.size == (1280, 720)


@pytest.mark.parametrize("max_side", [1000, 640, 512, 300, 150])
def test_shrunk_while_decoding_matches_a_full_decode_then_a_resize(max_side: int) -> None:
    data = _screenshot()
    shrunk = _obs(data).screenshot_rgb(max_side)
    full = Image.open(io.BytesIO(data)).convert("RGB")
    full.thumbnail((max_side, max_side))
    assert shrunk is not None and shrunk.size == full.size
    assert max(shrunk.size) == max_side
    # the same picture: JPEG's reduced scales average blocks where the resize filters (Lanczos),
    # a few levels out of 255 on fine stripes; another picture is far off
    assert _mean_difference(shrunk, full) < 10
    assert _mean_difference(shrunk, ImageOps.invert(full)) > 60


def _mean_difference(a: Image.Image, b: Image.Image) -> float:
    levels = ImageChops.difference(a, b).convert("L").histogram()
    return sum(level * count for level, count in enumerate(levels)) / (a.width * a.height)


def test_never_grown_and_png_works_too() -> None:
    small = _obs(_screenshot((320, 200))).screenshot_rgb(512)
    assert small is not None and small.size == (320, 200)
    png = _obs(_screenshot(image_format="PNG")).screenshot_rgb(640)
    assert png is not None and png.size == (640, 360) and png.mode == "RGB"


def test_no_screenshot() -> None:
    assert _obs(None).screenshot_rgb(64) is None


def test_lazy_is_decoded_at_first_use_into_the_same_picture() -> None:
    data = _screenshot()
    lazy = _obs(data).screenshot_rgb(lazy=True)
    assert lazy is not None and lazy.mode == "RGB" and lazy.size == (1280, 720)
    assert isinstance(lazy, ImageFile.ImageFile) and lazy.tile  # not decoded yet
    assert _mean_difference(lazy, Image.open(io.BytesIO(data)).convert("RGB")) == 0
    assert not lazy.tile  # decoded by the first pixel access
    restored = pickle.loads(pickle.dumps(_obs(data).screenshot_rgb(lazy=True)))
    assert restored.size == (1280, 720) and restored.mode == "RGB"


def test_lazy_still_decodes_what_it_must_shrink_or_convert() -> None:
    halved = _obs(_screenshot()).screenshot_rgb(640, lazy=True)  # JPEG's own 1/2 scale
    assert isinstance(halved, ImageFile.ImageFile) and halved.tile and halved.size == (640, 360)
    shrunk = _obs(_screenshot()).screenshot_rgb(512, lazy=True)  # 1/2 scale, then a resize
    assert shrunk is not None and shrunk.size == (512, 288)
    assert not isinstance(shrunk, ImageFile.ImageFile) or not shrunk.tile
    grey = io.BytesIO()
    Image.new("L", (64, 64), 128).save(grey, "JPEG")
    converted = _obs(grey.getvalue()).screenshot_rgb(lazy=True)
    assert converted is not None and converted.mode == "RGB"
