// Shared helpers for Tidewater Stays: storage, dates (all UTC, no real clock), prices, header.
(function () {
  "use strict";
  var DAY = 86400000;
  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  var WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

  function load(key, fallback) {
    var raw = window.localStorage.getItem("booking." + key);
    if (raw === null) return fallback;
    try { return JSON.parse(raw); } catch (e) { return fallback; }
  }
  function save(key, value) { window.localStorage.setItem("booking." + key, JSON.stringify(value)); }

  function seed() {
    if (window.localStorage.getItem("booking.reservations") === null) save("reservations", SEED_RESERVATIONS);
  }

  function toMs(iso) {
    var p = iso.split("-");
    return Date.UTC(+p[0], +p[1] - 1, +p[2]);
  }
  function toIso(ms) { return new Date(ms).toISOString().slice(0, 10); }
  function addDays(iso, n) { return toIso(toMs(iso) + n * DAY); }
  function nightsBetween(a, b) { return Math.round((toMs(b) - toMs(a)) / DAY); }
  function weekday(iso) { return new Date(toMs(iso)).getUTCDay(); }
  function validIso(s) { return typeof s === "string" && /^\d{4}-\d{2}-\d{2}$/.test(s) && toIso(toMs(s)) === s; }
  function pretty(iso) {
    var d = new Date(toMs(iso));
    return WEEKDAYS[d.getUTCDay()] + " " + d.getUTCDate() + " " + MONTHS[d.getUTCMonth()].slice(0, 3) + " " + d.getUTCFullYear();
  }

  function hotel(id) {
    for (var i = 0; i < HOTELS.length; i++) if (HOTELS[i].id === id) return HOTELS[i];
    return null;
  }
  function room(h, id) {
    for (var i = 0; i < h.rooms.length; i++) if (h.rooms[i].id === id) return h.rooms[i];
    return null;
  }
  function destName(id) {
    for (var i = 0; i < DESTINATIONS.length; i++) if (DESTINATIONS[i].id === id) return DESTINATIONS[i].name;
    return id;
  }

  // Price of a stay in one room: {nights: [{date, price}], total, soldOutOn}
  function quote(h, r, checkin, checkout) {
    var out = { nights: [], total: 0, soldOutOn: null };
    var blocked = (h.soldOut && h.soldOut[r.id]) || [];
    for (var d = checkin; d < checkout; d = addDays(d, 1)) {
      var wd = weekday(d);
      var price = wd === 5 || wd === 6 ? r.weekend : r.rate;
      if (blocked.indexOf(d) >= 0 && !out.soldOutOn) out.soldOutOn = d;
      out.nights.push({ date: d, price: price });
      out.total += price;
    }
    return out;
  }
  // Why a room cannot be booked for a search, or "" if it can.
  function unavailable(h, r, s) {
    if (!s.checkin || !s.checkout) return "Choose dates to book";
    if (s.adults + s.children > r.sleeps) return "Sleeps " + r.sleeps + " - too small for your party";
    var q = quote(h, r, s.checkin, s.checkout);
    if (q.soldOutOn) return "Sold out on " + pretty(q.soldOutOn);
    return "";
  }
  function cheapest(h, s) {
    var best = null;
    h.rooms.forEach(function (r) {
      if (unavailable(h, r, s)) return;
      var q = quote(h, r, s.checkin, s.checkout);
      if (!best || q.total < best.total) best = { room: r, total: q.total };
    });
    return best;
  }

  function money(n) {
    var text = Math.round(n) === n ? String(n) : n.toFixed(2);
    return "$" + text.replace(/^(\d+)/, function (whole) { return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ","); });
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function param(name) { return new URLSearchParams(window.location.search).get(name); }

  // The search described by the URL: {dest, checkin, checkout, adults, children}.
  function searchFromUrl() {
    var s = {
      dest: param("dest") || "", checkin: param("checkin") || "", checkout: param("checkout") || "",
      adults: parseInt(param("adults") || "2", 10), children: parseInt(param("children") || "0", 10)
    };
    if (!validIso(s.checkin) || !validIso(s.checkout) || s.checkout <= s.checkin || s.checkin < BOOKING_TODAY) {
      s.checkin = ""; s.checkout = "";
    }
    if (isNaN(s.adults) || s.adults < 1) s.adults = 1;
    if (isNaN(s.children) || s.children < 0) s.children = 0;
    return s;
  }
  function searchQuery(s) {
    var p = new URLSearchParams();
    if (s.dest) p.set("dest", s.dest);
    if (s.checkin) p.set("checkin", s.checkin);
    if (s.checkout) p.set("checkout", s.checkout);
    p.set("adults", String(s.adults));
    p.set("children", String(s.children));
    return p.toString();
  }
  function partyText(s) {
    return s.adults + (s.adults === 1 ? " adult" : " adults") + (s.children ? ", " + s.children + (s.children === 1 ? " child" : " children") : "");
  }

  function hash(text) {
    var h = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h >>> 0;
  }

  function renderHeader() {
    var el = document.getElementById("site-header");
    if (!el) return;
    el.innerHTML = '<div class="wrap head">' +
      '<a id="nav-home" class="brand" href="index.html"><svg viewBox="0 0 40 24" width="40" height="24" aria-hidden="true"><path d="M2 16 Q10 6 18 16 T34 16" fill="none" stroke="#2f6f73" stroke-width="3"/><circle cx="31" cy="6" r="4" fill="#e0b36a"/></svg> Tidewater Stays</a>' +
      '<nav><a id="nav-search" href="index.html">Find a stay</a><a id="nav-trips" href="trips.html">My trips</a></nav></div>';
  }

  seed();
  document.addEventListener("DOMContentLoaded", renderHeader);

  window.Book = {
    load: load, save: save, toIso: toIso, toMs: toMs, addDays: addDays, nightsBetween: nightsBetween,
    weekday: weekday, pretty: pretty, hotel: hotel, room: room, destName: destName, quote: quote,
    unavailable: unavailable, cheapest: cheapest, money: money, esc: esc, param: param,
    searchFromUrl: searchFromUrl, searchQuery: searchQuery, partyText: partyText, hash: hash,
    MONTHS: MONTHS, WEEKDAYS: WEEKDAYS, validIso: validIso
  };
})();
