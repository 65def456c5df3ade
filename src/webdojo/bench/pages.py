"""The benchmark's pages: a small shop listing (about 100 interactive elements) in two copies,
``a.html`` and ``b.html``, that link to each other. The buttons the benchmark clicks sit at
fixed positions so that raw Playwright and webdojo click exactly the same pixels."""

from __future__ import annotations

from pathlib import Path

COUNTER_XY = (80, 30)  # centre of the in-page button (#inc)
LINK_XY = (240, 30)  # centre of the link to the other page (#next)

_ITEM = """
<article class="item">
  <h3>{name}</h3>
  <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Photo of {name}" width="48" height="48">
  <p>A sturdy {name}, hand-made from recycled materials. Ships in {days} days.</p>
  <p class="price">${price}.00</p>
  <label>Qty <input type="number" value="1" min="1" name="qty{i}"></label>
  <button onclick="this.textContent = 'Added'">Add to cart</button>
  <a href="#item{i}">Details</a>
</article>"""

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Shop {page}</title>
<style>
  body {{ margin: 0; font: 14px sans-serif; }}
  header {{ position: fixed; top: 0; left: 0; right: 0; height: 60px; background: #f4f4f4; z-index: 1; }}
  #inc {{ position: absolute; left: 20px; top: 10px; width: 120px; height: 40px; }}
  #next {{ position: absolute; left: 180px; top: 20px; width: 120px; height: 20px; }}
  #count {{ position: absolute; left: 340px; top: 20px; }}
  main {{ margin-top: 70px; display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; padding: 12px; }}
  .item {{ border: 1px solid #ddd; padding: 8px; border-radius: 6px; transition: background 200ms; }}
  .item:hover {{ background: #fafafa; }}
</style></head>
<body>
<header>
  <button id="inc" onclick="const c = document.getElementById('count'); c.textContent = +c.textContent + 1">Add one</button>
  <a id="next" href="{other}">Go to {other}</a>
  <span id="count">0</span>
  <input aria-label="Search" placeholder="Search" style="position:absolute; left: 420px; top: 16px">
  <select aria-label="Sort" style="position:absolute; left: 620px; top: 16px">
    <option>Price</option><option>Name</option><option>Newest</option>
  </select>
</header>
<main>{items}</main>
</body></html>"""

_NAMES = ["lamp", "chair", "desk", "shelf", "mug", "rug", "clock", "vase"]


def page_html(page: str, other: str, items: int = 24) -> str:
    body = "".join(
        _ITEM.format(name=_NAMES[i % len(_NAMES)], i=i, days=1 + i % 5, price=10 + i * 3)
        for i in range(items)
    )
    return _PAGE.format(page=page, other=other, items=body)


def write_pages(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "a.html").write_text(page_html("A", "b.html"), encoding="utf-8")
    (directory / "b.html").write_text(page_html("B", "a.html"), encoding="utf-8")
