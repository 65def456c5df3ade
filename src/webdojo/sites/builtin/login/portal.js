// Shared helpers for the Ledgerline portal: storage, seeding, session, audit log, page chrome.
(function () {
  "use strict";

  function load(key, fallback) {
    var raw = window.localStorage.getItem("login." + key);
    if (raw === null) return fallback;
    try { return JSON.parse(raw); } catch (e) { return fallback; }
  }
  function save(key, value) { window.localStorage.setItem("login." + key, JSON.stringify(value)); }
  function clone(v) { return JSON.parse(JSON.stringify(v)); }

  function seed() {
    if (window.localStorage.getItem("login.users") === null) save("users", clone(SEED_USERS));
    if (window.localStorage.getItem("login.settings") === null) save("settings", clone(SEED_SETTINGS));
    if (window.localStorage.getItem("login.audit") === null) save("audit", clone(SEED_AUDIT));
  }

  function users() { return load("users", {}); }
  function settings() { return load("settings", {}); }
  function session() { return load("session", null); }
  function currentUser() {
    var s = session();
    return s ? users()[s.user] || null : null;
  }
  function currentSettings() {
    var s = session();
    return s ? settings()[s.user] || null : null;
  }

  // Today's events get consecutive minutes after the fixed clock, so the log is deterministic.
  function stamp() {
    var today = load("audit", []).filter(function (e) { return e.at.slice(0, 10) === LOGIN_TODAY; }).length;
    var base = +LOGIN_CLOCK.slice(0, 2) * 60 + +LOGIN_CLOCK.slice(3, 5) + today;
    var hh = String(Math.floor(base / 60)), mm = String(base % 60);
    return LOGIN_TODAY + " " + (hh.length < 2 ? "0" + hh : hh) + ":" + (mm.length < 2 ? "0" + mm : mm);
  }
  function audit(user, event, detail) {
    var log = load("audit", []);
    log.push({ user: user, event: event, at: stamp(), detail: detail || "" });
    save("audit", log);
  }

  function findUser(login) {
    var all = users();
    var key = login.trim().toLowerCase();
    if (all[key]) return all[key];
    for (var u in all) if (all[u].email.toLowerCase() === key) return all[u];
    return null;
  }

  function signIn(login, password) {
    var u = findUser(login);
    if (!u || u.password !== password) {
      if (u) audit(u.username, "signin_failed", "Wrong password");
      return null;
    }
    save("session", { user: u.username, signedInAt: LOGIN_TODAY + "T" + LOGIN_CLOCK + ":00Z", passwordSetOn: u.passwordChanged });
    audit(u.username, "signin", "Chromium on Linux, this device");
    return u;
  }
  function signOut() {
    var s = session();
    if (s) audit(s.user, "signout", "This device");
    window.localStorage.removeItem("login.session");
    window.location.href = "index.html?signedout=1";
  }

  // Dates are stored as YYYY-MM-DD and shown in the user's chosen format.
  function fmtDate(iso, fmt) {
    var y = iso.slice(0, 4), m = iso.slice(5, 7), d = iso.slice(8, 10);
    if (fmt === "DD/MM/YYYY") return d + "/" + m + "/" + y;
    if (fmt === "MM/DD/YYYY") return m + "/" + d + "/" + y;
    return iso;
  }
  function money(n) {
    var parts = n.toFixed(2).split(".");
    return "$" + parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",") + "." + parts[1];
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function label(list, value) {
    for (var i = 0; i < list.length; i++) if (list[i][0] === value) return list[i][1];
    return value;
  }

  // Top bar and side navigation for signed-in pages. Returns the user, or null after drawing a sign-in prompt.
  function chrome(active) {
    var u = currentUser();
    var top = document.getElementById("topbar");
    var side = document.getElementById("sidenav");
    var main = document.getElementById("content");
    top.innerHTML = '<a class="brand" id="nav-brand" href="' + (u ? "account.html" : "index.html") + '"><span class="mark">L</span>Ledgerline</a>' +
      (u ? '<div class="who"><span id="topbar-user">' + esc(u.displayName) + '</span><button type="button" id="nav-logout" class="link">Sign out</button></div>' : "");
    if (!u) {
      side.hidden = true;
      main.innerHTML = '<div class="panel narrow"><h1>Please sign in</h1><p>You need to be signed in to see this page.</p><a class="button" id="go-signin" href="index.html">Go to sign in</a></div>';
      return null;
    }
    side.innerHTML = '<nav aria-label="Account">' +
      '<a id="nav-overview" href="account.html"' + (active === "overview" ? ' aria-current="page"' : "") + ">Overview</a>" +
      '<a id="nav-settings" href="settings.html"' + (active === "settings" ? ' aria-current="page"' : "") + ">Settings</a>" +
      '<a id="nav-activity" href="account.html#activity">Activity</a></nav>' +
      '<p class="side-foot">Account ' + esc(u.accountId) + "</p>";
    document.getElementById("nav-logout").addEventListener("click", signOut);
    return u;
  }

  seed();
  window.Portal = {
    load: load, save: save, users: users, settings: settings, session: session, currentUser: currentUser,
    currentSettings: currentSettings, audit: audit, signIn: signIn, signOut: signOut, fmtDate: fmtDate,
    money: money, esc: esc, label: label, chrome: chrome
  };
})();
