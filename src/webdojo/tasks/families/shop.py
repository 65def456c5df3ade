"""Task families on the built-in shop (Hearth & Hue): its catalogue is read from ``data.js``.

``shop-cart-pair``: put two given variants (product, colour, size) in given quantities in an
empty cart, starting from the catalogue. 20,340 instances.

``shop-cart-coupon``: starting on a product's page, put one given variant of it in a given
quantity (typed, up to a dozen) in an empty cart, go to checkout and apply a given coupon code
that is valid for that subtotal (the coupon rules are read from ``data.js`` too). 1,231
instances.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import Any

from webdojo.tasks.families.family import Family, Instance
from webdojo.tasks.families.steps import click
from webdojo.tasks.loader import builtin_root

SITE = "shop"
MAX_QTY = 3  # quantities 1..3: every variant chosen has at least this much stock
MAX_TYPED_QTY = 12  # shop-cart-coupon's quantities: 1 to a dozen, within the stock
_PRICE_STOCK = re.compile(
    r'\{ id: "(?P<id>[^"]+)".*?price: (?P<price>[\d.]+),.*?stock: (?P<stock>\d+)'
)
_COUPON = re.compile(r'(?P<code>[A-Z0-9]+): \{ kind: "(?P<kind>[a-z]+)",[^}]*?min: (?P<min>[\d.]+)')
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
        out = [click(f"link-{self.product}")]
        if self.colour:
            out.append(click(f"colour-{self.colour}"))
        if self.size:
            out.append(
                {"type": "select", "target": {"html_id": "size-select"}, "option": self.size}
            )
        out += [click("qty-inc")] * (qty - 1)
        return [*out, click("add-to-cart"), click("nav-shop")]


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


def cart_pair(pair: tuple[Variant, Variant], qty1: int, qty2: int) -> Instance:
    first, second = pair
    checks = [
        {"kind": "storage", "key": "shop.cart", "path": "", "op": "len_eq", "value": 2},
        {
            "kind": "storage",
            "key": "shop.cart",
            "path": f"{first.key}.qty",
            "op": "eq",
            "value": qty1,
        },
        {
            "kind": "storage",
            "key": "shop.cart",
            "path": f"{second.key}.qty",
            "op": "eq",
            "value": qty2,
        },
    ]
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


# --- shop-cart-coupon -----------------------------------------------------------------------


@functools.cache
def _catalogue() -> tuple[dict[str, tuple[float, int]], dict[str, float]]:
    """Every product's (price, stock), and the least subtotal each unexpired coupon takes."""
    text = (builtin_root() / SITE / "data.js").read_text(encoding="utf-8")
    products = {m["id"]: (float(m["price"]), int(m["stock"])) for m in _PRICE_STOCK.finditer(text)}
    coupons = {m["code"]: float(m["min"]) for m in _COUPON.finditer(text) if m["kind"] != "expired"}
    return products, coupons


@functools.cache
def coupon_orders() -> tuple[tuple[Variant, int, str], ...]:
    """(variant, quantity, coupon code) where the coupon accepts that subtotal."""
    products, coupons = _catalogue()
    found = []
    for variant in variants():
        price, stock = products[variant.product]
        for qty in range(1, min(stock, MAX_TYPED_QTY) + 1):
            subtotal = round(price * qty, 2)  # the shop's round2 of the cart subtotal
            found += [
                (variant, qty, c) for c, least in sorted(coupons.items()) if subtotal >= least
            ]
    return tuple(found)


def _to_checkout(variant: Variant, qty: int) -> list[dict[str, Any]]:
    """From the product's page: choose its options, type the quantity, add it, and go to
    checkout through the cart."""
    out = variant.steps(1)[1:-2]  # the options (not the catalogue's link, add, back)
    if qty > 1:
        out.append({"type": "type", "target": {"html_id": "qty-input"}, "text": str(qty)})
    return [*out, click("add-to-cart"), click("nav-cart"), click("checkout-btn")]


def cart_coupon(order: tuple[Variant, int, str]) -> Instance:
    variant, qty, code = order
    stock = _catalogue()[0][variant.product][1]
    wrong_qty = qty + 1 if qty < stock else qty - 1
    apply = {"type": "type", "target": {"html_id": "coupon-input"}, "text": code, "enter": True}
    checks: list[dict[str, Any]] = [
        {"kind": "storage", "key": "shop.cart", "path": "", "op": "len_eq", "value": 1},
        {
            "kind": "storage",
            "key": "shop.cart",
            "path": f"{variant.key}.qty",
            "op": "eq",
            "value": qty,
        },
        {"kind": "storage", "key": "shop.coupon", "path": "", "op": "eq", "value": code},
    ]
    return Instance(
        instruction=f"Add {qty} x {variant.label} to your cart, then go to checkout and apply "
        f"the coupon code {code}.",
        solution=[*_to_checkout(variant, qty), apply, {"type": "stop"}],
        wrong_solutions=[
            [*_to_checkout(variant, qty), {"type": "stop"}],  # the coupon is never applied
            [*_to_checkout(variant, wrong_qty), apply, {"type": "stop"}],  # wrong quantity
        ],
        checks=checks,
        start_url=f"product.html?id={variant.product}",  # a short task: no catalogue search
        params={"variant": variant.key, "qty": qty, "coupon": code},
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
    Family(
        name="shop-cart-coupon",
        site=SITE,
        summary="add one product variant in a given quantity to the cart and apply a given "
        "coupon at checkout",
        axes=(coupon_orders(),),
        build=cart_coupon,
        max_steps=11,
        tags=("cart", "checkout", "coupon"),
    ),
]
