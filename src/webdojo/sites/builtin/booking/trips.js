// My trips: list reservations; cancel one through a confirmation dialog with a reason.
(function () {
  "use strict";
  var B = window.Book;
  var pending = null;

  function render() {
    var list = B.load("reservations", []);
    var box = document.getElementById("trip-list");
    if (!list.length) { box.innerHTML = '<p class="empty" id="no-trips">No trips yet. <a id="find-stay" href="index.html">Find a stay</a></p>'; return; }
    box.innerHTML = list.map(function (t) {
      var h = B.hotel(t.hotel);
      var cancelled = t.status === "cancelled";
      return '<article class="trip-card' + (cancelled ? " cancelled" : "") + '" data-code="' + t.code + '">' +
        '<div><h2>' + B.esc(t.hotelName) + ' <span class="status ' + t.status + '">' + (cancelled ? "Cancelled" : "Confirmed") + "</span></h2>" +
        '<p class="muted">' + B.esc(B.destName(t.dest)) + " &middot; " + B.esc(t.roomName) + "</p>" +
        "<p>" + B.pretty(t.checkin) + " to " + B.pretty(t.checkout) + " &middot; " + t.nights + (t.nights === 1 ? " night" : " nights") + " &middot; " + B.partyText(t) + "</p>" +
        '<p class="small">Confirmation code <strong id="code-' + t.code + '">' + t.code + "</strong> &middot; lead guest " + B.esc(t.guest.first + " " + t.guest.last) +
        " &middot; total " + B.money(t.total) + " &middot; check-in from " + (h ? h.checkin : "") + "</p></div>" +
        (cancelled ? "" : '<button type="button" class="btn ghost" id="cancel-' + t.code + '" data-code="' + t.code + '">Cancel reservation</button>') + "</article>";
    }).join("");
  }

  function openModal(code) {
    var t = B.load("reservations", []).filter(function (x) { return x.code === code; })[0];
    var h = B.hotel(t.hotel);
    pending = code;
    document.getElementById("cancel-detail").textContent = t.hotelName + ", " + B.pretty(t.checkin) + " to " + B.pretty(t.checkout) + ". " +
      (h && h.freeCancel ? "You will be refunded " + B.money(t.total) + " in full." : "This rate is non-refundable: you will not get your money back.");
    document.getElementById("cancel-reason").value = "";
    document.getElementById("cancel-error").textContent = "";
    document.getElementById("cancel-modal").hidden = false;
  }
  function closeModal() { document.getElementById("cancel-modal").hidden = true; pending = null; }

  document.addEventListener("DOMContentLoaded", function () {
    document.getElementById("trip-list").addEventListener("click", function (e) {
      var b = e.target.closest("button[data-code]");
      if (b) openModal(b.getAttribute("data-code"));
    });
    document.getElementById("cancel-keep").addEventListener("click", closeModal);
    document.getElementById("cancel-confirm").addEventListener("click", function () {
      var reason = document.getElementById("cancel-reason").value;
      if (!reason) { document.getElementById("cancel-error").textContent = "Please choose a reason."; return; }
      var list = B.load("reservations", []);
      list.forEach(function (t) {
        if (t.code === pending) { t.status = "cancelled"; t.cancelReason = reason; t.cancelledOn = BOOKING_TODAY; }
      });
      B.save("reservations", list);
      var msg = document.getElementById("trips-msg");
      msg.hidden = false; msg.textContent = "Reservation " + pending + " has been cancelled.";
      closeModal();
      render();
    });
    render();
  });
})();
