// Hotel page: details, policies and rooms priced for the search; Reserve opens the booking form.
(function () {
  "use strict";
  var B = window.Book;

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("hotel-root");
    var h = B.hotel(B.param("id") || "");
    if (!h) {
      document.title = "Hotel not found - Tidewater Stays";
      root.innerHTML = '<h1>We could not find that hotel</h1><p><a id="back-search" href="index.html">Back to search</a></p>';
      return;
    }
    var s = B.searchFromUrl();
    s.dest = h.dest;
    document.title = h.name + " - Tidewater Stays";
    var hasDates = !!s.checkin;
    var nights = hasDates ? B.nightsBetween(s.checkin, s.checkout) : 0;
    var rooms = h.rooms.map(function (r) {
      var why = B.unavailable(h, r, s);
      var priceHtml;
      if (hasDates) {
        var q = B.quote(h, r, s.checkin, s.checkout);
        priceHtml = '<p class="room-total">' + B.money(q.total) + ' <span class="muted small">total for ' + nights + (nights === 1 ? " night" : " nights") + "</span></p>" +
          '<p class="muted small">' + q.nights.map(function (n) { return B.pretty(n.date).slice(0, 10) + ": " + B.money(n.price); }).join(" &middot; ") + "</p>";
      } else {
        priceHtml = '<p class="room-total">' + B.money(r.rate) + ' <span class="muted small">per weeknight, ' + B.money(r.weekend) + " Fri/Sat</span></p>";
      }
      var q2 = "book.html?hotel=" + h.id + "&room=" + r.id + "&" + B.searchQuery(s);
      return '<article class="room-card" data-room="' + r.id + '"><div><h3>' + B.esc(r.name) + '</h3><p class="muted">' + B.esc(r.bed) + " &middot; sleeps " + r.sleeps + "</p>" +
        (why ? '<p class="warn" id="why-' + r.id + '">' + B.esc(why) + "</p>" : "") + "</div>" +
        '<div class="room-price">' + priceHtml +
        '<button type="button" class="btn" id="reserve-' + r.id + '" data-href="' + q2 + '"' + (why ? " disabled" : "") + ">Reserve</button></div></article>";
    }).join("");
    var back = hasDates ? "results.html?" + B.searchQuery(s) : "index.html?dest=" + h.dest;
    root.innerHTML =
      '<p class="crumbs"><a id="back-results" href="' + back + '">&larr; ' + (hasDates ? "Back to results" : "Search " + B.esc(B.destName(h.dest))) + "</a></p>" +
      '<div class="hotel-hero" style="--hue:' + (B.hash(h.id) % 360) + '"><div><h1 id="hotel-name">' + B.esc(h.name) + "</h1><p>" + "&#9733;".repeat(h.stars) + " &middot; " +
      B.esc(h.area) + ", " + B.esc(B.destName(h.dest)) + " &middot; guest score " + h.score.toFixed(1) + "</p></div></div>" +
      '<div class="hotel-layout"><section><p class="lede">' + B.esc(h.blurb) + "</p>" +
      (hasDates ? '<p class="stay-line" id="stay-line">Your stay: ' + B.pretty(s.checkin) + " to " + B.pretty(s.checkout) + " &middot; " + B.partyText(s) + "</p>"
        : '<p class="stay-line" id="stay-line">Prices shown per night. <a id="choose-dates" href="index.html?dest=' + h.dest + '">Choose dates</a> to book.</p>') +
      '<h2>Rooms</h2><div id="rooms">' + rooms + "</div></section>" +
      '<aside class="policy"><h2>Good to know</h2><dl>' +
      "<dt>Check-in</dt><dd id=\"policy-checkin\">from " + h.checkin + "</dd><dt>Check-out</dt><dd id=\"policy-checkout\">until " + h.checkout + "</dd>" +
      "<dt>Cancellation</dt><dd>" + (h.freeCancel ? "Free cancellation up to 48 hours before arrival" : "Non-refundable: no refund if you cancel") + "</dd>" +
      "<dt>Breakfast</dt><dd>" + (h.amenities.indexOf("breakfast") >= 0 ? "Included in every room" : "Available for " + B.money(BREAKFAST_PRICE) + " per guest per night") + "</dd>" +
      "<dt>Amenities</dt><dd>" + h.amenities.map(function (a) { return AMENITIES[a]; }).join(", ") + "</dd></dl></aside></div>";
    document.getElementById("rooms").addEventListener("click", function (e) {
      var b = e.target.closest("button[data-href]");
      if (b && !b.disabled) window.location.href = b.getAttribute("data-href");
    });
  });
})();
