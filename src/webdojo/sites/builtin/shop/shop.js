// Shared helpers for every Hearth & Hue page: storage, cart maths, header, pictures.
(function () {
  "use strict";

  function load(key, fallback) {
    var raw = window.localStorage.getItem("shop." + key);
    if (raw === null) return fallback;
    try { return JSON.parse(raw); } catch (e) { return fallback; }
  }
  function save(key, value) {
    window.localStorage.setItem("shop." + key, JSON.stringify(value));
  }

  function product(id) {
    for (var i = 0; i < PRODUCTS.length; i++) if (PRODUCTS[i].id === id) return PRODUCTS[i];
    return null;
  }
  function categoryName(id) {
    for (var i = 0; i < CATEGORIES.length; i++) if (CATEGORIES[i].id === id) return CATEGORIES[i].name;
    return id;
  }
  function money(n) { return "$" + n.toFixed(2); }
  function round2(n) { return Math.round(n * 100) / 100; }
  function cap(s) { return s ? s.charAt(0).toUpperCase() + s.slice(1) : s; }
  function slug(s) { return String(s).toLowerCase().replace(/[^a-z0-9]+/g, ""); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  // A cart line is keyed by product id plus chosen options: "mug-stone/sage", "throw-wool/rust/large".
  function lineKey(id, colour, size) {
    var key = id;
    if (colour) key += "/" + slug(colour);
    if (size) key += "/" + slug(size);
    return key;
  }
  // DOM-safe version of a line key, used in element ids.
  function domKey(key) { return key.replace(/\//g, "--"); }

  function cart() { return load("cart", {}); }
  function saveCart(c) { save("cart", c); renderBadge(); }
  function cartCount(c) {
    var n = 0;
    for (var k in c) n += c[k].qty;
    return n;
  }
  function cartSubtotal(c) {
    var s = 0;
    for (var k in c) s += c[k].qty * c[k].unitPrice;
    return round2(s);
  }
  // Adds qty of a variant; returns the quantity now in the cart (capped by stock).
  function addToCart(id, colour, size, qty) {
    var p = product(id);
    var c = cart();
    var key = lineKey(id, colour, size);
    var line = c[key] || { id: id, name: p.name, colour: colour || null, size: size || null, qty: 0, unitPrice: p.price };
    line.qty = Math.min(p.stock, line.qty + qty);
    c[key] = line;
    saveCart(c);
    return line.qty;
  }

  function renderBadge() {
    var el = document.getElementById("cart-count");
    if (el) el.textContent = String(cartCount(cart()));
  }

  function renderHeader() {
    var header = document.getElementById("site-header");
    if (!header) return;
    header.innerHTML =
      '<div class="bar">' +
      '<a class="logo" id="nav-home" href="index.html"><span class="logo-mark">&#9679;</span> Hearth &amp; Hue</a>' +
      '<nav class="links">' +
      '<a id="nav-shop" href="index.html">Shop all</a>' +
      '<a id="nav-cart" class="cart-link" href="cart.html">Cart <span class="badge" id="cart-count">0</span></a>' +
      "</nav></div>" +
      '<div class="promo">Free delivery with code FREESHIP on orders of $40 or more &middot; New customers: HOME10 for 10% off</div>';
    renderBadge();
  }

  function stars(rating) {
    var full = Math.round(rating);
    var s = "";
    for (var i = 1; i <= 5; i++) s += i <= full ? "\u2605" : "\u2606";
    return '<span class="stars" aria-label="Rated ' + rating.toFixed(1) + ' out of 5">' + s + "</span>";
  }

  // Simple inline SVG illustration of a product in a colour.
  function picture(p, colour) {
    var fill = COLOURS[colour || (p.colours[0]) || p.base] || "#ccc";
    var bg = "#fff4e6";
    var shapes = {
      lamp: '<rect x="44" y="82" width="32" height="6" rx="3" fill="#555"/><line x1="60" y1="82" x2="48" y2="48" stroke="#555" stroke-width="4"/><line x1="48" y1="48" x2="70" y2="30" stroke="#555" stroke-width="4"/><path d="M62 22 L88 34 L80 46 Z" fill="F"/>',
      pendant: '<line x1="60" y1="8" x2="60" y2="34" stroke="#555" stroke-width="2"/><path d="M30 72 Q60 20 90 72 Z" fill="F"/><path d="M36 66 L84 66 M42 56 L78 56 M48 46 L72 46" stroke="#8a6d3b" stroke-width="2"/>',
      floorlamp: '<rect x="30" y="90" width="26" height="6" rx="3" fill="F"/><path d="M43 90 L43 30 Q43 14 70 16 L84 22" stroke="F" stroke-width="5" fill="none"/><path d="M74 18 L98 28 L88 40 Z" fill="F"/>',
      lantern: '<rect x="40" y="30" width="40" height="58" rx="8" fill="F" stroke="#7aa" stroke-width="2"/><rect x="52" y="60" width="16" height="20" fill="#f6d365"/><rect x="48" y="22" width="24" height="8" rx="2" fill="#777"/>',
      lights: '<path d="M10 40 Q30 70 50 40 Q70 70 90 40 Q100 55 110 45" stroke="#b87333" stroke-width="2" fill="none"/><circle cx="20" cy="53" r="5" fill="F"/><circle cx="40" cy="53" r="5" fill="F"/><circle cx="60" cy="53" r="5" fill="F"/><circle cx="80" cy="53" r="5" fill="F"/><circle cx="100" cy="48" r="5" fill="F"/>',
      mug: '<rect x="34" y="34" width="42" height="50" rx="8" fill="F"/><path d="M76 46 Q94 48 92 60 Q90 72 76 70" stroke="F" stroke-width="6" fill="none"/>',
      board: '<rect x="22" y="40" width="64" height="40" rx="10" fill="F"/><rect x="86" y="54" width="18" height="12" rx="5" fill="F"/><circle cx="97" cy="60" r="3" fill="' + bg + '"/>',
      kettle: '<path d="M32 84 L40 44 L80 44 L88 84 Z" fill="F"/><path d="M44 44 Q60 22 76 44" stroke="#333" stroke-width="4" fill="none"/><path d="M88 60 L104 46" stroke="F" stroke-width="6"/>',
      towel: '<rect x="34" y="22" width="52" height="72" rx="4" fill="F"/><rect x="34" y="74" width="52" height="6" fill="#ffffff" opacity=".6"/><rect x="34" y="82" width="52" height="3" fill="#ffffff" opacity=".6"/>',
      spoon: '<ellipse cx="60" cy="34" rx="12" ry="16" fill="F"/><rect x="57" y="48" width="6" height="50" rx="3" fill="F"/>',
      jar: '<rect x="36" y="36" width="48" height="56" rx="10" fill="F" stroke="#7aa" stroke-width="2"/><rect x="38" y="26" width="44" height="12" rx="4" fill="#c8a46a"/>',
      apron: '<path d="M44 22 L76 22 L78 44 L92 50 L86 98 L34 98 L28 50 L42 44 Z" fill="F"/><rect x="50" y="62" width="20" height="14" rx="2" fill="#fff" opacity=".35"/>',
      throw: '<path d="M22 34 L98 34 L98 86 L22 86 Z" fill="F"/><path d="M22 86 L22 94 M30 86 L30 94 M38 86 L38 94 M46 86 L46 94 M54 86 L54 94 M62 86 L62 94 M70 86 L70 94 M78 86 L78 94 M86 86 L86 94 M94 86 L94 94" stroke="F" stroke-width="2"/><path d="M22 50 L98 50 M22 66 L98 66" stroke="#fff" opacity=".25" stroke-width="4"/>',
      runner: '<rect x="12" y="48" width="96" height="24" rx="2" fill="F"/><path d="M16 52 L104 52 M16 68 L104 68" stroke="#fff" stroke-dasharray="3 3" opacity=".6"/>',
      napkin: '<path d="M30 30 L90 30 L90 90 L30 90 Z" fill="F"/><path d="M30 30 L90 90" stroke="#fff" opacity=".4" stroke-width="2"/>',
      cushion: '<path d="M26 30 Q60 40 94 30 Q86 60 94 90 Q60 80 26 90 Q34 60 26 30 Z" fill="F"/>',
      rug: '<ellipse cx="60" cy="60" rx="46" ry="34" fill="F"/><ellipse cx="60" cy="60" rx="32" ry="22" fill="none" stroke="#8a6d3b" stroke-width="3"/><ellipse cx="60" cy="60" rx="16" ry="10" fill="none" stroke="#8a6d3b" stroke-width="3"/>',
      vase: '<path d="M48 22 L72 22 L70 36 Q90 56 78 92 L42 92 Q30 56 50 36 Z" fill="F"/>',
      candle: '<rect x="44" y="40" width="32" height="54" rx="4" fill="F"/><path d="M60 22 Q66 32 60 38 Q54 32 60 22 Z" fill="#f39c12"/><line x1="60" y1="38" x2="60" y2="42" stroke="#333" stroke-width="2"/>',
      mirror: '<circle cx="60" cy="58" r="36" fill="F"/><circle cx="60" cy="58" r="31" fill="#dfeff3"/><path d="M44 44 L58 36" stroke="#fff" stroke-width="4"/>',
      clock: '<circle cx="60" cy="58" r="36" fill="F" stroke="#333" stroke-width="3"/><line x1="60" y1="58" x2="60" y2="34" stroke="#333" stroke-width="3"/><line x1="60" y1="58" x2="78" y2="62" stroke="#333" stroke-width="3"/>',
      planter: '<path d="M34 44 L86 44 L78 94 L42 94 Z" fill="F"/><rect x="30" y="38" width="60" height="10" rx="2" fill="F"/><path d="M60 38 Q50 14 40 20 M60 38 Q70 12 82 18" stroke="#4f7a4a" stroke-width="4" fill="none"/>',
      stool: '<rect x="30" y="34" width="60" height="8" rx="2" fill="F"/><rect x="36" y="62" width="48" height="7" rx="2" fill="F"/><line x1="36" y1="42" x2="30" y2="96" stroke="F" stroke-width="6"/><line x1="84" y1="42" x2="90" y2="96" stroke="F" stroke-width="6"/>',
      shelf: '<rect x="14" y="60" width="92" height="10" rx="2" fill="F"/><rect x="24" y="40" width="10" height="20" fill="#9caf88"/><rect x="38" y="44" width="8" height="16" fill="#d2463c"/><circle cx="86" cy="50" r="10" fill="#c4673f"/>',
      chair: '<path d="M28 50 Q28 30 48 30 L72 30 Q92 30 92 50 L92 72 L28 72 Z" fill="F"/><rect x="22" y="64" width="76" height="14" rx="6" fill="F"/><line x1="32" y1="78" x2="28" y2="98" stroke="#8a6d3b" stroke-width="4"/><line x1="88" y1="78" x2="92" y2="98" stroke="#8a6d3b" stroke-width="4"/>',
      table: '<ellipse cx="60" cy="40" rx="38" ry="10" fill="F" stroke="#bbb"/><line x1="60" y1="48" x2="60" y2="94" stroke="#333" stroke-width="4"/><ellipse cx="60" cy="96" rx="18" ry="4" fill="#333"/>',
      dish: '<ellipse cx="60" cy="64" rx="40" ry="18" fill="F"/><path d="M34 62 L86 62 M38 68 L82 68" stroke="#fff" opacity=".4" stroke-width="2"/><ellipse cx="60" cy="52" rx="16" ry="8" fill="#f7efe2"/>',
      basket: '<path d="M28 40 L92 40 L86 96 L34 96 Z" fill="F"/><path d="M30 52 L90 52 M31 64 L89 64 M32 76 L88 76 M33 88 L87 88" stroke="#8a7a4a" stroke-width="2"/><rect x="24" y="32" width="72" height="10" rx="4" fill="F" stroke="#8a7a4a"/>'
    };
    var body = (shapes[p.shape] || shapes.jar).replace(/"F"/g, '"' + fill + '"');
    return '<svg class="pic" viewBox="0 0 120 110" role="img" aria-label="' + esc(p.name) + (colour ? " in " + esc(colour) : "") + '">' +
      '<rect width="120" height="110" rx="12" fill="' + bg + '"/>' + body + "</svg>";
  }

  function param(name) {
    return new URLSearchParams(window.location.search).get(name);
  }

  // FNV-1a 32-bit hash, used to derive order numbers from the order's content.
  function hash(text) {
    var h = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  }

  window.Shop = {
    load: load, save: save, product: product, categoryName: categoryName, money: money,
    round2: round2, cap: cap, esc: esc, lineKey: lineKey, domKey: domKey, cart: cart,
    saveCart: saveCart, cartCount: cartCount, cartSubtotal: cartSubtotal, addToCart: addToCart,
    renderHeader: renderHeader, renderBadge: renderBadge, stars: stars, picture: picture,
    param: param, hash: hash
  };
  document.addEventListener("DOMContentLoaded", renderHeader);
})();
