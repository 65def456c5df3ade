/* City of Larkspur Bay online services: shared helpers for every form.
 *
 * localStorage key (JSON):
 *   forms.submissions  [{ref, form, submitted, data}]  oldest first
 *     ref        e.g. "EP-1001" (prefix per form + running number; deterministic)
 *     form       "event-permit" | "report" | "survey" | "parking" | "subscribe"
 *     submitted  the site's fixed date, "2026-03-10"
 *     data       the form's fields (see each page's script for the exact shape)
 *
 * Validation shows an error summary at the top of the form (links to each field) and an inline
 * message under each invalid field. Nothing is stored until a form validates.
 */
var LB = (function () {
  "use strict";
  var TODAY = "2026-03-10";
  var KEY = "forms.submissions";
  var PREFIX = { "event-permit": "EP", report: "SR", survey: "RS", parking: "PP", subscribe: "BL" };
  var EMAIL_RE = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
  var PHONE_RE = /^\d{3}-\d{3}-\d{4}$/;

  function $(id) { return document.getElementById(id); }
  function esc(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
  function val(id) { var el = $(id); return el ? el.value.trim() : ""; }
  function checked(id) { var el = $(id); return !!(el && el.checked); }
  function radio(name) { var el = document.querySelector('input[type=radio][name="' + name + '"]:checked'); return el ? el.value : ""; }
  function boxes(name) {
    return Array.prototype.map.call(document.querySelectorAll('input[type=checkbox][name="' + name + '"]:checked'), function (el) { return el.value; });
  }

  // ---- dates (ISO strings, UTC arithmetic, no clock) ----------------------------------------
  function parseDate(s) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return null;
    var d = new Date(s + "T00:00:00Z");
    return isNaN(d) || d.toISOString().slice(0, 10) !== s ? null : d;
  }
  function addDays(s, n) { var d = parseDate(s); d.setUTCDate(d.getUTCDate() + n); return d.toISOString().slice(0, 10); }
  function daysBetween(a, b) { return Math.round((parseDate(b) - parseDate(a)) / 86400000); }
  function longDate(s) {
    var d = parseDate(s); if (!d) return s;
    var M = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
    return d.getUTCDate() + " " + M[d.getUTCMonth()] + " " + d.getUTCFullYear();
  }

  // ---- errors ------------------------------------------------------------------------
  function clearErrors(scope) {
    var root = scope || document;
    Array.prototype.forEach.call(root.querySelectorAll(".field.has-error"), function (f) { f.classList.remove("has-error"); });
    Array.prototype.forEach.call(root.querySelectorAll(".error-message"), function (m) { m.textContent = ""; m.hidden = true; });
    Array.prototype.forEach.call(root.querySelectorAll("[aria-invalid]"), function (el) { el.removeAttribute("aria-invalid"); });
    var sum = $("error-summary");
    if (sum) { sum.hidden = true; sum.innerHTML = ""; }
  }
  /** errors: [{field: element id to link to, msg}] ; the inline message goes into "<field>-error". */
  function showErrors(errors, scope) {
    clearErrors(scope);
    if (!errors.length) return true;
    errors.forEach(function (e) {
      var el = $(e.field), msg = $(e.field + "-error");
      if (msg) { msg.textContent = "Error: " + e.msg; msg.hidden = false; }
      if (el) {
        el.setAttribute("aria-invalid", "true");
        var f = el.closest(".field"); if (f) f.classList.add("has-error");
      }
    });
    var sum = $("error-summary");
    if (sum) {
      sum.innerHTML = '<h2 id="error-summary-title">There is a problem</h2><ul>' + errors.map(function (e) {
        return '<li><a id="err-link-' + e.field + '" href="#' + e.field + '">' + esc(e.msg) + "</a></li>";
      }).join("") + "</ul>";
      sum.hidden = false;
      sum.querySelectorAll("a").forEach(function (a) {
        a.addEventListener("click", function (ev) { ev.preventDefault(); var t = $(a.getAttribute("href").slice(1)); if (t) { t.focus(); t.scrollIntoView({ block: "center" }); } });
      });
      sum.scrollIntoView({ block: "start" });
      sum.focus();
    }
    return false;
  }
  function requireText(errors, id, label) { if (!val(id)) errors.push({ field: id, msg: "Enter " + label }); }
  function checkEmail(errors, id, required) {
    var v = val(id);
    if (!v) { if (required) errors.push({ field: id, msg: "Enter an email address" }); return; }
    if (!EMAIL_RE.test(v)) errors.push({ field: id, msg: "Enter an email address in the correct format, like name@example.com" });
  }
  function checkPhone(errors, id, required) {
    var v = val(id);
    if (!v) { if (required) errors.push({ field: id, msg: "Enter a phone number" }); return; }
    if (!PHONE_RE.test(v)) errors.push({ field: id, msg: "Enter the phone number as three digits, three digits and four digits separated by hyphens, like 415-555-0123" });
  }

  // ---- submissions -------------------------------------------------------------------
  function load() { try { var v = JSON.parse(localStorage.getItem(KEY)); return Array.isArray(v) ? v : []; } catch (e) { return []; } }
  function submit(form, data) {
    var list = load();
    var n = list.filter(function (s) { return s.form === form; }).length;
    var ref = PREFIX[form] + "-" + (1001 + n);
    list.push({ ref: ref, form: form, submitted: TODAY, data: data });
    localStorage.setItem(KEY, JSON.stringify(list));
    return ref;
  }
  /** Replace the form with a confirmation panel. rows: [[label, value]] */
  function confirmation(container, title, ref, rows, next) {
    container.innerHTML = '<div class="panel-confirm" role="status"><h1 id="confirm-title">' + esc(title) + '</h1><p>Your reference number<br><strong id="confirm-ref">' + ref + "</strong></p></div>" +
      '<h2>What you sent us</h2><dl class="summary">' + rows.map(function (r) { return "<div><dt>" + esc(r[0]) + "</dt><dd>" + esc(r[1] === "" || r[1] == null ? "—" : r[1]) + "</dd></div>"; }).join("") + "</dl>" +
      "<p>" + esc(next || "We have sent a confirmation to your email address.") + '</p><p><a id="view-submissions" href="submissions.html">View all your submissions</a> · <a id="back-home" href="index.html">Back to online services</a></p>';
    window.scrollTo(0, 0);
  }

  // ---- page chrome -------------------------------------------------------------------
  function chrome() {
    var h = $("header");
    if (h) h.innerHTML = '<div class="header-inner"><a id="home-link" class="crest" href="index.html"><svg viewBox="0 0 36 36" width="36" height="36" aria-hidden="true"><path d="M18 2l14 6v10c0 8-6 14-14 16C10 32 4 26 4 18V8z" fill="#fff"/><path d="M9 22q9-8 18 0" stroke="#0b0c0c" stroke-width="2.5" fill="none"/><path d="M18 8v10" stroke="#0b0c0c" stroke-width="2.5"/><circle cx="18" cy="7" r="2.5" fill="#0b0c0c"/></svg><span>City of Larkspur Bay</span></a><span class="service">Online services</span></div>';
    var f = $("footer");
    if (f) f.innerHTML = '<div class="footer-inner"><p><a id="footer-submissions" href="submissions.html">Your submissions</a> · <a id="footer-services" href="index.html">All services</a></p><p>City of Larkspur Bay is a fictional municipality. Today’s date on this site is 10 March 2026.</p></div>';
  }
  document.addEventListener("DOMContentLoaded", chrome);

  return { TODAY: TODAY, $: $, esc: esc, val: val, checked: checked, radio: radio, boxes: boxes, parseDate: parseDate, addDays: addDays,
    daysBetween: daysBetween, longDate: longDate, clearErrors: clearErrors, showErrors: showErrors, requireText: requireText,
    checkEmail: checkEmail, checkPhone: checkPhone, load: load, submit: submit, confirmation: confirmation, EMAIL_RE: EMAIL_RE, PHONE_RE: PHONE_RE };
})();
