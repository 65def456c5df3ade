/* Tallyworks Ops console: a dense single-page admin dashboard.
 *
 * localStorage keys (JSON), seeded from ADMIN_SEED (data.js) when absent:
 *   admin.users     {id: {id, name, email, role, team, status, joined, last_login}}
 *   admin.orders    {id: {id, customer, date, items, total, status, assignee}}
 *   admin.settings  {org_name, default_role, session_timeout_min, require_2fa_admins,
 *                    audit_retention_days, maintenance_mode, timezone, notify_email}
 *   admin.audit     [{seq, at, actor, action, target, detail}]  (oldest first)
 *
 * Deterministic: no clock, no randomness. Audit timestamps count minutes from a fixed time.
 */
(function () {
  "use strict";

  var K = { users: "admin.users", orders: "admin.orders", settings: "admin.settings", audit: "admin.audit" };
  var PAGE_SIZE = 10;
  var ROLES = ["Admin", "Editor", "Analyst", "Viewer"];
  var TEAMS = ["Finance", "Fulfillment", "Logistics", "Marketing", "Platform", "Support"];
  var STATUSES = ["active", "inactive", "suspended"];
  var ORDER_STATUSES = ["pending", "paid", "shipped", "refunded", "cancelled"];
  var OPEN_ORDER = { pending: 1, paid: 1 };
  var EMAIL_RE = /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i;

  // ---- state -------------------------------------------------------------------------
  function read(key) { try { return JSON.parse(localStorage.getItem(key)); } catch (e) { return null; } }
  function write(key, v) { localStorage.setItem(key, JSON.stringify(v)); }
  function seed(force) {
    if (force || read(K.users) === null) write(K.users, ADMIN_SEED.users);
    if (force || read(K.orders) === null) write(K.orders, ADMIN_SEED.orders);
    if (force || read(K.settings) === null) write(K.settings, ADMIN_SEED.settings);
    if (force || read(K.audit) === null) write(K.audit, ADMIN_SEED.audit);
  }
  seed(false);
  var db = { users: read(K.users), orders: read(K.orders), settings: read(K.settings), audit: read(K.audit) };
  function persist(which) { which.forEach(function (w) { write(K[w], db[w]); }); }

  function audit(action, target, detail) {
    var seq = db.audit.length ? db.audit[db.audit.length - 1].seq + 1 : 1;
    var mins = 9 * 60 + seq; // fixed day, one minute per entry
    var at = ADMIN_SEED.today + " " + String(Math.floor(mins / 60) % 24).padStart(2, "0") + ":" + String(mins % 60).padStart(2, "0");
    db.audit.push({ seq: seq, at: at, actor: "ops.admin", action: action, target: target, detail: detail });
    persist(["audit"]);
  }

  var ui = {
    tab: "users",
    users: { sort: "id", dir: 1, page: 1, q: "", role: "", team: "", status: "", selected: {} },
    orders: { sort: "id", dir: 1, page: 1, q: "", status: "" }
  };

  // ---- helpers -----------------------------------------------------------------------
  function $(id) { return document.getElementById(id); }
  function esc(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
  function money(n) { return "$" + n.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function userName(id) { return db.users[id] ? db.users[id].name : id + " (deleted)"; }
  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  function toast(msg, kind) {
    var box = $("toasts");
    var el = document.createElement("div");
    el.className = "toast " + (kind || "ok");
    el.setAttribute("role", "status");
    el.innerHTML = '<span class="msg">' + esc(msg) + '</span><button type="button" class="x" aria-label="Dismiss">×</button>';
    el.querySelector("button").addEventListener("click", function () { el.remove(); });
    box.appendChild(el);
    while (box.children.length > 4) box.removeChild(box.firstChild);
  }

  // ---- dropdown menus (one floating menu at a time) --------------------------------------
  var openMenu = null;
  function closeMenu() {
    if (openMenu) { openMenu.menu.remove(); openMenu.button.setAttribute("aria-expanded", "false"); openMenu = null; }
  }
  function showMenu(button, items) {
    var same = openMenu && openMenu.button === button;
    closeMenu();
    if (same) return;
    var menu = document.createElement("div");
    menu.className = "menu";
    menu.setAttribute("role", "menu");
    items.forEach(function (it) {
      if (it.sep) { var hr = document.createElement("div"); hr.className = "sep"; menu.appendChild(hr); return; }
      var b = document.createElement("button");
      b.type = "button"; b.id = it.id; b.setAttribute("role", "menuitem"); b.textContent = it.label;
      if (it.danger) b.className = "danger";
      if (it.disabled) { b.disabled = true; b.title = it.why || "Not available"; }
      b.addEventListener("click", function (e) { e.stopPropagation(); closeMenu(); it.run(); });
      menu.appendChild(b);
    });
    document.body.appendChild(menu);
    var r = button.getBoundingClientRect();
    menu.style.top = (window.scrollY + r.bottom + 2) + "px";
    menu.style.left = Math.max(8, window.scrollX + r.right - menu.offsetWidth) + "px";
    button.setAttribute("aria-expanded", "true");
    openMenu = { button: button, menu: menu };
  }
  document.addEventListener("click", function (e) {
    if (openMenu && !openMenu.menu.contains(e.target) && e.target !== openMenu.button) closeMenu();
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { if (openMenu) closeMenu(); else closeModal(); }
  });

  // ---- modals ------------------------------------------------------------------------
  function openModal(id) {
    $("backdrop").hidden = false;
    $(id).hidden = false;
    var first = $(id).querySelector("input, select, button.primary");
    if (first) first.focus();
  }
  function closeModal() {
    $("backdrop").hidden = true;
    Array.prototype.forEach.call(document.querySelectorAll(".modal"), function (m) { m.hidden = true; });
  }
  var pendingConfirm = null;
  function confirmDialog(opts) {
    $("confirm-title").textContent = opts.title;
    $("confirm-body").innerHTML = opts.body;
    var ok = $("confirm-ok");
    ok.textContent = opts.okLabel || "Confirm";
    ok.className = opts.danger ? "primary danger" : "primary";
    ok.disabled = !!opts.blocked;
    pendingConfirm = opts.blocked ? null : opts.run;
    openModal("modal-confirm");
  }

  // ---- KPIs --------------------------------------------------------------------------
  function renderKpis() {
    var us = Object.values(db.users), os = Object.values(db.orders);
    var rev = os.filter(function (o) { return o.status === "paid" || o.status === "shipped"; }).reduce(function (s, o) { return s + o.total; }, 0);
    var k = [
      ["users", us.length], ["active", us.filter(function (u) { return u.status === "active"; }).length],
      ["suspended", us.filter(function (u) { return u.status === "suspended"; }).length],
      ["orders.pending", os.filter(function (o) { return o.status === "pending"; }).length],
      ["orders.paid", os.filter(function (o) { return o.status === "paid"; }).length], ["revenue", money(rev)]
    ];
    $("kpis").innerHTML = k.map(function (x) { return '<div class="kpi"><span>' + x[0] + "</span><b>" + x[1] + "</b></div>"; }).join("");
    $("maint-banner").hidden = !db.settings.maintenance_mode;
  }

  // ---- tabs --------------------------------------------------------------------------
  function showTab(name) {
    ui.tab = name;
    ["users", "orders", "settings", "audit"].forEach(function (t) {
      $("tab-" + t).setAttribute("aria-selected", t === name ? "true" : "false");
      $("panel-" + t).hidden = t !== name;
    });
    closeMenu();
    renderKpis();
    if (name === "users") renderUsers();
    if (name === "orders") renderOrders();
    if (name === "settings") renderSettings();
    if (name === "audit") renderAudit();
    if (location.hash !== "#" + name) history.replaceState(null, "", "#" + name);
  }

  // ---- generic table pieces -------------------------------------------------------------
  function headerHtml(cols, state, prefix) {
    return cols.map(function (c) {
      if (!c.sort) return '<th scope="col" class="' + (c.cls || "") + '">' + c.label + "</th>";
      var active = state.sort === c.key;
      var arrow = active ? (state.dir > 0 ? " ▲" : " ▼") : "";
      var aria = active ? (state.dir > 0 ? "ascending" : "descending") : "none";
      return '<th scope="col" aria-sort="' + aria + '" class="' + (c.cls || "") + '"><button type="button" class="sort" id="' + prefix + c.key + '" data-key="' + c.key + '">' + c.label + arrow + "</button></th>";
    }).join("");
  }
  function pagerHtml(total, page, prefix) {
    var pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    var from = total ? (page - 1) * PAGE_SIZE + 1 : 0, to = Math.min(total, page * PAGE_SIZE);
    var h = '<span class="range">Showing ' + from + "–" + to + " of " + total + "</span>";
    h += '<button type="button" id="' + prefix + 'prev"' + (page <= 1 ? " disabled" : "") + ">‹ Prev</button>";
    for (var p = 1; p <= pages; p++) h += '<button type="button" id="' + prefix + p + '" class="pg' + (p === page ? " cur" : "") + '"' + (p === page ? ' aria-current="page"' : "") + ">" + p + "</button>";
    h += '<button type="button" id="' + prefix + 'next"' + (page >= pages ? " disabled" : "") + ">Next ›</button>";
    return h;
  }
  function wirePager(el, state, total, rerender) {
    var pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    el.querySelectorAll("button").forEach(function (b) {
      b.addEventListener("click", function () {
        var id = b.id.replace(/^o?page-/, "");
        if (id === "prev") state.page = Math.max(1, state.page - 1);
        else if (id === "next") state.page = Math.min(pages, state.page + 1);
        else state.page = parseInt(id, 10);
        rerender();
      });
    });
  }
  function wireSort(thead, state, rerender) {
    thead.querySelectorAll("button.sort").forEach(function (b) {
      b.addEventListener("click", function () {
        var key = b.getAttribute("data-key");
        if (state.sort === key) state.dir = -state.dir; else { state.sort = key; state.dir = 1; }
        state.page = 1;
        rerender();
      });
    });
  }

  // ---- users -------------------------------------------------------------------------
  var USER_COLS = [
    { key: "sel", label: '<input type="checkbox" id="sel-all" aria-label="Select all users on this page">', cls: "c-sel" },
    { key: "id", label: "ID", sort: 1, cls: "mono" }, { key: "name", label: "Name", sort: 1 }, { key: "email", label: "Email", sort: 1 },
    { key: "role", label: "Role", sort: 1 }, { key: "team", label: "Team", sort: 1 }, { key: "status", label: "Status", sort: 1 },
    { key: "joined", label: "Joined", sort: 1, cls: "mono" }, { key: "last_login", label: "Last login", sort: 1, cls: "mono" },
    { key: "act", label: '<span class="sr">Actions</span>', cls: "c-act" }
  ];
  function filteredUsers() {
    var s = ui.users, q = s.q.trim().toLowerCase();
    var list = Object.values(db.users).filter(function (u) {
      if (s.role && u.role !== s.role) return false;
      if (s.team && u.team !== s.team) return false;
      if (s.status && u.status !== s.status) return false;
      if (q && (u.id + " " + u.name + " " + u.email + " " + u.team).toLowerCase().indexOf(q) < 0) return false;
      return true;
    });
    list.sort(function (a, b) { return s.dir * (cmp(a[s.sort], b[s.sort]) || cmp(a.id, b.id)); });
    return list;
  }
  function renderUsers() {
    var s = ui.users, list = filteredUsers();
    var pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
    if (s.page > pages) s.page = pages;
    var rows = list.slice((s.page - 1) * PAGE_SIZE, s.page * PAGE_SIZE);
    var thead = $("users-head");
    thead.innerHTML = "<tr>" + headerHtml(USER_COLS, s, "sort-") + "</tr>";
    wireSort(thead, s, renderUsers);
    $("users-body").innerHTML = rows.length ? rows.map(function (u) {
      var sel = !!s.selected[u.id];
      return '<tr id="row-' + u.id + '"' + (sel ? ' class="selected"' : "") + '><td class="c-sel"><input type="checkbox" id="sel-' + u.id + '" data-id="' + u.id + '" aria-label="Select ' + esc(u.name) + '"' + (sel ? " checked" : "") + "></td>" +
        '<td class="mono">' + u.id + "</td><td>" + esc(u.name) + '</td><td class="mono dim">' + esc(u.email) + "</td>" +
        '<td><span class="role r-' + u.role.toLowerCase() + '">' + u.role + "</span></td><td>" + u.team + '</td><td><span class="st s-' + u.status + '">' + u.status + "</span></td>" +
        '<td class="mono">' + u.joined + '</td><td class="mono">' + u.last_login + '</td><td class="c-act"><button type="button" class="kebab" id="actions-' + u.id + '" aria-haspopup="menu" aria-expanded="false" aria-label="Actions for ' + esc(u.name) + '">⋯</button></td></tr>';
    }).join("") : '<tr><td colspan="10" class="empty">No users match these filters.</td></tr>';
    var pageIds = rows.map(function (u) { return u.id; });
    var all = $("sel-all");
    all.checked = pageIds.length > 0 && pageIds.every(function (id) { return s.selected[id]; });
    all.addEventListener("change", function () {
      pageIds.forEach(function (id) { if (all.checked) s.selected[id] = true; else delete s.selected[id]; });
      renderUsers();
    });
    $("users-body").querySelectorAll("input[data-id]").forEach(function (cb) {
      cb.addEventListener("change", function () {
        var id = cb.getAttribute("data-id");
        if (cb.checked) s.selected[id] = true; else delete s.selected[id];
        renderUsers();
      });
    });
    $("users-body").querySelectorAll("button.kebab").forEach(function (b) {
      b.addEventListener("click", function (e) { e.stopPropagation(); userMenu(b, db.users[b.id.slice(8)]); });
    });
    var pager = $("users-pager");
    pager.innerHTML = pagerHtml(list.length, s.page, "page-");
    wirePager(pager, s, list.length, renderUsers);
    var n = Object.keys(s.selected).length;
    $("sel-count").textContent = n ? n + " selected" : "none selected";
    $("bulk-apply").disabled = !(n && $("bulk-action").value);
    renderKpis();
  }
  function userMenu(button, u) {
    var deact = u.status === "active";
    showMenu(button, [
      { id: "act-edit-" + u.id, label: "Edit user…", run: function () { editUser(u.id); } },
      { id: "act-toggle-" + u.id, label: deact ? "Deactivate" : "Activate", run: function () { toggleUser(u.id); } },
      { id: "act-suspend-" + u.id, label: "Suspend", disabled: u.status === "suspended", why: "Already suspended", run: function () { suspendUser(u.id); } },
      { sep: 1 },
      { id: "act-delete-" + u.id, label: "Delete user…", danger: true, run: function () { deleteUser(u.id); } }
    ]);
  }
  function activeAdmins(exceptIds) {
    return Object.values(db.users).filter(function (u) { return u.role === "Admin" && u.status === "active" && !(exceptIds && exceptIds[u.id]); }).length;
  }
  function setStatus(ids, status) {
    ids.forEach(function (id) {
      var u = db.users[id]; if (!u || u.status === status) return;
      audit("user." + (status === "active" ? "activate" : status === "inactive" ? "deactivate" : "suspend"), id, u.status + " -> " + status);
      u.status = status;
    });
    persist(["users"]);
  }
  function lastAdminBlock(ids) {
    var ex = {}; ids.forEach(function (id) { ex[id] = true; });
    var touchesAdmin = ids.some(function (id) { return db.users[id] && db.users[id].role === "Admin" && db.users[id].status === "active"; });
    return touchesAdmin && activeAdmins(ex) === 0;
  }
  function toggleUser(id) {
    var u = db.users[id];
    if (u.status === "active") {
      var blocked = lastAdminBlock([id]);
      confirmDialog({
        title: "Deactivate " + u.name + "?",
        body: blocked ? '<p class="err">' + esc(u.name) + " is the last active Admin. Promote another user to Admin first.</p>" :
          "<p><b>" + esc(u.name) + "</b> (" + u.id + ") will be signed out and can no longer log in. You can reactivate the account later.</p>",
        okLabel: "Deactivate", danger: true, blocked: blocked,
        run: function () { setStatus([id], "inactive"); toast(u.name + " deactivated"); renderUsers(); }
      });
    } else {
      setStatus([id], "active"); toast(u.name + " activated"); renderUsers();
    }
  }
  function suspendUser(id) {
    var u = db.users[id];
    var blocked = lastAdminBlock([id]);
    confirmDialog({
      title: "Suspend " + u.name + "?",
      body: blocked ? '<p class="err">' + esc(u.name) + " is the last active Admin.</p>" : "<p>Suspended accounts are locked pending review.</p>",
      okLabel: "Suspend", danger: true, blocked: blocked,
      run: function () { setStatus([id], "suspended"); toast(u.name + " suspended", "warn"); renderUsers(); }
    });
  }
  function openOrdersOf(id) {
    return Object.values(db.orders).filter(function (o) { return o.assignee === id && OPEN_ORDER[o.status]; });
  }
  function deleteUser(id) {
    var u = db.users[id];
    var open = openOrdersOf(id);
    var blocked = open.length > 0 || lastAdminBlock([id]);
    var body = open.length ?
      '<p class="err">' + esc(u.name) + " is still assigned " + open.length + " open order" + (open.length > 1 ? "s" : "") + " (" + open.map(function (o) { return o.id; }).join(", ") + "). Reassign " + (open.length > 1 ? "them" : "it") + " in the Orders tab before deleting this user.</p>" :
      blocked ? '<p class="err">' + esc(u.name) + " is the last active Admin.</p>" :
      "<p>Permanently delete <b>" + esc(u.name) + "</b> (" + u.id + ")? This cannot be undone.</p>";
    confirmDialog({
      title: "Delete " + u.name + "?", body: body, okLabel: "Delete", danger: true, blocked: blocked,
      run: function () {
        delete db.users[id]; delete ui.users.selected[id];
        persist(["users"]); audit("user.delete", id, u.name + " <" + u.email + ">");
        toast(u.name + " deleted", "warn"); renderUsers();
      }
    });
  }
  var editing = null;
  function editUser(id) {
    var u = db.users[id];
    editing = id;
    $("edit-title").textContent = "Edit user " + u.id;
    $("edit-name").value = u.name; $("edit-email").value = u.email;
    $("edit-role").value = u.role; $("edit-team").value = u.team;
    $("edit-errors").textContent = "";
    ["edit-name", "edit-email"].forEach(function (f) { $(f).removeAttribute("aria-invalid"); });
    openModal("modal-edit");
  }
  function saveEdit() {
    var u = db.users[editing];
    var name = $("edit-name").value.trim(), email = $("edit-email").value.trim();
    var role = $("edit-role").value, team = $("edit-team").value;
    var errs = [];
    if (!name) { errs.push("Name is required."); $("edit-name").setAttribute("aria-invalid", "true"); }
    if (!EMAIL_RE.test(email)) { errs.push("Enter a valid email address."); $("edit-email").setAttribute("aria-invalid", "true"); }
    else if (Object.values(db.users).some(function (x) { return x.id !== u.id && x.email.toLowerCase() === email.toLowerCase(); })) {
      errs.push("Another user already has this email."); $("edit-email").setAttribute("aria-invalid", "true");
    }
    if (u.role === "Admin" && role !== "Admin" && u.status === "active" && activeAdmins({ [u.id]: true }) === 0) errs.push("This is the last active Admin; promote someone else first.");
    if (errs.length) { $("edit-errors").innerHTML = errs.map(esc).join("<br>"); return; }
    var changes = [];
    [["name", name], ["email", email], ["role", role], ["team", team]].forEach(function (p) {
      if (u[p[0]] !== p[1]) { changes.push(p[0] + ": " + u[p[0]] + " -> " + p[1]); u[p[0]] = p[1]; }
    });
    persist(["users"]);
    if (changes.length) audit("user.update", u.id, changes.join("; "));
    closeModal();
    toast(changes.length ? "Saved " + u.name : "No changes");
    renderUsers();
  }
  function applyBulk() {
    var ids = Object.keys(ui.users.selected).filter(function (id) { return db.users[id]; }).sort();
    var action = $("bulk-action").value;
    if (!ids.length || !action) return;
    var label = $("bulk-action").selectedOptions[0].textContent;
    var blocked = false, why = "";
    if (action === "delete") {
      var withOrders = ids.filter(function (id) { return openOrdersOf(id).length; });
      if (withOrders.length) { blocked = true; why = "Users with open orders cannot be deleted: " + withOrders.join(", ") + "."; }
    }
    if ((action === "deactivate" || action === "suspend" || action === "delete" || /^role:(?!Admin)/.test(action)) && lastAdminBlock(ids)) {
      blocked = true; why = "This would leave no active Admin.";
    }
    confirmDialog({
      title: "Apply “" + label + "” to " + ids.length + " user" + (ids.length > 1 ? "s" : "") + "?",
      body: (blocked ? '<p class="err">' + esc(why) + "</p>" : "") + '<ul class="idlist">' + ids.map(function (id) { return "<li><span class=\"mono\">" + id + "</span> " + esc(db.users[id].name) + "</li>"; }).join("") + "</ul>",
      okLabel: "Apply to " + ids.length, danger: action === "delete" || action === "deactivate" || action === "suspend", blocked: blocked,
      run: function () {
        if (action === "activate") setStatus(ids, "active");
        else if (action === "deactivate") setStatus(ids, "inactive");
        else if (action === "suspend") setStatus(ids, "suspended");
        else if (action === "delete") { ids.forEach(function (id) { audit("user.delete", id, db.users[id].name + " <" + db.users[id].email + ">"); delete db.users[id]; }); persist(["users"]); }
        else if (action.indexOf("role:") === 0) {
          var role = action.slice(5);
          ids.forEach(function (id) { var u = db.users[id]; if (u.role !== role) { audit("user.update", id, "role: " + u.role + " -> " + role); u.role = role; } });
          persist(["users"]);
        }
        toast(label + ": " + ids.length + " user" + (ids.length > 1 ? "s" : "") + " updated");
        ui.users.selected = {};
        $("bulk-action").value = "";
        renderUsers();
      }
    });
  }

  // ---- orders ------------------------------------------------------------------------
  var ORDER_COLS = [
    { key: "id", label: "Order", sort: 1, cls: "mono" }, { key: "customer", label: "Customer", sort: 1 }, { key: "date", label: "Date", sort: 1, cls: "mono" },
    { key: "items", label: "Items", sort: 1, cls: "num" }, { key: "total", label: "Total", sort: 1, cls: "num" }, { key: "status", label: "Status", sort: 1 },
    { key: "assignee", label: "Assignee", sort: 1 }, { key: "act", label: '<span class="sr">Actions</span>', cls: "c-act" }
  ];
  function filteredOrders() {
    var s = ui.orders, q = s.q.trim().toLowerCase();
    var list = Object.values(db.orders).filter(function (o) {
      if (s.status && o.status !== s.status) return false;
      if (q && (o.id + " " + o.customer + " " + o.assignee + " " + userName(o.assignee)).toLowerCase().indexOf(q) < 0) return false;
      return true;
    });
    var key = function (o) { return s.sort === "assignee" ? userName(o.assignee) : o[s.sort]; };
    list.sort(function (a, b) { return s.dir * (cmp(key(a), key(b)) || cmp(a.id, b.id)); });
    return list;
  }
  function renderOrders() {
    var s = ui.orders, list = filteredOrders();
    var pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
    if (s.page > pages) s.page = pages;
    var rows = list.slice((s.page - 1) * PAGE_SIZE, s.page * PAGE_SIZE);
    var thead = $("orders-head");
    thead.innerHTML = "<tr>" + headerHtml(ORDER_COLS, s, "osort-") + "</tr>";
    wireSort(thead, s, renderOrders);
    $("orders-body").innerHTML = rows.length ? rows.map(function (o) {
      return '<tr id="orow-' + o.id + '"><td class="mono">' + o.id + "</td><td>" + esc(o.customer) + '</td><td class="mono">' + o.date + '</td><td class="num mono">' + o.items +
        '</td><td class="num mono">' + money(o.total) + '</td><td><span class="st o-' + o.status + '">' + o.status + "</span></td><td>" + esc(userName(o.assignee)) +
        ' <span class="mono dim">' + o.assignee + '</span></td><td class="c-act"><button type="button" class="kebab" id="oactions-' + o.id + '" aria-haspopup="menu" aria-expanded="false" aria-label="Actions for order ' + o.id + '">⋯</button></td></tr>';
    }).join("") : '<tr><td colspan="8" class="empty">No orders match these filters.</td></tr>';
    $("orders-body").querySelectorAll("button.kebab").forEach(function (b) {
      b.addEventListener("click", function (e) { e.stopPropagation(); orderMenu(b, db.orders[b.id.slice(9)]); });
    });
    var pager = $("orders-pager");
    pager.innerHTML = pagerHtml(list.length, s.page, "opage-");
    wirePager(pager, s, list.length, renderOrders);
    renderKpis();
  }
  function setOrderStatus(o, status, verb) {
    audit("order." + verb, o.id, o.status + " -> " + status);
    o.status = status;
    persist(["orders"]);
    toast("Order " + o.id + ": " + status);
    renderOrders();
  }
  function orderMenu(button, o) {
    var st = o.status;
    showMenu(button, [
      { id: "oact-pay-" + o.id, label: "Mark as paid", disabled: st !== "pending", why: "Only pending orders", run: function () { setOrderStatus(o, "paid", "pay"); } },
      { id: "oact-ship-" + o.id, label: "Mark as shipped", disabled: st !== "paid", why: "Only paid orders can ship", run: function () { setOrderStatus(o, "shipped", "ship"); } },
      { id: "oact-assign-" + o.id, label: "Reassign…", disabled: !OPEN_ORDER[st], why: "Only open orders", run: function () { assignOrder(o.id); } },
      { sep: 1 },
      { id: "oact-refund-" + o.id, label: "Refund…", danger: true, disabled: !(st === "paid" || st === "shipped"), why: "Only paid or shipped orders",
        run: function () { confirmDialog({ title: "Refund order " + o.id + "?", body: "<p>Refund <b>" + money(o.total) + "</b> to " + esc(o.customer) + ".</p>", okLabel: "Refund " + money(o.total), danger: true, run: function () { setOrderStatus(o, "refunded", "refund"); } }); } },
      { id: "oact-cancel-" + o.id, label: "Cancel order…", danger: true, disabled: !OPEN_ORDER[st], why: "Only open orders",
        run: function () { confirmDialog({ title: "Cancel order " + o.id + "?", body: "<p>The customer " + esc(o.customer) + " will be notified.</p>", okLabel: "Cancel order", danger: true, run: function () { setOrderStatus(o, "cancelled", "cancel"); } }); } }
    ]);
  }
  var assigning = null;
  function assignOrder(id) {
    var o = db.orders[id];
    assigning = id;
    $("assign-title").textContent = "Reassign order " + id;
    var opts = Object.values(db.users).filter(function (u) { return u.status === "active"; }).sort(function (a, b) { return cmp(a.name, b.name); });
    $("assign-select").innerHTML = '<option value="">Choose a user…</option>' + opts.map(function (u) {
      return '<option value="' + u.id + '">' + esc(u.name) + " (" + u.id + ", " + u.team + ")</option>";
    }).join("");
    $("assign-current").textContent = "Currently: " + userName(o.assignee) + " (" + o.assignee + ")";
    $("assign-error").textContent = "";
    openModal("modal-assign");
  }
  function saveAssign() {
    var o = db.orders[assigning], to = $("assign-select").value;
    if (!to) { $("assign-error").textContent = "Choose a user."; return; }
    if (to !== o.assignee) { audit("order.reassign", o.id, o.assignee + " -> " + to); o.assignee = to; persist(["orders"]); }
    closeModal();
    toast("Order " + o.id + " assigned to " + userName(to));
    renderOrders();
  }

  // ---- settings ----------------------------------------------------------------------
  var SETTING_FIELDS = [
    ["org_name", "set-orgname", "text"], ["default_role", "set-default-role", "select"], ["session_timeout_min", "set-timeout", "int"],
    ["require_2fa_admins", "set-2fa", "check"], ["audit_retention_days", "set-retention", "int"], ["maintenance_mode", "set-maintenance", "check"],
    ["timezone", "set-timezone", "select"], ["notify_email", "set-notify-email", "text"]
  ];
  function formValue(f) {
    var el = $(f[1]);
    if (f[2] === "check") return el.checked;
    if (f[2] === "int") return parseInt(el.value, 10);
    return el.value.trim();
  }
  function renderSettings() {
    SETTING_FIELDS.forEach(function (f) {
      var el = $(f[1]), v = db.settings[f[0]];
      if (f[2] === "check") el.checked = !!v; else el.value = String(v);
    });
    $("settings-error").textContent = "";
    settingsDirty();
  }
  function settingsDirty() {
    var dirty = SETTING_FIELDS.some(function (f) { return formValue(f) !== db.settings[f[0]]; });
    $("settings-save").disabled = !dirty;
    $("settings-discard").disabled = !dirty;
    $("settings-state").textContent = dirty ? "Unsaved changes" : "All changes saved";
    $("settings-state").className = dirty ? "dirty" : "clean";
  }
  function saveSettings() {
    var next = {};
    SETTING_FIELDS.forEach(function (f) { next[f[0]] = formValue(f); });
    if (!next.org_name) { $("settings-error").textContent = "Organization name is required."; return; }
    if (!EMAIL_RE.test(next.notify_email)) { $("settings-error").textContent = "Notification email is not a valid address."; $("set-notify-email").setAttribute("aria-invalid", "true"); return; }
    $("set-notify-email").removeAttribute("aria-invalid");
    var changes = [];
    SETTING_FIELDS.forEach(function (f) { if (db.settings[f[0]] !== next[f[0]]) changes.push(f[0] + ": " + db.settings[f[0]] + " -> " + next[f[0]]); });
    db.settings = next;
    persist(["settings"]);
    if (changes.length) audit("settings.update", "settings", changes.join("; "));
    toast("Settings saved (" + changes.length + " change" + (changes.length === 1 ? "" : "s") + ")");
    renderSettings();
    renderKpis();
  }

  // ---- audit -------------------------------------------------------------------------
  function renderAudit() {
    var q = $("audit-filter").value.trim().toLowerCase();
    var rows = db.audit.slice().reverse().filter(function (a) {
      return !q || (a.action + " " + a.target + " " + a.detail + " " + a.actor).toLowerCase().indexOf(q) >= 0;
    });
    $("audit-body").innerHTML = rows.map(function (a) {
      return '<tr><td class="mono">' + a.seq + '</td><td class="mono">' + a.at + '</td><td class="mono">' + esc(a.actor) + '</td><td class="mono acc">' + esc(a.action) +
        '</td><td class="mono">' + esc(a.target) + "</td><td>" + esc(a.detail) + "</td></tr>";
    }).join("") || '<tr><td colspan="6" class="empty">No entries.</td></tr>';
    $("audit-count").textContent = rows.length + " of " + db.audit.length + " entries";
  }

  // ---- wiring ------------------------------------------------------------------------
  function fillSelect(id, first, values) {
    $(id).innerHTML = (first ? '<option value="">' + first + "</option>" : "") + values.map(function (v) { return '<option value="' + v + '">' + v + "</option>"; }).join("");
  }
  document.addEventListener("DOMContentLoaded", function () {
    fillSelect("filter-role", "All roles", ROLES);
    fillSelect("filter-team", "All teams", TEAMS);
    fillSelect("filter-status", "All statuses", STATUSES);
    fillSelect("order-status-filter", "All statuses", ORDER_STATUSES);
    fillSelect("edit-role", null, ROLES);
    fillSelect("edit-team", null, TEAMS);
    ["users", "orders", "settings", "audit"].forEach(function (t) { $("tab-" + t).addEventListener("click", function () { showTab(t); }); });

    $("user-filter").addEventListener("input", function () { ui.users.q = this.value; ui.users.page = 1; ui.users.selected = {}; renderUsers(); });
    [["filter-role", "role"], ["filter-team", "team"], ["filter-status", "status"]].forEach(function (p) {
      $(p[0]).addEventListener("change", function () { ui.users[p[1]] = this.value; ui.users.page = 1; ui.users.selected = {}; renderUsers(); });
    });
    $("filter-clear").addEventListener("click", function () {
      ui.users.q = ui.users.role = ui.users.team = ui.users.status = ""; ui.users.page = 1; ui.users.selected = {};
      $("user-filter").value = ""; $("filter-role").value = ""; $("filter-team").value = ""; $("filter-status").value = "";
      renderUsers();
    });
    $("bulk-action").addEventListener("change", renderUsers);
    $("bulk-apply").addEventListener("click", applyBulk);

    $("order-filter").addEventListener("input", function () { ui.orders.q = this.value; ui.orders.page = 1; renderOrders(); });
    $("order-status-filter").addEventListener("change", function () { ui.orders.status = this.value; ui.orders.page = 1; renderOrders(); });

    $("confirm-ok").addEventListener("click", function () { var run = pendingConfirm; pendingConfirm = null; closeModal(); if (run) run(); });
    $("confirm-cancel").addEventListener("click", closeModal);
    $("edit-save").addEventListener("click", saveEdit);
    $("edit-cancel").addEventListener("click", closeModal);
    $("edit-close").addEventListener("click", closeModal);
    $("edit-form").addEventListener("submit", function (e) { e.preventDefault(); saveEdit(); });
    $("assign-save").addEventListener("click", saveAssign);
    $("assign-cancel").addEventListener("click", closeModal);

    SETTING_FIELDS.forEach(function (f) { $(f[1]).addEventListener(f[2] === "text" ? "input" : "change", settingsDirty); });
    $("settings-form").addEventListener("submit", function (e) { e.preventDefault(); saveSettings(); });
    $("settings-discard").addEventListener("click", renderSettings);
    $("audit-filter").addEventListener("input", renderAudit);

    $("user-menu").addEventListener("click", function (e) {
      e.stopPropagation();
      showMenu($("user-menu"), [
        { id: "menu-shortcuts", label: "Keyboard shortcuts", run: function () { openModal("modal-help"); } },
        { id: "menu-audit", label: "View audit log", run: function () { showTab("audit"); } },
        { sep: 1 },
        { id: "menu-reset", label: "Reset demo data…", danger: true, run: function () {
          confirmDialog({ title: "Reset demo data?", body: "<p>All users, orders, settings and the audit log go back to their initial state.</p>", okLabel: "Reset", danger: true,
            run: function () { seed(true); db = { users: read(K.users), orders: read(K.orders), settings: read(K.settings), audit: read(K.audit) }; toast("Demo data reset", "warn"); showTab(ui.tab); } });
        } }
      ]);
    });
    $("help-close").addEventListener("click", closeModal);

    var start = location.hash.slice(1);
    showTab(["users", "orders", "settings", "audit"].indexOf(start) >= 0 ? start : "users");
  });
})();
