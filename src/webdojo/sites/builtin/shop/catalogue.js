// Catalogue page: search, filters and sort over PRODUCTS; quick add for products without options.
(function () {
  "use strict";
  var S = window.Shop;
  var els = {};

  function readState() {
    return {
      q: els.search.value.trim().toLowerCase(),
      cat: els.cat.value,
      min: els.min.value === "" ? null : Number(els.min.value),
      max: els.max.value === "" ? null : Number(els.max.value),
      instock: els.instock.checked,
      sort: els.sort.value
    };
  }

  function matches(p, st) {
    if (st.cat && p.category !== st.cat) return false;
    if (st.instock && p.stock <= 0) return false;
    if (st.min !== null && p.price < st.min) return false;
    if (st.max !== null && p.price > st.max) return false;
    if (st.q) {
      var hay = (p.name + " " + S.categoryName(p.category) + " " + p.colours.join(" ") + " " + p.blurb).toLowerCase();
      var words = st.q.split(/\s+/);
      for (var i = 0; i < words.length; i++) if (hay.indexOf(words[i]) < 0) return false;
    }
    return true;
  }

  function sorted(list, how) {
    var out = list.slice();
    var cmp = {
      "price-asc": function (a, b) { return a.price - b.price || a.name.localeCompare(b.name); },
      "price-desc": function (a, b) { return b.price - a.price || a.name.localeCompare(b.name); },
      rating: function (a, b) { return b.rating - a.rating || b.reviews - a.reviews; }
    }[how];
    if (cmp) out.sort(cmp);
    return out;
  }

  function card(p) {
    var stock = p.stock <= 0 ? '<span class="stock out">Sold out</span>'
      : p.stock <= 5 ? '<span class="stock low">Only ' + p.stock + " left</span>"
      : '<span class="stock ok">In stock</span>';
    var action;
    if (p.stock <= 0) {
      action = '<button type="button" id="add-' + p.id + '" class="btn" disabled>Sold out</button>';
    } else if (p.colours.length || p.sizes.length) {
      action = '<a class="btn outline" id="opts-' + p.id + '" href="product.html?id=' + p.id + '">Choose options</a>';
    } else {
      action = '<button type="button" class="btn" id="add-' + p.id + '" data-id="' + p.id + '">Add to cart</button>';
    }
    var swatches = p.colours.map(function (c) {
      return '<span class="dot" title="' + c + '" style="background:' + COLOURS[c] + '"></span>';
    }).join("");
    return '<article class="card" data-product="' + p.id + '">' +
      '<a href="product.html?id=' + p.id + '" tabindex="-1" aria-hidden="true">' + S.picture(p) + "</a>" +
      '<p class="cat">' + S.categoryName(p.category) + "</p>" +
      '<h3><a id="link-' + p.id + '" href="product.html?id=' + p.id + '">' + S.esc(p.name) + "</a></h3>" +
      '<p class="rating">' + S.stars(p.rating) + " " + p.rating.toFixed(1) + ' <span class="muted">(' + p.reviews + ")</span></p>" +
      '<p class="swatches">' + swatches + "</p>" +
      '<p class="price">' + S.money(p.price) + "</p>" + stock + '<div class="card-action">' + action + "</div></article>";
  }

  function render() {
    var st = readState();
    var list = sorted(PRODUCTS.filter(function (p) { return matches(p, st); }), st.sort);
    els.grid.innerHTML = list.length ? list.map(card).join("")
      : '<p class="empty" id="no-results">No products match your search. Try clearing a filter.</p>';
    els.count.textContent = list.length + (list.length === 1 ? " product" : " products") +
      (st.q ? ' for "' + st.q + '"' : "");
    var params = new URLSearchParams();
    if (st.q) params.set("q", st.q);
    if (st.cat) params.set("cat", st.cat);
    var qs = params.toString();
    history.replaceState(null, "", "index.html" + (qs ? "?" + qs : ""));
  }

  document.addEventListener("DOMContentLoaded", function () {
    els = {
      search: document.getElementById("search-input"), cat: document.getElementById("filter-category"),
      min: document.getElementById("price-min"), max: document.getElementById("price-max"),
      instock: document.getElementById("filter-instock"), sort: document.getElementById("sort-select"),
      grid: document.getElementById("product-grid"), count: document.getElementById("result-count"),
      note: document.getElementById("added-note")
    };
    CATEGORIES.forEach(function (c) {
      var o = document.createElement("option");
      o.value = c.id; o.textContent = c.name; els.cat.appendChild(o);
    });
    els.search.value = S.param("q") || "";
    els.cat.value = S.param("cat") || "";
    document.getElementById("search-form").addEventListener("submit", function (e) { e.preventDefault(); render(); });
    els.search.addEventListener("input", render);
    [els.cat, els.sort, els.instock].forEach(function (el) { el.addEventListener("change", render); });
    [els.min, els.max].forEach(function (el) { el.addEventListener("input", render); });
    document.getElementById("clear-filters").addEventListener("click", function () {
      els.search.value = ""; els.cat.value = ""; els.min.value = ""; els.max.value = "";
      els.instock.checked = false; els.sort.value = "featured"; render();
    });
    els.grid.addEventListener("click", function (e) {
      var btn = e.target.closest("button[data-id]");
      if (!btn) return;
      var p = S.product(btn.getAttribute("data-id"));
      var qty = S.addToCart(p.id, null, null, 1);
      els.note.hidden = false;
      els.note.innerHTML = "Added " + S.esc(p.name) + " to your cart (" + qty + ' in cart). <a id="toast-cart" href="cart.html">View cart</a>';
    });
    render();
  });
})();
