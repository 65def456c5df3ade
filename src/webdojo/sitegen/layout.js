// Layout problems of the page as rendered now: horizontal overflow, text boxes that overlap,
// and interactive elements that are displayed but cannot be seen. Returns plain data.
() => {
  const MAX_TEXT = 400;  // text elements compared pairwise: bounded, so big pages stay cheap
  const describe = (el) => {
    const id = el.id ? "#" + el.id : "";
    const text = (el.innerText || el.value || el.getAttribute("aria-label") || "").trim();
    return `<${el.tagName.toLowerCase()}${id}> ${JSON.stringify(text.slice(0, 40))}`;
  };
  const opacity = (el) => {
    let value = 1;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      value *= parseFloat(getComputedStyle(node).opacity || "1");
    }
    return value;
  };
  const shown = (el) => el.getClientRects().length > 0 &&
    getComputedStyle(el).visibility === "visible";

  const doc = document.documentElement;
  const overflow = doc.scrollWidth > doc.clientWidth + 2 ?
    { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth } : null;

  // text boxes: the line boxes of each element's own text nodes
  const boxes = [];
  const walker = document.createTreeWalker(document.body || doc, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node && boxes.length < MAX_TEXT; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim() || !shown(el) || opacity(el) < 0.05) continue;
    if (["SCRIPT", "STYLE", "NOSCRIPT", "OPTION", "TEXTAREA"].includes(el.tagName)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width > 1 && r.height > 1) boxes.push({ el, r });
    }
  }
  const overlaps = [];
  for (let i = 0; i < boxes.length && overlaps.length < 10; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w <= 0 || h <= 0) continue;
      const smaller = Math.min(a.r.width * a.r.height, b.r.width * b.r.height);
      if (w * h > 0.3 * smaller) {
        overlaps.push([describe(a.el), describe(b.el)]);
        break;
      }
    }
  }

  const invisible = [];
  const selector = "a[href], button, input:not([type=hidden]), select, textarea, " +
    "[role=button], [role=link], [role=tab], [onclick]";
  for (const el of document.querySelectorAll(selector)) {
    if (!shown(el) || invisible.length >= 10) continue;
    const r = el.getBoundingClientRect();
    const labelled = el.labels && [...el.labels].some((l) => shown(l));
    let why = null;
    if (r.width < 2 || r.height < 2) why = "zero size";
    else if (opacity(el) < 0.05) why = "transparent";
    else if (r.right < 0 || r.bottom + window.scrollY < 0) why = "off the page";
    if (why && !(labelled && ["checkbox", "radio"].includes(el.type))) {
      invisible.push(`${describe(el)} (${why})`);
    }
  }
  return { overflow, overlaps, invisible };
}
