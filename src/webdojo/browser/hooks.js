// Init script, run in every document before the page's own scripts.
// It records what an action started so that the session can tell, with one cheap evaluate after
// the action, whether to wait for a page load or a popup, instead of waiting blindly.
// State lives under a non-enumerable Symbol key so that page scripts do not trip over it.
(() => {
  const KEY = Symbol.for("webdojo");
  // The session also evaluates this file in a document where the init script did not run
  // (dom.js then left a stand-in state with an empty doc): fill that state in, keep its ids.
  const prev = window[KEY];
  if (prev && prev.doc) return;
  const st = Object.assign(prev || {}, {
    // Counters, never reset, so that a late or repeated read cannot lose an event:
    navs: 0, // cross-document navigations this document started
    popups: 0, // windows it opened or tried to open
    submits: 0, // form submissions: their navigation starts a task later (see act.js check)
    doc: Math.random().toString(36).slice(2), // identifies this document
  });
  st.els = st.els || []; // element registry of the last snapshot (index = element id)
  st.overlay = st.overlay || null; // set-of-marks overlay while a screenshot is taken
  if (!prev) Object.defineProperty(window, KEY, { value: st, enumerable: false });

  // The Navigation API fires `navigate` synchronously for link clicks, form submissions and
  // location changes made by this document.
  if (window.navigation) {
    window.navigation.addEventListener("navigate", (e) => {
      if (!e.destination.sameDocument && !e.downloadRequest) st.navs += 1;
    });
  }
  const open = window.open;
  window.open = function (...args) {
    st.popups += 1;
    return open.apply(this, args);
  };
  const newWindow = (target) => !!target && !/^_(self|parent|top)$/i.test(target);
  // Bubble phase on window: runs after the page's handlers, so defaultPrevented is final.
  window.addEventListener("click", (e) => {
    const link = e.target instanceof Element && e.target.closest("a[href], area[href]");
    if (link && !e.defaultPrevented && newWindow(link.target)) st.popups += 1;
  });
  window.addEventListener("submit", (e) => {
    const form = e.target;
    if (e.defaultPrevented || !form || form.method === "dialog") return;
    if (newWindow(form.target)) st.popups += 1;
    else st.submits += 1;
  });
})();
