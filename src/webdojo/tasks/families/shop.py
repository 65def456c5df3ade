"""Task families on the built-in shop (Hearth & Hue): its catalogue is read from ``data.js``.

``shop-cart-pair``: put two given variants (product, colour, size) in given quantities in an
empty cart, starting from the catalogue. 20,340 instances.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import Any

from webdojo.tasks.families.family import Family, Instance
from webdojo.tasks.loader import builtin_root

SITE = "shop"
MAX_QTY = 3  # quantities 1..3: every variant chosen has at least this much stock
_PRODUCT = re.compile(
    r'\{ id: "(?P<id>[^"]+)", name: "(?P<name>[^"]+)".*?stock: (?P<stock>\d+), '
    r"colours: \[(?P<colours>[^\]]*)\], sizes: \[(?P<sizes>[^\]]*)\]"
)


@dataclass(frozen=True)
class Variant:
    """One orderable variant of a product: the cart line it makes is ``key``."""

    product: str
    name: str
    colour: str | None
    size: str | None

    @property
    def key(self) -> str:  # the shop's lineKey: id/colour/size, the options slugged
        return "/".join([self.product, *(_slug(p) for p in (self.colour, self.size) if p)])

    @property
    def label(self) -> str:
        extras = [p for p in (self.colour and self.colour.capitalize(), self.size) if p]
        return self.name + (f" ({', '.join(extras)})" if extras else "")

    def steps(self, qty: int) -> list[dict[str, Any]]:
        """From the catalogue: open the product, choose its options, set the quantity, add it,
        and go back to the catalogue."""
        out = [_click(f"link-{self.product}")]
        if self.colour:
            out.append(_click(f"colour-{self.colour}"))
        if self.size:
            out.append(
                {"type": "select", "target": {"html_id": "size-select"}, "option": self.size}
            )
        out += [_click("qty-inc")] * (qty - 1)
        return [*out, _click("add-to-cart"), _click("nav-shop")]


@functools.cache
def variants() -> tuple[Variant, ...]:
    """Every variant of every product with at least ``MAX_QTY`` in stock."""
    text = (builtin_root() / SITE / "data.js").read_text(encoding="utf-8")
    found = []
    for match in _PRODUCT.finditer(text):
        if int(match["stock"]) < MAX_QTY:
            continue
        colours = re.findall(r'"([^"]+)"', match["colours"]) or [None]
        sizes = re.findall(r'"([^"]+)"', match["sizes"]) or [None]
        for colour, size in itertools.product(colours, sizes):
            found.append(Variant(match["id"], match["name"], colour, size))
    return tuple(found)


@functools.cache
def pairs() -> tuple[tuple[Variant, Variant], ...]:
    """Ordered pairs of variants of two different products."""
    return tuple((a, b) for a in variants() for b in variants() if a.product != b.product)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _click(html_id: str) -> dict[str, Any]:
    return {"type": "click", "target": {"html_id": html_id}}


def cart_pair(pair: tuple[Variant, Variant], qty1: int, qty2: int) -> Instance:
    first, second = pair
    checks = [
        {"kind": "storage", "key": "shop.cart", "path": "", "op": "len_eq", "value": 2},
        {"kind": "storage", "key": "shop.cart", "path": f"{first.key}.qty", "op": "eq", "value": qty1},
        {"kind": "storage", "key": "shop.cart", "path": f"{second.key}.qty", "op": "eq", "value": qty2},
    ]  # fmt: skip
    wrong_qty = max(1, qty2 - 1) if qty2 > 1 else qty2 + 1
    return Instance(
        instruction=f"Add {qty1} x {first.label} and {qty2} x {second.label} to the cart.",
        solution=[*first.steps(qty1), *second.steps(qty2), {"type": "stop"}],
        wrong_solutions=[
            [*first.steps(qty1), {"type": "stop"}],  # the second item is missing
            [*first.steps(qty1), *second.steps(wrong_qty), {"type": "stop"}],  # wrong quantity
        ],
        checks=checks,
        params={"first": first.key, "second": second.key, "qty1": qty1, "qty2": qty2},
    )


FAMILIES = [
    Family(
        name="shop-cart-pair",
        site=SITE,
        summary="add two given product variants in given quantities to the cart",
        axes=(pairs(), range(1, MAX_QTY + 1), range(1, MAX_QTY + 1)),
        build=cart_pair,
        max_steps=20,
        tags=("cart",),
    ),
]
