// Booking form: step 1 stay options, step 2 guest details (validated), step 3 review, confirm.
(function () {
  "use strict";
  var B = window.Book;
  var ARRIVAL = { "unknown": "Not known yet", "12:00-15:00": "12:00 - 15:00", "15:00-18:00": "15:00 - 18:00", "18:00-21:00": "18:00 - 21:00", "after-21:00": "After 21:00" };

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("book-root");
    var h = B.hotel(B.param("hotel") || "");
    var r = h && B.room(h, B.param("room") || "");
    var s = B.searchFromUrl();
    var why = h && r ? B.unavailable(h, r, s) : "missing";
    if (!h || !r || why) {
      root.innerHTML = '<h1>This room cannot be booked</h1><p>' + (why && why !== "missing" ? B.esc(why) + ". " : "") +
        'Please start again from the search. <a id="back-search" href="index.html">Search stays</a></p>';
      return;
    }
    s.dest = h.dest;
    var included = h.amenities.indexOf("breakfast") >= 0;
    var q = B.quote(h, r, s.checkin, s.checkout);
    var nights = q.nights.length;
    var guests = s.adults + s.children;
    var step = 1;

    document.getElementById("step1-back").href = "hotel.html?id=" + h.id + "&" + B.searchQuery(s);
    document.getElementById("stay-summary").innerHTML = '<p class="stay-line"><strong>' + B.esc(h.name) + "</strong> &middot; " + B.esc(r.name) + "<br>" +
      "Check-in " + B.pretty(s.checkin) + " (from " + h.checkin + ") &middot; Check-out " + B.pretty(s.checkout) + " (until " + h.checkout + ")<br>" +
      nights + (nights === 1 ? " night" : " nights") + " &middot; " + B.partyText(s) + "</p>";
    var bf = document.getElementById("addon-breakfast");
    if (included) {
      bf.disabled = true; bf.checked = true;
      document.getElementById("breakfast-label").textContent = "Breakfast is included at this hotel";
    } else {
      document.getElementById("breakfast-label").textContent = "Add breakfast: " + B.money(BREAKFAST_PRICE) + " per guest per night (" +
        B.money(BREAKFAST_PRICE * guests * nights) + " for your stay)";
    }

    function totals() {
      var extra = !included && bf.checked ? BREAKFAST_PRICE * guests * nights : 0;
      return { room: q.total, breakfast: extra, total: q.total + extra };
    }
    function renderPrice() {
      var t = totals();
      document.getElementById("price-box").innerHTML = "<h2>Price</h2>" + q.nights.map(function (n) {
        return '<p class="row"><span>' + B.pretty(n.date) + "</span><span>" + B.money(n.price) + "</span></p>";
      }).join("") + (t.breakfast ? '<p class="row"><span>Breakfast</span><span>' + B.money(t.breakfast) + "</span></p>" : "") +
        '<p class="row total"><span>Total</span><span id="price-total">' + B.money(t.total) + "</span></p>" +
        '<p class="muted small">' + (h.freeCancel ? "Free cancellation up to 48 hours before arrival." : "Non-refundable rate.") + "</p>";
    }
    bf.addEventListener("change", renderPrice);

    function show(n) {
      step = n;
      [1, 2, 3, 4].forEach(function (i) { document.getElementById("step-" + i).hidden = i !== n; });
      Array.prototype.forEach.call(document.querySelectorAll("#step-list li"), function (li) {
        var i = +li.getAttribute("data-step");
        li.className = i === n ? "current" : i < n ? "done" : "";
        if (i === n) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
      });
      window.scrollTo(0, 0);
    }

    function val(id) { return document.getElementById(id).value.trim(); }
    function validateGuest() {
      var e = {};
      var name = /^[A-Za-z\u00C0-\u017F][A-Za-z\u00C0-\u017F' .-]*$/;
      if (!val("guest-first")) e.first = "Please enter a first name."; else if (!name.test(val("guest-first"))) e.first = "Names may only contain letters, spaces, hyphens and apostrophes.";
      if (!val("guest-last")) e.last = "Please enter a last name."; else if (!name.test(val("guest-last"))) e.last = "Names may only contain letters, spaces, hyphens and apostrophes.";
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(val("guest-email"))) e.email = "Please enter a valid email address, like name@example.com.";
      var digits = val("guest-phone").replace(/\D/g, "");
      if (!/^\+?[\d\s().-]+$/.test(val("guest-phone")) || digits.length < 7 || digits.length > 15) e.phone = "Please enter a phone number with 7 to 15 digits.";
      ["first", "last", "email", "phone"].forEach(function (f) {
        document.getElementById("err-" + f).textContent = e[f] || "";
        document.getElementById("guest-" + f).setAttribute("aria-invalid", e[f] ? "true" : "false");
      });
      var box = document.getElementById("guest-error");
      box.hidden = !Object.keys(e).length;
      box.textContent = Object.keys(e).length ? "Please correct the details below." : "";
      return !Object.keys(e).length;
    }

    function renderReview() {
      var t = totals();
      var rows = [
        ["Hotel", h.name + ", " + B.destName(h.dest)], ["Room", r.name], ["Check-in", B.pretty(s.checkin)], ["Check-out", B.pretty(s.checkout)],
        ["Guests", B.partyText(s)], ["Arrival", ARRIVAL[document.getElementById("arrival-time").value]],
        ["Breakfast", included ? "Included" : bf.checked ? "Added (" + B.money(t.breakfast) + ")" : "Not added"],
        ["Lead guest", val("guest-first") + " " + val("guest-last")], ["Email", val("guest-email")], ["Phone", val("guest-phone")],
        ["Requests", val("guest-requests") || "None"], ["Total", B.money(t.total)]
      ];
      document.getElementById("review-list").innerHTML = rows.map(function (x) { return "<dt>" + x[0] + "</dt><dd>" + B.esc(x[1]) + "</dd>"; }).join("");
      document.getElementById("agree-terms").checked = false;
      document.getElementById("confirm-booking").disabled = true;
    }

    function confirm() {
      var t = totals();
      var list = B.load("reservations", []);
      var code = "TW-" + ("000000" + B.hash([h.id, r.id, s.checkin, s.checkout, s.adults, s.children, val("guest-last").toLowerCase(), list.length].join("|")).toString(36).toUpperCase()).slice(-6);
      list.push({
        code: code, status: "confirmed", hotel: h.id, hotelName: h.name, dest: h.dest, room: r.id, roomName: r.name,
        checkin: s.checkin, checkout: s.checkout, nights: nights, adults: s.adults, children: s.children,
        breakfast: included || bf.checked, arrival: document.getElementById("arrival-time").value,
        guest: { first: val("guest-first"), last: val("guest-last"), email: val("guest-email"), phone: val("guest-phone") },
        requests: val("guest-requests"), roomTotal: t.room, breakfastTotal: t.breakfast, total: t.total, bookedOn: BOOKING_TODAY
      });
      B.save("reservations", list);
      document.getElementById("confirm-code").textContent = code;
      document.getElementById("confirm-email").textContent = val("guest-email");
      document.title = "Booking confirmed - Tidewater Stays";
      show(4);
    }

    document.getElementById("step1-next").addEventListener("click", function () { show(2); });
    document.getElementById("step2-back").addEventListener("click", function () { show(1); });
    document.getElementById("step2-next").addEventListener("click", function () { if (validateGuest()) { renderReview(); show(3); } });
    document.getElementById("step3-back").addEventListener("click", function () { show(2); });
    document.getElementById("agree-terms").addEventListener("change", function (e) {
      document.getElementById("confirm-booking").disabled = !e.target.checked;
    });
    document.getElementById("confirm-booking").addEventListener("click", function () { if (step === 3) confirm(); });
    renderPrice();
    show(1);
  });
})();
