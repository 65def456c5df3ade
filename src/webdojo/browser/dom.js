// One pass over the DOM (evaluated as a function with one options argument).
//
// It gives every interactive element an id in DOM order (flat tree: open shadow roots and
// same-origin iframes included), stamps it with data-wd-id, keeps it in a registry for element
// actions, and returns, as a JSON string:
//   elements: objects with the fields of webdojo.observation.Element
//   extras:   [id, url, disabled] for links and disabled elements
//   nodes:    the accessibility-tree nodes in DOM order (only when opts.lines):
//             ["e", id] | ["h", name, inViewport] | ["i", name, inViewport] | ["t", text, inViewport]
// With opts.marks it also draws the ids of the on-screen elements in an overlay, which the
// caller removes after the screenshot.
(opts) => {
  const KEY = Symbol.for("webdojo");
  let st = window[KEY];
  if (!st) {
    st = { navs: 0, popups: 0, submits: 0, doc: "", els: [], overlay: null };  // hooks.js's shape
    Object.defineProperty(window, KEY, { value: st, enumerable: false });
  }
  if (st.overlay) st.overlay.remove();
  st.overlay = null;

  const VW = window.innerWidth;
  const VH = window.innerHeight;
  const NAME_MAX = 200;
  const TEXT_MAX = 500;
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title"]);
  const WIDGET_ROLES = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox", "slider",
    "spinbutton", "treeitem",
  ]);
  // Inline pointer handlers mark script-driven widgets (hover menus, double-click items).
  const HANDLERS = ["onclick", "ondblclick", "onmousedown", "onmouseup", "onpointerdown",
    "onmouseover", "onmouseenter"];
  const NAME_FROM_CONTENT = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "treeitem", "heading", "cell", "columnheader", "rowheader",
    "generic", "label",
  ]);

  const clean = (s, max) => {
    const t = (s || "").replace(/\s+/g, " ").trim();
    return t.length > max ? t.slice(0, max - 1) + "…" : t;
  };

  function inputRole(el) {
    const type = (el.getAttribute("type") || "text").toLowerCase();
    if (["button", "submit", "reset", "image", "file"].includes(type)) return "button";
    if (type === "checkbox" || type === "radio") return type;
    if (type === "range") return "slider";
    if (type === "number") return "spinbutton";
    if (type === "search") return el.hasAttribute("list") ? "combobox" : "searchbox";
    if (type === "hidden") return "";
    return el.hasAttribute("list") ? "combobox" : "textbox";
  }

  function implicitRole(el) {
    const tag = el.localName;
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "generic";
      case "button": case "summary": return "button";
      case "input": return inputRole(el);
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "textarea": return "textbox";
      case "img": return el.getAttribute("alt") === "" ? "presentation" : "img";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "option": return "option";
      case "label": return "label";
      case "td": return "cell";
      case "th": return "columnheader";
      default: return "generic";
    }
  }

  function roleOf(el) {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    return explicit || implicitRole(el);
  }

  function zeroArea(el) {
    const r = el.getBoundingClientRect();
    return r.width < 1 || r.height < 1;
  }

  function isInteractive(el, role, style, parentCursor) {
    const tag = el.localName;
    if (tag === "input") return el.type !== "hidden";
    if (["button", "select", "textarea", "summary"].includes(tag)) return true;
    if ((tag === "a" || tag === "area") && el.hasAttribute("href")) return true;
    if (WIDGET_ROLES.has(role)) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    if (tag === "label") {
      // A label is the click target of a control that is itself invisible (custom checkboxes).
      const c = el.control;
      return !!c && (zeroArea(c) || getComputedStyle(c).visibility === "hidden");
    }
    if (HANDLERS.some((a) => el.hasAttribute(a))) return true;
    // Script-only widgets: the outermost element that shows a pointer cursor.
    return style.cursor === "pointer" && parentCursor !== "pointer" && tag !== "body" && tag !== "html";
  }

  // A container the user can scroll (scroll actions may target it by id). Not html/body:
  // scrolling the page needs no target.
  function isScroller(el, style) {
    if (el === el.ownerDocument.documentElement || el === el.ownerDocument.body) return false;
    const y = style.overflowY === "auto" || style.overflowY === "scroll";
    const x = style.overflowX === "auto" || style.overflowX === "scroll";
    return (y && el.scrollHeight > el.clientHeight + 1) || (x && el.scrollWidth > el.clientWidth + 1);
  }

  function textOf(root) {
    const t = clean(root.innerText !== undefined ? root.innerText : root.textContent, NAME_MAX);
    if (t) return t;
    const inner = root.querySelector && root.querySelector("img[alt], [aria-label], svg title, [title]");
    if (!inner) return "";
    return clean(inner.getAttribute("alt") || inner.getAttribute("aria-label") ||
      inner.getAttribute("title") || inner.textContent, NAME_MAX);
  }

  function byIds(el, attr) {
    const ids = (el.getAttribute(attr) || "").trim();
    if (!ids) return "";
    const doc = el.getRootNode();
    return ids.split(/\s+/).map((id) => {
      const ref = doc.getElementById ? doc.getElementById(id) : null;
      return ref ? ref.textContent : "";
    }).join(" ");
  }

  function nameOf(el, role) {
    const tag = el.localName;
    let s = clean(byIds(el, "aria-labelledby"), NAME_MAX) || clean(el.getAttribute("aria-label"), NAME_MAX);
    if (s) return s;
    if (el.labels && el.labels.length) {
      s = clean(Array.from(el.labels).map((l) => l.innerText).join(" "), NAME_MAX);
      if (s) return s;
    }
    if (tag === "input" && ["button", "submit", "reset"].includes(el.type)) {
      return clean(el.value || { submit: "Submit", reset: "Reset" }[el.type] || "", NAME_MAX);
    }
    if (tag === "img" || (tag === "input" && el.type === "image") || tag === "area") {
      s = clean(el.getAttribute("alt"), NAME_MAX);
      if (s) return s;
    }
    if (tag === "label" && el.control) {
      s = textOf(el);
      if (s) return s;
    }
    if (NAME_FROM_CONTENT.has(role) && !["input", "select", "textarea", "img"].includes(tag)) {
      s = textOf(el);
      if (s) return s;
    }
    return clean(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder") ||
      el.getAttribute("title"), NAME_MAX);
  }

  function valueOf(el) {
    const tag = el.localName;
    if (tag === "select") {
      const o = el.selectedOptions && el.selectedOptions[0];
      return o ? clean(o.label || o.text, NAME_MAX) : "";
    }
    if (tag === "textarea") return el.value.slice(0, TEXT_MAX);
    if (tag === "input") {
      if (["checkbox", "radio", "button", "submit", "reset", "image", "file"].includes(el.type)) return null;
      return el.type === "password" ? "•".repeat(el.value.length) : el.value.slice(0, TEXT_MAX);
    }
    if (el.isContentEditable) return clean(el.innerText, TEXT_MAX);
    return null;
  }

  function checkedOf(el, role) {
    const c = el.localName === "label" && el.control ? el.control : el;
    if (c.localName === "input" && (c.type === "checkbox" || c.type === "radio")) return c.checked;
    if (["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(role)) {
      return el.getAttribute("aria-checked") === "true";
    }
    return null;
  }

  const elements = [];
  const extras = []; // [id, url, disabled] for links and disabled elements
  const nodes = [];
  const registry = [];
  const wantLines = !!opts.lines;

  function boxOf(el, ox, oy) {
    const r = el.getBoundingClientRect();
    return [ox + r.x, oy + r.y, r.width, r.height];
  }
  const onScreen = (b) => b[2] > 0 && b[3] > 0 && b[0] < VW && b[1] < VH && b[0] + b[2] > 0 && b[1] + b[3] > 0;
  const round = (b) => b.map((v) => Math.round(v * 10) / 10);

  function addElement(el, role, box) {
    const id = registry.length;
    registry.push(el);
    const tag = el.localName;
    const control = tag === "label" && el.control ? el.control : null;
    const b = round(box);
    // Field names are those of webdojo.observation.Element: Python validates the JSON as is.
    elements.push({
      id,
      role: control ? roleOf(control) : role === "generic" ? "clickable" : role,
      name: nameOf(el, role),
      tag,
      box: { x: b[0], y: b[1], width: b[2], height: b[3] },
      in_viewport: onScreen(box),
      html_id: el.id || null,
      value: valueOf(el),
      checked: checkedOf(el, role),
      options: tag === "select" ? Array.from(el.options).slice(0, 200).map((o) => clean(o.label || o.text, NAME_MAX)) : null,
    });
    const url = tag === "a" || tag === "area" ? el.href || null : null;
    const disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true";
    if (url || disabled) extras.push([id, url, disabled]);
    if (wantLines) nodes.push(["e", id]);
  }

  // Children in rendering order: a shadow root replaces the light children; slots show
  // their assigned nodes.
  function childrenOf(node) {
    if (node.shadowRoot) return node.shadowRoot.childNodes;
    if (node.localName === "slot") {
      const assigned = node.assignedNodes({ flatten: true });
      return assigned.length ? assigned : node.childNodes;
    }
    return node.childNodes;
  }

  function visitChildren(node, ox, oy, absorbed, cursor, parentBox) {
    for (const child of childrenOf(node)) {
      if (child.nodeType === Node.TEXT_NODE) {
        if (!wantLines || absorbed) continue;
        const t = clean(child.nodeValue, TEXT_MAX);
        if (t) nodes.push(["t", t, parentBox ? onScreen(parentBox()) : false]);
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        visit(child, ox, oy, absorbed, cursor);
      }
    }
  }

  function visit(el, ox, oy, absorbed, parentCursor) {
    const tag = el.localName;
    if (SKIP.has(tag) || el.getAttribute("aria-hidden") === "true") return;
    const style = (el.ownerDocument.defaultView || window).getComputedStyle(el);
    if (style.display === "none") return;
    const visible = style.visibility !== "hidden" && style.visibility !== "collapse";
    const role = roleOf(el);
    let box = null;
    const getBox = () => box || (box = boxOf(el, ox, oy));
    if (visible && isInteractive(el, role, style, parentCursor)) {
      const b = getBox();
      if (b[2] >= 1 && b[3] >= 1) {
        addElement(el, role, b);
        absorbed = true;
      }
    } else if (visible && isScroller(el, style)) {
      // Listed (for scroll targets) but not absorbing: its content keeps its own lines.
      const b = getBox();
      if (b[2] >= 1 && b[3] >= 1) addElement(el, "scrollable", b);
    } else if (wantLines && visible && !absorbed && role === "heading") {
      const name = nameOf(el, role);
      if (name) nodes.push(["h", name, onScreen(getBox())]);
      absorbed = true;
    } else if (wantLines && visible && !absorbed && role === "img") {
      const name = nameOf(el, role);
      if (name) nodes.push(["i", name, onScreen(getBox())]);
    }
    if (tag === "iframe") {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; } // cross-origin: skipped
      if (doc && doc.documentElement) {
        const b = getBox();
        const cs = style;
        const fx = b[0] + el.clientLeft + parseFloat(cs.paddingLeft);
        const fy = b[1] + el.clientTop + parseFloat(cs.paddingTop);
        visit(doc.documentElement, fx, fy, absorbed, "auto");
      }
      return;
    }
    // Text of an invisible element is skipped, but a visible descendant can still show.
    visitChildren(el, ox, oy, absorbed || !visible, style.cursor, getBox);
  }

  const root = document.documentElement;
  if (root) visit(root, 0, 0, false, "auto");

  // Stamp ids; drop stale stamps without touching unchanged ones (fewer DOM mutations).
  const fresh = new Set(registry);
  for (const old of st.els) if (!fresh.has(old) && old.isConnected) old.removeAttribute("data-wd-id");
  registry.forEach((el, id) => {
    if (el.getAttribute("data-wd-id") !== String(id)) el.setAttribute("data-wd-id", String(id));
  });
  st.els = registry;

  if (opts.marks) drawMarks(elements);

  function drawMarks(els) {
    const COLORS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000"];
    const host = document.createElement("webdojo-marks");
    // One fixed host, absolutely placed children: a single composited layer (fixed children
    // would each get their own, which made the overlay cost more than the boxes are worth).
    host.style.cssText = "position:fixed;inset:0;z-index:2147483647;pointer-events:none;display:block;contain:strict;";
    const shadow = host.attachShadow({ mode: "closed" });
    const parts = [];
    for (const e of els) {
      if (!e.in_viewport) continue;
      const { x, y, width: w, height: h } = e.box;
      const c = COLORS[e.id % COLORS.length];
      const ly = y >= 14 ? y - 14 : y;
      parts.push(
        `<div style="position:absolute;left:${x}px;top:${y}px;width:${w}px;height:${h}px;` +
          `outline:2px solid ${c};outline-offset:-1px;box-sizing:border-box"></div>` +
          `<div style="position:absolute;left:${x}px;top:${ly}px;background:${c};color:#fff;` +
          `font:bold 11px/14px monospace;padding:0 3px;border-radius:2px">${e.id}</div>`,
      );
    }
    shadow.innerHTML = parts.join("");
    document.documentElement.appendChild(host);
    st.overlay = host;
  }

  // A JSON string: Playwright's structured serializer is far slower on thousands of rows.
  return JSON.stringify({ title: document.title, doc: st.doc, navs: st.navs, popups: st.popups,
    done: window.__webdojo_done === true, elements, extras, nodes });
}
