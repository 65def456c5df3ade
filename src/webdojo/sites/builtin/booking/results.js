// Results: hotels of a destination priced for the searched dates and party, with filters and sort.
(function () {
  "use strict";
  var B = window.Book;

  document.addEventListener("DOMContentLoaded", function () {
    var s = B.searchFromUrl();
    var list = document.getElementById("hotel-list");
    document.getElementById("edit-search").href = "index.html?" + B.searchQuery(s);
    if (!s.dest || !s.checkin) {
      document.getElementById("search-summary").textContent = "No search yet.";
      list.innerHTML = '<p class="empty" id="no-search">Start by choosing a destination and dates. <a id="start-search" href="index.html">Search stays</a></p>';
      return;
    }
    var nights = B.nightsBetween(s.checkin, s.checkout);
    document.title = B.destName(s.dest) + " stays - Tidewater Stays";
    document.getElementById("search-summary").innerHTML = "<strong>" + B.esc(B.destName(s.dest)) + "</strong> &middot; " +
      B.pretty(s.checkin) + " to " + B.pretty(s.checkout) + " &middot; " + nights + (nights === 1 ? " night" : " nights") + " &middot; " + B.partyText(s);

    function render() {
      var pool = document.getElementById("filter-pool").checked;
      var bfast = document.getElementById("filter-breakfast").checked;
      var free = document.getElementById("filter-freecancel").checked;
      var avail = document.getElementById("filter-available").checked;
      var stars = +document.getElementById("filter-stars").value;
      var sort = document.getElementById("sort-select").value;
      var hotels = HOTELS.filter(function (h) {
        if (h.dest !== s.dest) return false;
        if (pool && h.amenities.indexOf("pool") < 0) return false;
        if (bfast && h.amenities.indexOf("breakfast") < 0) return false;
        if (free && !h.freeCancel) return false;
        if (h.stars < stars) return false;
        if (avail && !B.cheapest(h, s)) return false;
        return true;
      }).map(function (h) { return { h: h, best: B.cheapest(h, s) }; });
      var price = function (x) { return x.best ? x.best.total : Infinity; };
      if (sort === "price-asc") hotels.sort(function (a, b) { return price(a) - price(b); });
      if (sort === "price-desc") hotels.sort(function (a, b) { return (b.best ? b.best.total : -1) - (a.best ? a.best.total : -1); });
      if (sort === "score") hotels.sort(function (a, b) { return b.h.score - a.h.score; });
      document.getElementById("result-count").textContent = hotels.length + (hotels.length === 1 ? " stay" : " stays") + " found";
      list.innerHTML = hotels.length ? hotels.map(function (x) {
        var h = x.h;
        var tags = h.amenities.map(function (a) { return '<span class="tag">' + AMENITIES[a] + "</span>"; }).join("") +
          (h.freeCancel ? '<span class="tag good">Free cancellation</span>' : '<span class="tag">Non-refundable</span>');
        var priceHtml = x.best
          ? '<p class="from">From <strong>' + B.money(x.best.total) + "</strong> for " + nights + (nights === 1 ? " night" : " nights") +
            '</p><p class="muted small">' + B.esc(x.best.room.name) + "</p>"
          : '<p class="from soldout">No rooms left for your dates and party</p>';
        return '<article class="hotel-card" data-hotel="' + h.id + '">' +
          '<div class="hotel-art" style="--hue:' + (B.hash(h.id) % 360) + '"></div>' +
          '<div class="hotel-main"><h3>' + B.esc(h.name) + '</h3><p class="muted">' + "&#9733;".repeat(h.stars) + " &middot; " + B.esc(h.area) +
          " &middot; guest score " + h.score.toFixed(1) + " (" + h.reviews + " reviews)</p><p>" + B.esc(h.blurb) + '</p><div class="tags">' + tags + "</div></div>" +
          '<div class="hotel-price">' + priceHtml + '<a class="btn" id="view-' + h.id + '" href="hotel.html?id=' + h.id + "&" + B.searchQuery(s) + '">View rooms</a></div></article>';
      }).join("") : '<p class="empty" id="no-results">No stays match these filters.</p>';
    }
    ["filter-pool", "filter-breakfast", "filter-freecancel", "filter-available", "filter-stars", "sort-select"].forEach(function (id) {
      document.getElementById(id).addEventListener("change", render);
    });
    render();
  });
})();
