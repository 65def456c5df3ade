// Settings tabs: profile, notification switches (saved explicitly), preferences, password change with rules.
(function () {
  "use strict";
  var P = window.Portal;
  var SWITCHES = [
    ["security", "Security alerts", "Sign-ins from new devices and password changes."],
    ["product", "Product updates", "New features and planned maintenance."],
    ["newsletter", "Monthly newsletter", "Tips and stories from the Ledgerline team."],
    ["billing", "Billing reminders", "Upcoming invoices and failed payments."],
    ["sms", "Text message alerts", "Urgent security alerts by SMS to your mobile."]
  ];
  var TABS = ["profile", "notifications", "preferences", "security"];

  function el(id) { return document.getElementById(id); }

  function showTab(name) {
    TABS.forEach(function (t) {
      el("tab-" + t).setAttribute("aria-selected", t === name ? "true" : "false");
      el("tab-" + t).tabIndex = t === name ? 0 : -1;
      el("panel-" + t).hidden = t !== name;
    });
  }

  function setupProfile(u) {
    el("profile-name").value = u.displayName;
    el("profile-email").value = u.email;
    el("profile-username").textContent = u.username;
    el("profile-save").addEventListener("click", function () {
      var name = el("profile-name").value.trim().replace(/\s+/g, " ");
      var email = el("profile-email").value.trim();
      var all = P.users();
      var errName = name.length < 2 ? "Display name must be at least 2 characters." : "";
      var errEmail = !/^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(email) ? "Enter a valid email address." : "";
      for (var k in all) if (k !== u.username && all[k].email.toLowerCase() === email.toLowerCase()) errEmail = "That email address is used by another account.";
      el("err-profile-name").textContent = errName;
      el("err-profile-email").textContent = errEmail;
      el("profile-msg").textContent = "";
      if (errName || errEmail) return;
      all[u.username].displayName = name;
      all[u.username].email = email;
      P.save("users", all);
      P.audit(u.username, "profile_updated", "Display name and email");
      el("topbar-user").textContent = name;
      el("profile-msg").textContent = "Profile saved.";
    });
  }

  function setupNotifications(u, s) {
    var draft = JSON.parse(JSON.stringify(s.notifications));
    var locked = u.role === "Administrator" || u.role === "Owner";
    el("switches").innerHTML = SWITCHES.map(function (w) {
      var dis = w[0] === "security" && locked;
      return '<div class="switch-row"><div><span class="switch-label" id="label-' + w[0] + '">' + w[1] + '</span><span class="hint">' + w[2] +
        (dis ? " Required for " + u.role.toLowerCase() + "s." : "") + "</span></div>" +
        '<button type="button" role="switch" class="switch" id="notif-' + w[0] + '" data-key="' + w[0] + '" aria-labelledby="label-' + w[0] + '"' +
        (dis ? " disabled" : "") + '><span class="knob"></span><span class="state"></span></button></div>';
    }).join("");
    function paint() {
      SWITCHES.forEach(function (w) {
        var b = el("notif-" + w[0]);
        b.setAttribute("aria-checked", draft[w[0]] ? "true" : "false");
        b.querySelector(".state").textContent = draft[w[0]] ? "On" : "Off";
      });
      el("phone-row").hidden = !draft.sms;
    }
    el("notif-phone").value = s.phone || "";
    el("switches").addEventListener("click", function (e) {
      var b = e.target.closest("button[data-key]");
      if (!b || b.disabled) return;
      draft[b.getAttribute("data-key")] = !draft[b.getAttribute("data-key")];
      el("notif-msg").textContent = "You have unsaved changes.";
      el("notif-msg").className = "saved pending";
      paint();
    });
    el("notif-save").addEventListener("click", function () {
      var phone = el("notif-phone").value.trim();
      var digits = phone.replace(/\D/g, "");
      var err = "";
      if (draft.sms && (!/^\+?[\d\s()-]+$/.test(phone) || digits.length < 8 || digits.length > 15)) err = "Enter a mobile number with 8 to 15 digits to receive text messages.";
      el("err-notif-phone").textContent = err;
      if (err) { el("notif-msg").textContent = ""; return; }
      var all = P.settings();
      all[u.username].notifications = JSON.parse(JSON.stringify(draft));
      all[u.username].phone = draft.sms ? phone : all[u.username].phone;
      P.save("settings", all);
      P.audit(u.username, "notifications_updated", SWITCHES.filter(function (w) { return draft[w[0]]; }).map(function (w) { return w[1]; }).join(", ") || "All off");
      el("notif-msg").textContent = "Notification settings saved.";
      el("notif-msg").className = "saved";
    });
    paint();
  }

  function setupPreferences(u, s) {
    el("pref-timezone").innerHTML = TIMEZONES.map(function (t) { return '<option value="' + t[0] + '">' + t[1] + "</option>"; }).join("");
    el("pref-language").innerHTML = LANGUAGES.map(function (t) { return '<option value="' + t[0] + '">' + t[1] + "</option>"; }).join("");
    el("datefmt-options").innerHTML = DATE_FORMATS.map(function (d) {
      return '<label class="inline"><input type="radio" name="datefmt" id="' + d[1] + '" value="' + d[0] + '"> ' + d[0] + ' <span class="hint">(' + d[2] + ")</span></label>";
    }).join("");
    el("pref-timezone").value = s.timezone;
    el("pref-language").value = s.language;
    DATE_FORMATS.forEach(function (d) { el(d[1]).checked = d[0] === s.dateFormat; });
    el("pref-save").addEventListener("click", function () {
      var all = P.settings();
      var mine = all[u.username];
      mine.timezone = el("pref-timezone").value;
      mine.language = el("pref-language").value;
      var picked = document.querySelector('input[name="datefmt"]:checked');
      if (picked) mine.dateFormat = picked.value;
      P.save("settings", all);
      P.audit(u.username, "preferences_updated", mine.timezone + ", " + mine.language + ", " + mine.dateFormat);
      el("pref-msg").textContent = "Preferences saved.";
    });
  }

  function rules(u, pw) {
    var first = u.displayName.split(" ")[0].toLowerCase();
    var low = pw.toLowerCase();
    return {
      length: pw.length >= 10, upper: /[A-Z]/.test(pw), lower: /[a-z]/.test(pw), digit: /\d/.test(pw),
      symbol: /[^A-Za-z0-9\s]/.test(pw),
      name: pw.length > 0 && low.indexOf(u.username.toLowerCase()) < 0 && (first.length < 3 || low.indexOf(first) < 0)
    };
  }

  function setupSecurity(u, s) {
    el("pw-last").textContent = P.fmtDate(u.passwordChanged, s.dateFormat);
    function paintRules() {
      var r = rules(u, el("pw-new").value);
      Object.keys(r).forEach(function (k) { el("rule-" + k).className = r[k] ? "met" : ""; });
      return r;
    }
    el("pw-new").addEventListener("input", paintRules);
    el("pw-save").addEventListener("click", function () {
      var all = P.users();
      var me = all[u.username];
      var cur = el("pw-current").value, next = el("pw-new").value, conf = el("pw-confirm").value;
      var r = paintRules();
      var err = "";
      if (cur !== me.password) err = "Your current password is not correct.";
      else if (!(r.length && r.upper && r.lower && r.digit && r.symbol && r.name)) err = "The new password does not meet all of the rules below.";
      else if (next === me.password) err = "The new password must be different from your current password.";
      else if (next !== conf) err = "The two new passwords do not match.";
      el("pw-error").textContent = err;
      el("pw-msg").textContent = "";
      if (err) return;
      me.password = next;
      me.passwordChanged = LOGIN_TODAY;
      P.save("users", all);
      P.audit(u.username, "password_changed", "Changed from settings");
      ["pw-current", "pw-new", "pw-confirm"].forEach(function (id) { el(id).value = ""; });
      paintRules();
      el("pw-last").textContent = P.fmtDate(LOGIN_TODAY, s.dateFormat);
      el("pw-msg").textContent = "Your password has been changed.";
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var u = P.chrome("settings");
    if (!u) return;
    var s = P.currentSettings();
    TABS.forEach(function (t) { el("tab-" + t).addEventListener("click", function () { showTab(t); }); });
    setupProfile(u);
    setupNotifications(u, s);
    setupPreferences(u, s);
    setupSecurity(u, s);
    var hash = window.location.hash.replace("#", "");
    showTab(TABS.indexOf(hash) >= 0 ? hash : "profile");
  });
})();
