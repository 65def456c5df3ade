// Readies a document for a screenshot taken with CDP Page.captureScreenshot, as Playwright's
// page.screenshot({animations: "disabled"}) does, in one evaluate instead of three per frame,
// and finishes jQuery's animations too.
// Evaluated as an expression: (op) => result. Used only in a page without child frames.
// "prepare" waits for the fonts; "prepare_now" (folded into the post-action check, settle.py)
// readies the page only when they have loaded, and returns null, touching nothing, otherwise.
// "caret" adopts the caret sheet alone: the init script does it at document start, where it
// costs nothing; adopted later, into a laid-out page, it restyles and repaints the whole page
// (7-11 ms of a navigation step's 165-205 ms of CPU, `python scripts/step_cpu_ab.py --nav`).
(op) => {
  const KEY = Symbol.for("webdojo.shot");
  const st = window[KEY] || (window[KEY] = { resume: [], caret: null });
  if (op === "resume") {
    // The infinite animations cancelled for the capture play again.
    for (const a of st.resume.splice(0)) { try { a.play(); } catch (e) {} }
    return 0;
  }
  if (op === "prepare_now" && document.fonts.status !== "loaded") return null;
  // A caret blinks, so hide it. Only the focused element shows one: adopt a constructed sheet
  // (no element in the DOM) in the document and in each shadow root down to that element.
  if (!st.caret) {
    st.caret = new CSSStyleSheet();
    st.caret.replaceSync("input, textarea, [contenteditable] { caret-color: transparent !important }");
  }
  const adopt = (root) => {
    if (!root.adoptedStyleSheets.includes(st.caret)) {
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, st.caret];
    }
  };
  adopt(document);  // a no-op where the init script did it, unless the page replaced the list
  if (op === "caret") return 0;
  for (let el = document.activeElement, i = 0; el && el.shadowRoot && i < 32; i++) {
    adopt(el.shadowRoot);
    el = el.shadowRoot.activeElement;
  }
  // Finite animations and transitions jump to their end; infinite ones are cancelled until the
  // capture is done (then "resume"). document.getAnimations() includes shadow trees.
  for (const a of document.getAnimations()) {
    if (!a.effect || a.playbackRate === 0 || st.resume.includes(a)) continue;
    try {
      if (Number.isFinite(a.effect.getComputedTiming().endTime)) a.finish();
      else { a.cancel(); st.resume.push(a); }
    } catch (e) {}
  }
  // jQuery animates on timers, out of getAnimations()' reach (MiniWoB's accordions and menus):
  // those jump to their end as well, or the capture shows whatever frame the clock reached.
  const jq = window.jQuery;
  if (jq && jq.timers && jq.timers.length && jq.fn && jq.fn.finish) {
    try { jq(jq.timers.map((t) => t.elem)).finish(); } catch (e) {}
  }
  if (op === "prepare_now") return st.resume.length;
  return document.fonts.ready.then(() => st.resume.length);
}
