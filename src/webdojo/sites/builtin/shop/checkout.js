// Checkout: address form, delivery method, coupon validation, place order -> shop.orders.
(function () {
  "use strict";
  var S = window.Shop;
  var FIELDS = ["name", "email", "street", "city", "postcode", "country"];

  function shippingChoice() {
    var r = document.querySelector('input[name="shipping"]:checked');
    return r ? r.value : "standard";
  }
  function shippingInfo(id) {
    for (var i = 0; i < SHIPPING.length; i++) if (SHIPPING[i].id === id) return SHIPPING[i];
    return SHIPPING[0];
  }

  // Returns {ok, message, coupon} for a code against the current subtotal.
  function checkCoupon(code, subtotal) {
    var c = COUPONS[code];
    if (!code) return { ok: false, message: "Enter a coupon code first." };
    if (!c) return { ok: false, message: "Sorry, " + code + " is not a valid coupon code." };
    if (c.kind === "expired") return { ok: false, message: code + " expired on " + c.expired + "." };
    if (subtotal < c.min) return { ok: false, message: code + " needs a subtotal of at least " + S.money(c.min) + "." };
    return { ok: true, message: "Coupon " + code + " applied: " + c.label + "." };
  }

  function totals() {
    var cart = S.cart();
    var subtotal = S.cartSubtotal(cart);
    var code = S.load("coupon", null);
    var discount = 0, freeShip = false;
    if (code) {
      var chk = checkCoupon(code, subtotal);
      if (!chk.ok) { code = null; } else if (COUPONS[code].kind === "percent") {
        discount = S.round2(subtotal * COUPONS[code].value / 100);
      } else { freeShip = true; }
    }
    var ship = shippingInfo(shippingChoice());
    var shipCost = freeShip ? 0 : ship.cost;
    return { cart: cart, subtotal: subtotal, coupon: code, discount: discount, shipping: ship.id,
      shippingCost: shipCost, total: S.round2(subtotal - discount + shipCost) };
  }

  function renderSummary() {
    var t = totals();
    var keys = Object.keys(t.cart);
    document.getElementById("summary-lines").innerHTML = keys.length ? keys.map(function (k) {
      var l = t.cart[k];
      var opts = [l.colour ? S.cap(l.colour) : "", l.size || ""].filter(Boolean).join(", ");
      return '<p class="row small"><span>' + l.qty + " &times; " + S.esc(l.name) + (opts ? " (" + S.esc(opts) + ")" : "") +
        "</span><span>" + S.money(S.round2(l.qty * l.unitPrice)) + "</span></p>";
    }).join("") : '<p class="muted" id="checkout-empty">Your cart is empty.</p>';
    document.getElementById("sum-subtotal").textContent = S.money(t.subtotal);
    document.getElementById("sum-discount").textContent = t.discount ? "-" + S.money(t.discount) : "$0.00";
    document.getElementById("sum-shipping").textContent = t.shippingCost ? S.money(t.shippingCost) : "Free";
    document.getElementById("sum-total").textContent = S.money(t.total);
    document.getElementById("place-order").disabled = keys.length === 0;
    document.getElementById("coupon-remove").hidden = !t.coupon;
  }

  function value(f) { return document.getElementById("ship-" + f).value.trim(); }

  function validate() {
    var errors = {};
    if (value("name").length < 2) errors.name = "Please enter the recipient's full name.";
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value("email"))) errors.email = "Please enter a valid email address.";
    if (value("street").length < 3) errors.street = "Please enter a street address.";
    if (value("city").length < 2) errors.city = "Please enter a town or city.";
    if (value("postcode").length < 3) errors.postcode = "Please enter a postcode or ZIP code.";
    if (!value("country")) errors.country = "Please choose a country.";
    FIELDS.forEach(function (f) {
      document.getElementById("err-" + f).textContent = errors[f] || "";
      document.getElementById("ship-" + f).setAttribute("aria-invalid", errors[f] ? "true" : "false");
    });
    return Object.keys(errors).length === 0;
  }

  function placeOrder() {
    var banner = document.getElementById("form-error");
    var t = totals();
    if (!Object.keys(t.cart).length) return;
    if (!validate()) {
      banner.hidden = false;
      banner.textContent = "Please fix the highlighted fields before placing your order.";
      return;
    }
    banner.hidden = true;
    var address = {};
    FIELDS.forEach(function (f) { address[f] = value(f); });
    var orders = S.load("orders", []);
    var canon = Object.keys(t.cart).sort().map(function (k) { return k + "x" + t.cart[k].qty; }).join(",") +
      "|" + t.shipping + "|" + (t.coupon || "") + "|" +
      FIELDS.map(function (f) { return address[f].toLowerCase(); }).join("|") + "|" + orders.length;
    var number = "HH-" + (10000 + (S.hash(canon) % 90000));
    var count = 0;
    for (var k in t.cart) count += t.cart[k].qty;
    orders.push({
      number: number, date: SHOP_TODAY, status: "confirmed", items: t.cart, itemCount: count,
      subtotal: t.subtotal, coupon: t.coupon, discount: t.discount, shipping: t.shipping,
      shippingCost: t.shippingCost, total: t.total, address: address
    });
    S.save("orders", orders);
    S.save("cart", {});
    window.localStorage.removeItem("shop.coupon");
    window.location.href = "order.html?number=" + encodeURIComponent(number);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var country = document.getElementById("ship-country");
    COUNTRIES.forEach(function (c) {
      var o = document.createElement("option"); o.value = c; o.textContent = c; country.appendChild(o);
    });
    document.getElementById("shipping-options").innerHTML = SHIPPING.map(function (s, i) {
      return '<label class="radio-card" for="ship-' + s.id + '"><input type="radio" name="shipping" id="ship-' + s.id + '" value="' + s.id + '"' +
        (i === 0 ? " checked" : "") + "> <span><strong>" + s.name + "</strong> &middot; " + s.detail + "</span><span class=\"cost\">" +
        (s.cost ? S.money(s.cost) : "Free") + "</span></label>";
    }).join("");
    document.getElementById("shipping-options").addEventListener("change", renderSummary);

    var msg = document.getElementById("coupon-msg");
    var saved = S.load("coupon", null);
    if (saved) {
      document.getElementById("coupon-input").value = saved;
      var again = checkCoupon(saved, S.cartSubtotal(S.cart()));
      msg.textContent = again.message;
      msg.className = again.ok ? "ok" : "error";
    }
    document.getElementById("coupon-apply").addEventListener("click", function () {
      var code = document.getElementById("coupon-input").value.trim().toUpperCase();
      var chk = checkCoupon(code, S.cartSubtotal(S.cart()));
      msg.textContent = chk.message;
      msg.className = chk.ok ? "ok" : "error";
      if (chk.ok) S.save("coupon", code); else window.localStorage.removeItem("shop.coupon");
      renderSummary();
    });
    document.getElementById("coupon-input").addEventListener("keydown", function (e) {
      if (e.key === "Enter") { e.preventDefault(); document.getElementById("coupon-apply").click(); }
    });
    document.getElementById("coupon-remove").addEventListener("click", function () {
      window.localStorage.removeItem("shop.coupon");
      document.getElementById("coupon-input").value = "";
      msg.textContent = "Coupon removed."; msg.className = "";
      renderSummary();
    });
    document.getElementById("place-order").addEventListener("click", placeOrder);
    renderSummary();
  });
})();
