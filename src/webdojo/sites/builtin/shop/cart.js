// Cart page: change quantities, remove lines.
(function () {
  "use strict";
  var S = window.Shop;

  function render() {
    var c = S.cart();
    var box = document.getElementById("cart-lines");
    var keys = Object.keys(c);
    var checkout = document.getElementById("checkout-btn");
    if (!keys.length) {
      box.innerHTML = '<p class="empty" id="cart-empty">Your cart is empty. <a id="empty-shop" href="index.html">Find something lovely</a></p>';
      checkout.classList.add("disabled");
      checkout.setAttribute("aria-disabled", "true");
      checkout.removeAttribute("href");
    } else {
      checkout.classList.remove("disabled");
      checkout.removeAttribute("aria-disabled");
      checkout.setAttribute("href", "checkout.html");
      box.innerHTML = keys.map(function (k) {
        var l = c[k], p = S.product(l.id), d = S.domKey(k);
        var opts = [l.colour ? "Colour: " + S.cap(l.colour) : "", l.size ? "Size: " + l.size : ""].filter(Boolean).join(" &middot; ");
        return '<div class="line" data-key="' + k + '">' + S.picture(p, l.colour) +
          '<div class="line-info"><h3><a id="line-link-' + d + '" href="product.html?id=' + l.id + '">' + S.esc(l.name) + "</a></h3>" +
          '<p class="muted">' + (opts || "&nbsp;") + "</p><p>" + S.money(l.unitPrice) + " each</p></div>" +
          '<div class="stepper">' +
          '<button type="button" id="dec-' + d + '" data-act="dec" aria-label="Decrease ' + S.esc(l.name) + '"' + (l.qty <= 1 ? " disabled" : "") + ">&minus;</button>" +
          '<input type="number" id="qty-' + d + '" data-act="qty" min="1" max="' + p.stock + '" value="' + l.qty + '" aria-label="Quantity of ' + S.esc(l.name) + '">' +
          '<button type="button" id="inc-' + d + '" data-act="inc" aria-label="Increase ' + S.esc(l.name) + '"' + (l.qty >= p.stock ? " disabled" : "") + ">+</button></div>" +
          '<p class="line-total">' + S.money(S.round2(l.qty * l.unitPrice)) + "</p>" +
          '<button type="button" class="ghost" id="remove-' + d + '" data-act="remove">Remove</button></div>';
      }).join("") + '<p id="cart-msg" class="toast" role="status" hidden></p>';
    }
    document.getElementById("cart-items").textContent = String(S.cartCount(c));
    document.getElementById("cart-subtotal").textContent = S.money(S.cartSubtotal(c));
  }

  function setQty(key, n) {
    var c = S.cart();
    var l = c[key];
    if (!l) return;
    var p = S.product(l.id);
    var note = "";
    if (isNaN(n) || n < 1) { n = 1; note = "Quantity must be at least 1. Use Remove to delete an item."; }
    if (n > p.stock) { n = p.stock; note = "Only " + p.stock + " of " + l.name + " available."; }
    l.qty = n;
    S.saveCart(c);
    render();
    if (note) {
      var m = document.getElementById("cart-msg");
      m.hidden = false; m.textContent = note;
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("cart-lines");
    box.addEventListener("click", function (e) {
      var b = e.target.closest("button[data-act]");
      if (!b) return;
      var key = b.closest(".line").getAttribute("data-key");
      var c = S.cart();
      if (!c[key]) return;
      var act = b.getAttribute("data-act");
      if (act === "remove") {
        delete c[key]; S.saveCart(c); render();
      } else if (act === "inc") {
        setQty(key, c[key].qty + 1);
      } else if (act === "dec") {
        setQty(key, c[key].qty - 1);
      }
    });
    // While typing, store a valid quantity without redrawing (the field keeps focus).
    box.addEventListener("input", function (e) {
      if (e.target.getAttribute("data-act") !== "qty") return;
      var line = e.target.closest(".line"), key = line.getAttribute("data-key");
      var c = S.cart(), n = parseInt(e.target.value, 10);
      if (!c[key] || isNaN(n) || n < 1 || n > S.product(c[key].id).stock) return;
      c[key].qty = n;
      S.saveCart(c);
      line.querySelector(".line-total").textContent = S.money(S.round2(n * c[key].unitPrice));
      document.getElementById("cart-items").textContent = String(S.cartCount(c));
      document.getElementById("cart-subtotal").textContent = S.money(S.cartSubtotal(c));
    });
    box.addEventListener("change", function (e) {
      if (e.target.getAttribute("data-act") !== "qty") return;
      setQty(e.target.closest(".line").getAttribute("data-key"), parseInt(e.target.value, 10));
    });
    render();
  });
})();
