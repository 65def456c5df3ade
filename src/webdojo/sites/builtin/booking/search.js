// Search page: destination, custom range calendar, guest steppers -> results.html.
(function () {
  "use strict";
  var B = window.Book;
  var MAX_ADULTS = 6, MAX_CHILDREN = 4;
  var state = { dest: "", checkin: "", checkout: "", adults: 2, children: 0 };
  var view = { year: 2026, month: 2 }; // month index (0 = January)
  var todayMonth = { year: +BOOKING_TODAY.slice(0, 4), month: +BOOKING_TODAY.slice(5, 7) - 1 };
  var lastMonth = { year: +BOOKING_LAST_DAY.slice(0, 4), month: +BOOKING_LAST_DAY.slice(5, 7) - 1 };

  function monthKey(m) { return m.year * 12 + m.month; }

  function dateLabel() {
    if (!state.checkin) return "Add dates";
    if (!state.checkout) return B.pretty(state.checkin) + " \u2192 choose check-out";
    var n = B.nightsBetween(state.checkin, state.checkout);
    return B.pretty(state.checkin) + " \u2192 " + B.pretty(state.checkout) + " (" + n + (n === 1 ? " night)" : " nights)");
  }

  function renderCalendar() {
    document.getElementById("cal-title").textContent = B.MONTHS[view.month] + " " + view.year;
    document.getElementById("cal-prev").disabled = monthKey(view) <= monthKey(todayMonth);
    document.getElementById("cal-next").disabled = monthKey(view) >= monthKey(lastMonth);
    document.getElementById("cal-hint").textContent = !state.checkin || state.checkout ? "Select your check-in date" : "Now select your check-out date";
    var first = B.toIso(Date.UTC(view.year, view.month, 1));
    var days = new Date(Date.UTC(view.year, view.month + 1, 0)).getUTCDate();
    var lead = (B.weekday(first) + 6) % 7; // weeks start on Monday
    var html = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].map(function (w) { return '<span class="dow">' + w + "</span>"; }).join("");
    for (var i = 0; i < lead; i++) html += '<span class="blank"></span>';
    for (var d = 1; d <= days; d++) {
      var iso = B.toIso(Date.UTC(view.year, view.month, d));
      var cls = ["day"];
      var past = iso < BOOKING_TODAY || iso > BOOKING_LAST_DAY;
      if (iso === BOOKING_TODAY) cls.push("today");
      if (iso === state.checkin || iso === state.checkout) cls.push("picked");
      if (state.checkin && state.checkout && iso > state.checkin && iso < state.checkout) cls.push("inrange");
      var label = B.pretty(iso) + (iso === state.checkin ? ", check-in" : iso === state.checkout ? ", check-out" : "");
      html += '<button type="button" id="day-' + iso + '" class="' + cls.join(" ") + '" data-date="' + iso + '" aria-label="' + label + '"' +
        (iso === state.checkin || iso === state.checkout ? ' aria-pressed="true"' : "") + (past ? " disabled" : "") + ">" + d + "</button>";
    }
    document.getElementById("cal-grid").innerHTML = html;
  }

  function renderForm() {
    document.getElementById("date-field").textContent = dateLabel();
    document.getElementById("adults-value").textContent = String(state.adults);
    document.getElementById("children-value").textContent = String(state.children);
    document.getElementById("adults-dec").disabled = state.adults <= 1;
    document.getElementById("adults-inc").disabled = state.adults >= MAX_ADULTS;
    document.getElementById("children-dec").disabled = state.children <= 0;
    document.getElementById("children-inc").disabled = state.children >= MAX_CHILDREN;
  }

  function openCalendar(open) {
    var cal = document.getElementById("calendar");
    cal.hidden = !open;
    document.getElementById("date-field").setAttribute("aria-expanded", open ? "true" : "false");
    if (open) renderCalendar();
  }

  function pick(iso) {
    if (!state.checkin || state.checkout || iso <= state.checkin) {
      state.checkin = iso; state.checkout = "";
    } else {
      state.checkout = iso;
    }
    renderForm();
    if (state.checkout) openCalendar(false); else renderCalendar();
  }

  function search() {
    var err = document.getElementById("search-error");
    state.dest = document.getElementById("dest-select").value;
    var problem = !state.dest ? "Please choose a destination." :
      !state.checkin || !state.checkout ? "Please choose your check-in and check-out dates." : "";
    if (problem) { err.hidden = false; err.textContent = problem; return; }
    err.hidden = true;
    B.save("search", { dest: state.dest, checkin: state.checkin, checkout: state.checkout, adults: state.adults, children: state.children });
    window.location.href = "results.html?" + B.searchQuery(state);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var sel = document.getElementById("dest-select");
    DESTINATIONS.forEach(function (d) {
      var o = document.createElement("option"); o.value = d.id; o.textContent = d.name; sel.appendChild(o);
    });
    var pre = B.searchFromUrl();
    state.dest = pre.dest; state.checkin = pre.checkin; state.checkout = pre.checkout;
    state.adults = Math.min(MAX_ADULTS, pre.adults); state.children = Math.min(MAX_CHILDREN, pre.children);
    sel.value = state.dest;
    if (state.checkin) view = { year: +state.checkin.slice(0, 4), month: +state.checkin.slice(5, 7) - 1 };

    document.getElementById("date-field").addEventListener("click", function () {
      openCalendar(document.getElementById("calendar").hidden);
    });
    document.getElementById("cal-prev").addEventListener("click", function () {
      view.month -= 1; if (view.month < 0) { view.month = 11; view.year -= 1; } renderCalendar();
    });
    document.getElementById("cal-next").addEventListener("click", function () {
      view.month += 1; if (view.month > 11) { view.month = 0; view.year += 1; } renderCalendar();
    });
    document.getElementById("cal-grid").addEventListener("click", function (e) {
      var b = e.target.closest("button[data-date]");
      if (b && !b.disabled) pick(b.getAttribute("data-date"));
    });
    document.getElementById("cal-clear").addEventListener("click", function () {
      state.checkin = ""; state.checkout = ""; renderForm(); renderCalendar();
    });
    document.getElementById("cal-done").addEventListener("click", function () { openCalendar(false); });
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") openCalendar(false); });

    function step(which, delta, max, min) {
      state[which] = Math.max(min, Math.min(max, state[which] + delta)); renderForm();
    }
    document.getElementById("adults-dec").addEventListener("click", function () { step("adults", -1, MAX_ADULTS, 1); });
    document.getElementById("adults-inc").addEventListener("click", function () { step("adults", 1, MAX_ADULTS, 1); });
    document.getElementById("children-dec").addEventListener("click", function () { step("children", -1, MAX_CHILDREN, 0); });
    document.getElementById("children-inc").addEventListener("click", function () { step("children", 1, MAX_CHILDREN, 0); });
    document.getElementById("search-form").addEventListener("submit", function (e) { e.preventDefault(); search(); });

    document.getElementById("popular").innerHTML = HOTELS.filter(function (h) { return h.score >= 9.0; }).map(function (h) {
      var from = Math.min.apply(null, h.rooms.map(function (r) { return r.rate; }));
      return '<article class="pop-card">' + '<div class="pop-art" style="--hue:' + (B.hash(h.id) % 360) + '"></div>' +
        '<h3><a id="popular-' + h.id + '" href="hotel.html?id=' + h.id + '">' + B.esc(h.name) + "</a></h3>" +
        '<p class="muted">' + B.esc(B.destName(h.dest)) + " &middot; " + h.score.toFixed(1) + " guest score</p>" +
        "<p>Weeknights from <strong>" + B.money(from) + "</strong></p></article>";
    }).join("");
    renderForm();
  });
})();
