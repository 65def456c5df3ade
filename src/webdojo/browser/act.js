// Small page-side helpers for the executor, evaluated as one function: (args) => result,
// dispatching on args.op. Kept in one file so every call sends the same source text.
(args) => {
  const KEY = Symbol.for("webdojo");
  const st = window[KEY] || null;

  // The element registered under this id by the last snapshot (dom.js).
  function lookup(id) {
    const el = st && st.els ? st.els[id] : null;
    if (!el) return { error: "unknown" };
    if (!el.isConnected) return { error: "detached" };
    return { el };
  }

  // Bounding box in top-level viewport pixels, following same-origin iframes up.
  function topBox(el) {
    const r = el.getBoundingClientRect();
    let x = r.x;
    let y = r.y;
    let win = el.ownerDocument.defaultView;
    while (win && win.frameElement) {
      const f = win.frameElement;
      const fr = f.getBoundingClientRect();
      const cs = win.parent.getComputedStyle(f);
      x += fr.x + f.clientLeft + parseFloat(cs.paddingLeft);
      y += fr.y + f.clientTop + parseFloat(cs.paddingTop);
      win = win.parent;
    }
    return { x, y, w: r.width, h: r.height };
  }

  // The innermost element at a top-level point, through shadow roots and same-origin iframes.
  function deepHit(x, y) {
    let doc = document;
    let hit = doc.elementFromPoint(x, y);
    for (let i = 0; hit && i < 32; i++) {
      if (hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x, y);
        if (inner && inner !== hit) { hit = inner; continue; }
      }
      if (hit.localName === "iframe") {
        let sub = null;
        try { sub = hit.contentDocument; } catch (e) { sub = null; }
        if (sub) {
          // Point in the iframe's own viewport: minus its box, border and padding.
          const r = hit.getBoundingClientRect();
          const cs = hit.ownerDocument.defaultView.getComputedStyle(hit);
          x -= r.x + hit.clientLeft + parseFloat(cs.paddingLeft);
          y -= r.y + hit.clientTop + parseFloat(cs.paddingTop);
          doc = sub;
          const inner = doc.elementFromPoint(x, y);
          if (inner) { hit = inner; continue; }
        }
      }
      break;
    }
    return hit;
  }

  function within(el, node) {
    for (let n = node; n; n = n.parentNode || n.host) if (n === el) return true;
    return false;
  }

  const hits = (el, x, y) => {
    const h = deepHit(x, y);
    return !!h && (within(el, h) || (h.localName === "label" && h.control === el) ||
      (el.localName === "label" && h === el.control));
  };

  function editable(el) {
    if (el.localName === "label" && el.control) el = el.control;
    if (el.isContentEditable) return true;
    if (el.localName === "textarea") return !el.readOnly && !el.disabled;
    if (el.localName !== "input") return false;
    const nonText = ["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color", "hidden"];
    return !nonText.includes(el.type) && !el.readOnly && !el.disabled;
  }

  // A point inside the element that a click would actually reach, scrolling it on screen first.
  function locate(id, armed) {
    const found = lookup(id);
    if (found.error) return found;
    const el = found.el;
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    let b = topBox(el);
    const cx = b.x + b.w / 2;
    const cy = b.y + b.h / 2;
    if (!(cx >= 0 && cy >= 0 && cx < vw && cy < vh)) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      b = topBox(el);
    }
    if (b.w < 1 || b.h < 1) return { error: "hidden" };
    const fx = [0.5, 0.25, 0.75, 0.1, 0.9];
    for (const fy of [0.5, 0.25, 0.75]) {
      for (const f of fx) {
        const x = b.x + b.w * f;
        const y = b.y + b.h * fy;
        if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
        if (!hits(el, x, y)) continue;
        if (armed) arm(el);
        return { x, y, editable: editable(el), tag: el.localName };
      }
    }
    const x = Math.min(Math.max(b.x + b.w / 2, 0), vw - 1);
    const y = Math.min(Math.max(b.y + b.h / 2, 0), vh - 1);
    const cover = deepHit(x, y);
    return { error: "covered", cover: cover ? describe(cover) : "nothing" };
  }

  // Guard the next presses and clicks: one that would reach another element than the
  // target (the layout moved under the pointer) is stopped before the page sees it, and
  // recorded. Lifted by disarm (the executor's next read) or after two seconds.
  const GUARDED = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "dblclick",
    "auxclick", "contextmenu"];
  function arm(el) {
    disarm();
    const win = el.ownerDocument.defaultView;
    const guard = { missed: null };
    const onEvent = (e) => {
      const t = e.composedPath()[0] || e.target;
      if (t && t.nodeType === 1 && (within(el, t) || (t.localName === "label" && t.control === el) ||
        (el.localName === "label" && t === el.control))) return;
      if (!guard.missed) guard.missed = t && t.nodeType === 1 ? describe(t) : "nothing";
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    for (const type of GUARDED) win.addEventListener(type, onEvent, true);
    guard.off = () => { for (const type of GUARDED) win.removeEventListener(type, onEvent, true); };
    const timer = setTimeout(guard.off, 2000);
    const off = guard.off;
    guard.off = () => { clearTimeout(timer); off(); };
    st.guard = guard;
  }

  function disarm() {
    const guard = st ? st.guard : null;
    if (!guard) return null;
    guard.off();
    st.guard = null;
    return guard.missed;
  }

  function describe(el) {
    let s = "<" + el.localName;
    if (el.id) s += ` id="${el.id}"`;
    const cls = (el.getAttribute("class") || "").trim();
    if (cls) s += ` class="${cls.slice(0, 60)}"`;
    return s + ">";
  }

  function select(id, option) {
    const found = lookup(id);
    if (found.error) return found;
    const el = found.el;
    if (el.localName !== "select") return { error: "not_select", tag: el.localName };
    const opts = Array.from(el.options);
    const norm = (s) => (s || "").replace(/\s+/g, " ").trim().toLowerCase();
    const want = option.trim();
    const match =
      opts.find((o) => (o.label || o.text).trim() === want) ||
      opts.find((o) => o.value === want) ||
      opts.find((o) => norm(o.label || o.text) === norm(want));
    if (!match) return { error: "no_option", options: opts.map((o) => (o.label || o.text).trim()) };
    if (match.disabled || el.disabled) return { error: "disabled" };
    el.focus();
    match.selected = true;
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return { ok: true };
  }

  // Scroll the document itself; report whether it could move so the caller can fall back to
  // a wheel event (pages whose scroller is an inner element).
  function scrollPage(dx, dy) {
    const se = document.scrollingElement || document.documentElement;
    const before = [se.scrollLeft, se.scrollTop];
    const room = dy ? se.scrollHeight > se.clientHeight : se.scrollWidth > se.clientWidth;
    window.scrollBy({ left: dx, top: dy, behavior: "instant" });
    return { moved: se.scrollLeft !== before[0] || se.scrollTop !== before[1], room };
  }

  // What this document has started so far (hooks.js counters) and which document it is.
  function check() {
    const missed = disarm();
    return { missed, navs: st ? st.navs : 0, popups: st ? st.popups : 0, submits: st ? st.submits : 0,
      doc: st ? st.doc : null, ready: document.readyState, title: document.title,
      done: window.__webdojo_done === true }; // the page says its episode is over
  }

  function finalState(maxText) {
    const storage = {};
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const k = localStorage.key(i);
        storage[k] = localStorage.getItem(k);
      }
    } catch (e) { /* opaque origins (about:blank, data:) have no storage */ }
    const body = document.body ? document.body.innerText || "" : "";
    return { title: document.title, storage, text: body.slice(0, maxText) };
  }

  switch (args.op) {
    case "locate": return locate(args.id, !!args.arm);
    case "disarm": return { missed: disarm() };
    case "select": return select(args.id, args.option);
    case "scroll": return scrollPage(args.dx, args.dy);
    case "check": return check();
    // A form submission navigates from a task queued after the submit event: let it run.
    case "check_later": return new Promise((r) => setTimeout(() => r(check()), 0));
    case "history": return window.navigation ? { back: navigation.canGoBack, forward: navigation.canGoForward } : null;
    case "frame": return new Promise((r) => requestAnimationFrame(() => r(true)));
    case "unmark": if (st && st.overlay) { st.overlay.remove(); st.overlay = null; } return true;
    case "final": return finalState(args.maxText);
    default: throw new Error("unknown op " + args.op);
  }
}
