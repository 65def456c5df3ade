"""What an agent sees after each step, and the options that say what to capture.

Every observation carries a screenshot (JPEG unless PNG is asked for), the URL, the title, the
tab list, the dialogs that were auto-dismissed since the last step, and the previous action's
error, and the downloads that ended since the last step (kept or refused: ``downloads``). On
request it also carries:

* ``axtree``: accessibility-tree text in BrowserAgent's format, one ``[id] role 'name'`` line per
  node, consecutive static text merged; ``viewport`` mode keeps only what is on screen.
* ``elements``: the interactive elements with their ids and boxes (set-of-marks list). With
  ``marks=True`` the ids are also drawn onto the screenshot.

``page_done`` is the page's own word that its episode is over: a page sets the global
``window.__webdojo_done = true`` (``PAGE_DONE_GLOBAL``; MiniWoB++ pages do through webdojo's
page script) and the episode ends with outcome ``done``. False for every other page.

Element ids are the same in ``axtree`` and ``elements`` and stay stable within one page state;
element actions (``click(element=...)``) accept exactly these ids.
"""

from __future__ import annotations

import io
import math
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from webdojo.errors import ErrorInfo  # the errors package owns it; re-exported from here

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

PAGE_DONE_GLOBAL = "__webdojo_done"  # the page global read into ``Observation.page_done``


class ImageFormat(StrEnum):
    JPEG = "jpeg"
    PNG = "png"


class AxTreeMode(StrEnum):
    NONE = "none"
    VIEWPORT = "viewport"  # only nodes that intersect the visible viewport
    FULL = "full"  # the whole page


class ObservationOptions(BaseModel):
    """What to capture. Cheap by default: a screenshot and page metadata only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    screenshot: bool = True
    image_format: ImageFormat = ImageFormat.JPEG
    jpeg_quality: int = Field(default=80, ge=1, le=100)
    axtree: AxTreeMode = AxTreeMode.NONE
    elements: bool = False  # include the interactive-element list
    marks: bool = False  # draw element ids on the screenshot (implies elements)

    def wants_elements(self) -> bool:
        return self.elements or self.marks or self.axtree is not AxTreeMode.NONE


class Box(BaseModel):
    """An element's bounding box in viewport CSS pixels (same as screenshot pixels)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    x: float
    y: float
    width: float
    height: float

    def center(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2


class Element(BaseModel):
    """One interactive element: what set-of-marks shows and element actions accept."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    role: str  # ARIA role, explicit or implied by the tag (button, link, textbox, ...)
    name: str  # accessible name (label, aria-label, text, placeholder, alt, title)
    tag: str  # lowercase tag name
    box: Box
    in_viewport: bool
    html_id: str | None = None  # the element's DOM id attribute, if any
    value: str | None = None  # current value of inputs, selects and textareas
    checked: bool | None = None  # checkboxes and radios
    options: list[str] | None = None  # option labels of a <select>


class Tab(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    url: str
    title: str
    active: bool


class DownloadInfo(BaseModel):
    """A download a page made: kept in the session's download directory, or refused (``error``
    set, nothing kept)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str  # the file name the site suggested (on disk the file has a random name)
    url: str
    bytes: int  # size kept on disk; for a refused one, what had arrived when it was stopped
    error: ErrorInfo | None = None  # download_too_large, too_many_downloads


class Observation(BaseModel):
    # bytes travel as base64 in JSON (the wire protocol); in Python they stay raw bytes
    model_config = ConfigDict(
        extra="forbid", frozen=True, ser_json_bytes="base64", val_json_bytes="base64"
    )

    url: str
    title: str
    tabs: list[Tab]
    viewport_width: int
    viewport_height: int
    screenshot: bytes | None = None  # encoded image, marks drawn in if options.marks
    image_format: ImageFormat = ImageFormat.JPEG
    axtree: str | None = None
    elements: list[Element] | None = None
    dialogs: list[str] = Field(default_factory=list)  # messages of dialogs auto-dismissed
    last_error: ErrorInfo | None = None  # the previous action's error, if it failed
    page_done: bool = False  # the page says its episode is over (``PAGE_DONE_GLOBAL``)
    timings_ms: dict[str, float] = Field(default_factory=dict)  # capture cost per part
    downloads: list[DownloadInfo] = Field(default_factory=list)  # ended since the last one

    def element_ids(self) -> frozenset[int] | None:
        return None if self.elements is None else frozenset(e.id for e in self.elements)

    def find_element(self, element_id: int) -> Element | None:
        return next((e for e in self.elements or [] if e.id == element_id), None)

    def screenshot_rgb(self, max_side: int | None = None, *, lazy: bool = False) -> PILImage | None:
        """The screenshot decoded into an RGB image (None without one). A JPEG is decoded
        straight into RGB, with no conversion pass and no copy: adapters do this every step.
        ``max_side``: shrink to fit; a JPEG is then decoded at the smallest of its reduced
        scales (1/2, 1/4, 1/8) that is still at least that size, which costs a fraction of a
        full decode. ``lazy``: an RGB JPEG that needs no shrinking is returned opened but not
        yet decoded; PIL decodes it at the first access to its pixels (a model's processor,
        once), so a step that hands the image on does not pay for the decode."""
        if self.screenshot is None:
            return None
        from PIL import Image  # not every user of observations decodes images

        opened = Image.open(io.BytesIO(self.screenshot))
        fit = _fit(opened.size, max_side)
        opened.draft("RGB", fit)
        if lazy and opened.mode == "RGB" and opened.size == fit:
            return opened
        opened.load()
        image = opened if opened.mode == "RGB" else opened.convert("RGB")
        if max_side is not None:
            image.thumbnail((max_side, max_side))
        return image


def _fit(size: tuple[int, int], max_side: int | None) -> tuple[int, int]:
    """``size`` shrunk to fit a ``max_side`` square (never grown), aspect kept, rounded up."""
    if max_side is None or max(size) <= max_side:
        return size
    scale = max_side / max(size)
    return (math.ceil(size[0] * scale), math.ceil(size[1] * scale))


class FinalState(BaseModel):
    """What verifiers see: captured once at the end of an episode, before the context closes.

    Verifiers are pure functions of this record, so they can be re-run from the store.
    """

    model_config = ConfigDict(extra="forbid")

    url: str
    title: str = ""
    storage: dict[str, Any] = Field(default_factory=dict)  # localStorage, JSON values parsed
    text: str = ""  # visible text of the page body, capped
    answer: str | None = None  # the agent's stop(answer), None if it never stopped
    crashed: bool = False  # the page had crashed: only the URL is known, nothing to verify
