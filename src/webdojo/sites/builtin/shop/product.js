// Product page: colour swatches, size select, quantity stepper, add to cart.
(function () {
  "use strict";
  var S = window.Shop;

  document.addEventListener("DOMContentLoaded", function () {
    var p = S.product(S.param("id") || "");
    var root = document.getElementById("product-root");
    if (!p) {
      document.title = "Product not found - Hearth & Hue";
      root.innerHTML = '<h1>Product not found</h1><p>We could not find that product. <a id="back-shop" href="index.html">Back to the shop</a></p>';
      return;
    }
    document.title = p.name + " - Hearth & Hue";
    var colour = p.colours[0] || null;
    var qtyInput = document.getElementById("qty-input");
    var msg = document.getElementById("product-msg");
    var addBtn = document.getElementById("add-to-cart");

    var crumb = document.getElementById("crumb-category");
    crumb.textContent = S.categoryName(p.category);
    crumb.href = "index.html?cat=" + p.category;
    document.getElementById("product-name").textContent = p.name;
    document.getElementById("product-rating").innerHTML = S.stars(p.rating) + " " + p.rating.toFixed(1) + " &middot; " + p.reviews + " reviews";
    document.getElementById("product-price").textContent = S.money(p.price);
    document.getElementById("product-blurb").textContent = p.blurb;
    var stockEl = document.getElementById("product-stock");
    if (p.stock <= 0) {
      stockEl.innerHTML = '<span class="stock out">Out of stock</span>';
      addBtn.disabled = true; addBtn.textContent = "Sold out";
      qtyInput.disabled = true;
      document.getElementById("qty-dec").disabled = true;
      document.getElementById("qty-inc").disabled = true;
    } else {
      stockEl.innerHTML = p.stock <= 5 ? '<span class="stock low">Only ' + p.stock + " left</span>" : '<span class="stock ok">In stock (' + p.stock + " available)</span>";
    }
    qtyInput.max = String(Math.max(1, p.stock));

    function drawPicture() { document.getElementById("product-pic").innerHTML = S.picture(p, colour); }

    if (p.colours.length) {
      document.getElementById("colour-group").hidden = false;
      var row = document.getElementById("colour-options");
      row.innerHTML = p.colours.map(function (c) {
        return '<button type="button" role="radio" class="swatch" id="colour-' + c + '" data-colour="' + c + '" aria-label="' + S.cap(c) + '">' +
          '<span class="dot big" style="background:' + COLOURS[c] + '"></span>' + S.cap(c) + "</button>";
      }).join("");
      var markColour = function () {
        document.getElementById("colour-chosen").textContent = S.cap(colour);
        p.colours.forEach(function (c) {
          document.getElementById("colour-" + c).setAttribute("aria-checked", c === colour ? "true" : "false");
        });
        drawPicture();
      };
      row.addEventListener("click", function (e) {
        var b = e.target.closest("button[data-colour]");
        if (!b) return;
        colour = b.getAttribute("data-colour");
        markColour();
      });
      markColour();
    } else {
      drawPicture();
    }
    var sizeSel = document.getElementById("size-select");
    if (p.sizes.length) {
      document.getElementById("size-group").hidden = false;
      sizeSel.innerHTML = p.sizes.map(function (s) { return '<option value="' + S.esc(s) + '">' + S.esc(s) + "</option>"; }).join("");
    }

    function qty() {
      var n = parseInt(qtyInput.value, 10);
      return isNaN(n) ? 1 : n;
    }
    document.getElementById("qty-dec").addEventListener("click", function () { qtyInput.value = String(Math.max(1, qty() - 1)); });
    document.getElementById("qty-inc").addEventListener("click", function () { qtyInput.value = String(Math.min(p.stock, qty() + 1)); });

    addBtn.addEventListener("click", function () {
      var n = qty();
      msg.hidden = false;
      msg.classList.remove("error");
      if (n < 1) {
        msg.classList.add("error");
        msg.textContent = "Please choose a quantity of at least 1.";
        return;
      }
      if (n > p.stock) {
        msg.classList.add("error");
        msg.textContent = "Sorry, only " + p.stock + " available. Please lower the quantity.";
        return;
      }
      var size = p.sizes.length ? sizeSel.value : null;
      var total = S.addToCart(p.id, colour, size, n);
      var what = p.name + (colour ? ", " + S.cap(colour) : "") + (size ? ", " + size : "");
      msg.innerHTML = "Added " + n + " &times; " + S.esc(what) + " to your cart (" + total + ' in cart). <a id="go-cart" href="cart.html">View cart</a>';
    });
  });
})();
