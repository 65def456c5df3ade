/* Special event permit: a four-step form. Each "Continue" validates its own step.
 * Stored data (forms.submissions[].data when form == "event-permit"):
 *   {applicant_name, organisation, applicant_type, email, phone, event_name, event_type, venue,
 *    start_date, end_date, attendance, needs: [...], vendors, licence, description, fee}
 */
(function () {
  "use strict";
  var $ = LB.$;
  var CAPACITY = { "harbor-green": 2000, "old-mill-plaza": 600, "bayfront-promenade": 5000, "civic-center-lawn": 1500, "lantern-park": 800 };
  var EARLIEST = LB.addDays(LB.TODAY, 14), LATEST = "2026-12-31";
  var step = 1;

  function show(n) {
    step = n;
    for (var i = 1; i <= 4; i++) {
      $("step-" + i).hidden = i !== n;
      if (i === n) $("progress-" + i).setAttribute("aria-current", "step"); else $("progress-" + i).removeAttribute("aria-current");
      $("progress-" + i).className = i < n ? "done" : "";
    }
    LB.clearErrors();
    if (n === 4) review();
    window.scrollTo(0, 0);
  }
  function nameKey(s) { return s.trim().replace(/\s+/g, " ").toLowerCase(); }
  function endDate() { return LB.val("end-date") || LB.val("start-date"); }
  function days() { return LB.daysBetween(LB.val("start-date"), endDate()) + 1; }
  function fee() {
    var f = 50 * days(), needs = LB.boxes("needs");
    if (needs.indexOf("road-closure") >= 0) f += 100;
    if (needs.indexOf("alcohol") >= 0) f += 40;
    if (needs.indexOf("food") >= 0) f += 5 * parseInt(LB.val("vendors"), 10);
    if (LB.radio("applicant_type") === "nonprofit") f = f / 2;
    return f;
  }

  function validate(n) {
    var errors = [];
    if (n === 1) {
      LB.requireText(errors, "applicant-name", "the applicant’s full name");
      if (!LB.radio("applicant_type")) errors.push({ field: "applicant-type", msg: "Select whether you are applying as an individual, a non-profit or a business" });
      LB.checkEmail(errors, "email", true);
      LB.checkPhone(errors, "phone", false);
    } else if (n === 2) {
      LB.requireText(errors, "event-name", "the name of the event");
      if (!LB.val("event-type")) errors.push({ field: "event-type", msg: "Choose the type of event" });
      if (!LB.val("venue")) errors.push({ field: "venue", msg: "Choose a venue" });
      var s = LB.val("start-date"), e = LB.val("end-date");
      if (!s) errors.push({ field: "start-date", msg: "Enter the first day of the event" });
      else if (!LB.parseDate(s)) errors.push({ field: "start-date", msg: "Enter the first day in the format YYYY-MM-DD" });
      else if (s < EARLIEST) errors.push({ field: "start-date", msg: "Events must start at least 14 days from today. The earliest start date is " + LB.longDate(EARLIEST) + " (" + EARLIEST + ")" });
      else if (s > LATEST) errors.push({ field: "start-date", msg: "We only accept applications for events in 2026" });
      if (e) {
        if (!LB.parseDate(e)) errors.push({ field: "end-date", msg: "Enter the last day in the format YYYY-MM-DD" });
        else if (LB.parseDate(s) && e < s) errors.push({ field: "end-date", msg: "The last day must be the same as or after the first day" });
        else if (LB.parseDate(s) && LB.daysBetween(s, e) > 2) errors.push({ field: "end-date", msg: "Events can last at most 3 days" });
      }
      var a = LB.val("attendance"), v = LB.val("venue");
      if (!a) errors.push({ field: "attendance", msg: "Enter the expected number of people" });
      else if (!/^\d+$/.test(a.replace(/,/g, "")) || parseInt(a.replace(/,/g, ""), 10) < 1) errors.push({ field: "attendance", msg: "Enter the number of people as a whole number, like 250" });
      else if (v && parseInt(a.replace(/,/g, ""), 10) > CAPACITY[v]) errors.push({ field: "attendance", msg: $("venue").selectedOptions[0].textContent.replace(/ \(.*/, "") + " holds at most " + CAPACITY[v].toLocaleString("en-US") + " people. Choose a bigger venue or expect fewer people" });
    } else if (n === 3) {
      var needs = LB.boxes("needs");
      if (needs.indexOf("food") >= 0) {
        var vn = LB.val("vendors");
        if (!/^\d+$/.test(vn) || +vn < 1 || +vn > 40) errors.push({ field: "vendors", msg: "Enter the number of food vendors, from 1 to 40" });
      }
      if (needs.indexOf("alcohol") >= 0 && !/^LIQ-\d{5}$/.test(LB.val("licence").toUpperCase())) errors.push({ field: "licence", msg: "Enter the liquor licence number, like LIQ-20417" });
      if (LB.val("description").length < 20) errors.push({ field: "description", msg: "Describe your event in at least 20 characters" });
    } else if (n === 4) {
      if (!LB.checked("insurance")) errors.push({ field: "insurance", msg: "Confirm that the event will have public liability insurance" });
      if (!LB.checked("terms")) errors.push({ field: "terms", msg: "You must accept the conditions for events on city land" });
      if (!LB.val("signature")) errors.push({ field: "signature", msg: "Sign by typing your full name" });
      else if (nameKey(LB.val("signature")) !== nameKey(LB.val("applicant-name"))) errors.push({ field: "signature", msg: "The signature must match the applicant’s name: " + LB.val("applicant-name") });
    }
    return LB.showErrors(errors);
  }

  function label(id) { var el = $(id); return el.value ? el.selectedOptions[0].textContent : ""; }
  function review() {
    var needs = LB.boxes("needs");
    var rows = [
      [1, "Applicant", LB.val("applicant-name") + (LB.val("organisation") ? ", " + LB.val("organisation") : "")],
      [1, "Applying as", (document.querySelector("input[name=applicant_type]:checked") || { parentNode: { textContent: "" } }).parentNode.textContent.trim()],
      [1, "Email", LB.val("email")], [1, "Phone", LB.val("phone")],
      [2, "Event", LB.val("event-name") + " (" + label("event-type") + ")"], [2, "Venue", label("venue")],
      [2, "Dates", LB.longDate(LB.val("start-date")) + (endDate() !== LB.val("start-date") ? " to " + LB.longDate(endDate()) : " (one day)")],
      [2, "Expected people", LB.val("attendance")],
      [3, "Needs", needs.length ? needs.join(", ") + (needs.indexOf("food") >= 0 ? " (" + LB.val("vendors") + " vendors)" : "") : "none"]
    ];
    $("review").innerHTML = '<dl class="summary">' + rows.map(function (r, i) {
      return "<div><dt>" + r[1] + "</dt><dd>" + LB.esc(r[2] || "—") + '</dd><dd class="change"><a href="#" id="change-' + r[1].toLowerCase().replace(/[^a-z]+/g, "-") + '" data-step="' + r[0] + '">Change<span class="sr"> ' + r[1] + "</span></a></dd></div>";
    }).join("") + "</dl>";
    $("review").querySelectorAll("a[data-step]").forEach(function (a) {
      a.addEventListener("click", function (e) { e.preventDefault(); show(parseInt(a.getAttribute("data-step"), 10)); });
    });
    $("fee").textContent = "$" + fee().toFixed(2) + (LB.radio("applicant_type") === "nonprofit" ? " (non-profit rate)" : "");
  }

  document.addEventListener("DOMContentLoaded", function () {
    [1, 2, 3].forEach(function (n) { $("next-" + n).addEventListener("click", function () { if (validate(n)) show(n + 1); }); });
    [2, 3, 4].forEach(function (n) { $("back-" + n).addEventListener("click", function () { show(n - 1); }); });
    $("need-food").addEventListener("change", function () { $("food-details").hidden = !this.checked; });
    $("need-alcohol").addEventListener("change", function () { $("alcohol-details").hidden = !this.checked; });
    $("permit-form").addEventListener("submit", function (e) {
      e.preventDefault();
      if (step !== 4) { if (validate(step)) show(step + 1); return; }
      if (!validate(4)) return;
      var needs = LB.boxes("needs");
      var data = {
        applicant_name: LB.val("applicant-name"), organisation: LB.val("organisation"), applicant_type: LB.radio("applicant_type"),
        email: LB.val("email").toLowerCase(), phone: LB.val("phone"), event_name: LB.val("event-name"), event_type: LB.val("event-type"),
        venue: LB.val("venue"), start_date: LB.val("start-date"), end_date: endDate(), attendance: parseInt(LB.val("attendance").replace(/,/g, ""), 10),
        needs: needs, vendors: needs.indexOf("food") >= 0 ? parseInt(LB.val("vendors"), 10) : null,
        licence: needs.indexOf("alcohol") >= 0 ? LB.val("licence").toUpperCase() : "", description: LB.val("description"), fee: fee()
      };
      var ref = LB.submit("event-permit", data);
      for (var i = 1; i <= 4; i++) $("progress-" + i).className = "done";
      LB.confirmation($("form-area"), "Application submitted", ref,
        [["Applicant", data.applicant_name], ["Event", data.event_name], ["Venue", label("venue")], ["Dates", data.start_date + (data.end_date !== data.start_date ? " to " + data.end_date : "")],
         ["Expected people", String(data.attendance)], ["Fee", "$" + data.fee.toFixed(2)]],
        "We will review your application within 10 working days and email you our decision.");
    });
  });
})();
