// The volatile site's page script. Every request it makes carries something that changes
// from load to load (a time, a random token, a fresh id) next to stable parameters that
// select content (page, q, id, item_id). The results are drawn on the page, so a screenshot
// shows whether a replay served each of them; window.__volatileStatus says the same in data,
// and window.__volatileDone turns true once every request has settled, well or badly.
"use strict";
(function () {
  const port = location.port ? ":" + location.port : "";
  const base = location.hostname.replace(/^www\./, "");
  const API = location.protocol + "//api." + base + port;
  const STATS = location.protocol + "//stats." + base + port;
  const WS = (location.protocol === "https:" ? "wss://" : "ws://") + "api." + base + port;
  const TIMEOUT_MS = 5000;
  const status = {};
  window.__volatileStatus = status;
  window.__volatileDone = false;

  const token = () => Math.random().toString(36).slice(2, 10);
  const hex = (n) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  const uuid = () => [hex(8), hex(4), "4" + hex(3), "8" + hex(3), hex(12)].join("-");
  const el = (id) => document.getElementById(id);
  const csrf = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  // A list entry made when the request is sent, so entries keep the order of issue
  // whatever order the answers come in (screenshots of two loads must match).
  function slot(id) {
    const li = document.createElement("li");
    el(id).appendChild(li);
    return li;
  }

  function fill(id, lines) {
    const list = el(id);
    for (const line of lines) {
      const li = document.createElement("li");
      li.textContent = line;
      list.appendChild(li);
    }
  }

  // Run one task; its outcome (ok / error / timeout) goes into status[name].
  function task(name, body) {
    const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), TIMEOUT_MS));
    const work = Promise.resolve().then(body).then(() => "ok", (err) => "error: " + err);
    return Promise.race([work, timeout]).then((outcome) => { status[name] = outcome; });
  }

  async function getJSON(url, init) {
    const response = await fetch(url, Object.assign({ credentials: "include" }, init || {}));
    if (!response.ok) throw new Error("HTTP " + response.status);
    return response.json();
  }

  function items(q, page, listId) {
    return task("items-" + q + "-" + page, async () => {
      const data = await getJSON(API + "/api/items?page=" + page + "&q=" + encodeURIComponent(q) + "&_=" + Date.now());
      fill(listId, data.items.map((item) => item.id + " " + item.name));
    });
  }

  function detail(id) {
    const li = slot("details");
    return task("item-" + id, async () => {
      const data = await getJSON(API + "/api/item?id=" + id + "&_=" + Date.now());
      li.textContent = "#" + data.id + " " + data.name + " $" + data.price;
    });
  }

  function counter() {
    return task("counter", async () => {
      const data = await getJSON(API + "/api/counter", { headers: { "X-Request-Id": uuid() } });
      el("counter").textContent = String(data.count);
    });
  }

  // A JSON POST whose keys come in a new order each time, with a time and a nonce in it.
  function addToCart(itemId) {
    const li = slot("cart");
    return task("cart-" + itemId, async () => {
      const fields = [["item_id", itemId], ["qty", 1], ["ts", Date.now()], ["nonce", hex(16)]];
      for (let i = fields.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [fields[i], fields[j]] = [fields[j], fields[i]];
      }
      const data = await getJSON(API + "/api/cart", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf(), "X-Request-Id": uuid() },
        body: JSON.stringify(Object.fromEntries(fields)),
      });
      li.textContent = "added " + data.item_id + " " + data.name;
    });
  }

  function jsonp() {
    return task("jsonp", () => new Promise((resolve, reject) => {
      const name = "cb_" + token();
      window[name] = (data) => { el("promo").textContent = data.promo; resolve(); };
      const script = document.createElement("script");
      script.src = API + "/api/promo?callback=" + name;
      script.onerror = () => reject(new Error("script failed"));
      document.head.appendChild(script);
    }));
  }

  function logo() {
    return task("logo", () => new Promise((resolve, reject) => {
      const img = el("logo");
      img.onload = resolve;
      img.onerror = () => reject(new Error("image failed"));
      img.src = "/static/logo.svg?cb=" + token();
    }));
  }

  function beacon() {
    return task("beacon", () => {
      const form = new URLSearchParams({ event: "view", page: document.body.dataset.page, t: String(Date.now()), sid: token() });
      if (!navigator.sendBeacon(STATS + "/beacon", form)) throw new Error("not queued");
    });
  }

  function socket() {
    return task("socket", () => new Promise((resolve, reject) => {
      let ws;
      try { ws = new WebSocket(WS + "/ws"); } catch (err) { el("socket").textContent = "unavailable"; reject(err); return; }
      let heard = false;
      const fail = (why) => { el("socket").textContent = "unavailable"; reject(new Error(why)); };
      ws.onmessage = (event) => { heard = true; el("socket").textContent = event.data; ws.close(); resolve(); };
      ws.onerror = () => { if (!heard) fail("socket failed"); };
      ws.onclose = () => { if (!heard) fail("socket closed before a message"); };
    }));
  }

  function serviceWorker() {
    return task("sw", async () => {
      if (!("serviceWorker" in navigator)) { el("sw").textContent = "unsupported"; return; }
      try {
        // Playwright's block swaps register() for one that resolves to nothing.
        const registration = await navigator.serviceWorker.register("/sw.js");
        el("sw").textContent = registration ? "registered" : "blocked";
      } catch (err) {
        el("sw").textContent = "blocked";
      }
    });
  }

  function noise() {
    const canvas = el("noise");
    if (!canvas) return;
    const ctx = canvas.getContext("2d");
    for (let i = 0; i < 24; i++) {
      ctx.fillStyle = "hsl(" + Math.floor(Math.random() * 360) + ",70%,50%)";
      ctx.fillRect(Math.random() * 150, Math.random() * 50, 10, 10);
    }
  }

  function homeTasks() {
    noise();
    return [
      items("shoes", 1, "items-shoes-1"), items("shoes", 2, "items-shoes-2"), items("hats", 1, "items-hats-1"),
      detail(101), detail(102), detail(103), addToCart(101), addToCart(102),
      counter(), jsonp(), logo(), beacon(), socket(), serviceWorker(),
    ];
  }

  function searchTasks() {
    const q = document.body.dataset.q;
    const page = document.body.dataset.pageno;
    return [items(q, page, "results"), counter(), logo(), beacon()];
  }

  // Requests in a fixed order of issue; each settles on its own.
  const tasks = document.body.dataset.page === "search" ? searchTasks() : homeTasks();
  Promise.all(tasks).then(() => { window.__volatileDone = true; });
})();
