// Init script for replayed pages: makes a page's sources of chance and time repeatable, and its
// CSS motion still, so that loading the same archived page twice paints the same pixels.
//
// determinism.py appends the call: `(<this function>)({seed, epochMs});`. The script runs in
// every document of the context (iframes included) before the page's own scripts. Each document
// starts from the same seed and the same clock, so a page that does the same things in the same
// order sees the same values.
//
// What it replaces (in the page's main world; Playwright's own scripts live in another world):
//   Math.random, crypto.getRandomValues, crypto.randomUUID  -> one seeded PRNG stream
//   Date (no-argument forms), Date.now, performance.now,
//   performance.timeOrigin                                   -> a virtual clock
//   CSS animations, transitions, caret, smooth scrolling     -> stopped by an injected style
//   Element.prototype.animate (Web Animations)               -> jumps to the end state
(function installDeterminism(config) {
  "use strict";
  // Install once per document, even if the script is added twice to a context.
  const KEY = Symbol.for("webdojo.determinism");
  if (Object.prototype.hasOwnProperty.call(globalThis, KEY)) return;

  // The originals, kept for webdojo's own scripts that need real chance or time.
  const native = {
    random: Math.random,
    Date: globalThis.Date,
    performanceNow: globalThis.performance && performance.now.bind(performance),
  };
  Object.defineProperty(globalThis, KEY, { value: { config, native }, enumerable: false });

  // ---- Seeded chance -------------------------------------------------------------------------
  // mulberry32: a 32-bit state, one multiply-xorshift step per output. Not cryptographic, which
  // is fine: the point of replay is that nothing is secret or unpredictable.
  let state = config.seed >>> 0;
  function nextUint32() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  const define = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, writable: true, configurable: true });

  define(Math, "random", function random() {
    return nextUint32() / 4294967296; // in [0, 1)
  });

  const cryptoObj = globalThis.crypto;
  if (cryptoObj && typeof cryptoObj.getRandomValues === "function") {
    const nativeFill = cryptoObj.getRandomValues;
    define(cryptoObj, "getRandomValues", function getRandomValues(array) {
      // The native call first: it throws the browser's own errors for a float array, a
      // non-view or more than 65536 bytes. Then its output is overwritten byte by byte.
      nativeFill.call(cryptoObj, array);
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = nextUint32() & 0xff;
      return array;
    });
  }
  if (cryptoObj && typeof cryptoObj.randomUUID === "function") {
    define(cryptoObj, "randomUUID", function randomUUID() {
      const b = new Uint8Array(16);
      for (let i = 0; i < 16; i++) b[i] = nextUint32() & 0xff;
      b[6] = (b[6] & 0x0f) | 0x40; // version 4
      b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
      const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    });
  }

  // ---- Virtual clock -------------------------------------------------------------------------
  // Every read advances the clock by TICK_MS. A frozen clock would be simpler but hangs pages
  // that busy-wait for time to pass (`while (Date.now() < t) {}`); a per-read tick keeps time
  // moving and still depends only on how many reads the page made.
  const TICK_MS = 1;
  const epochMs = config.epochMs;
  let elapsedMs = 0;
  function readClock() {
    const now = epochMs + elapsedMs;
    elapsedMs += TICK_MS;
    return now;
  }

  const NativeDate = native.Date;
  // A stand-in constructor. With arguments it defers to the real Date; without, it reads the
  // virtual clock. Reflect.construct with new.target keeps `class X extends Date` working, and
  // sharing the prototype keeps `instanceof Date` and every Date method.
  const FakeDate = function Date(...args) {
    if (!new.target) return new NativeDate(readClock()).toString(); // Date() gives a string
    return Reflect.construct(NativeDate, args.length ? args : [readClock()], new.target);
  };
  Object.defineProperty(FakeDate, "length", { value: NativeDate.length });
  FakeDate.prototype = NativeDate.prototype;
  define(NativeDate.prototype, "constructor", FakeDate);
  define(FakeDate, "now", function now() {
    return readClock();
  });
  define(FakeDate, "parse", NativeDate.parse);
  define(FakeDate, "UTC", NativeDate.UTC);
  define(FakeDate, "toString", () => "function Date() { [native code] }");
  define(globalThis, "Date", FakeDate);

  if (globalThis.performance) {
    // performance.now() is the time since timeOrigin, on the same virtual clock as Date.
    define(performance, "now", function now() {
      return readClock() - epochMs;
    });
    Object.defineProperty(performance, "timeOrigin", { get: () => epochMs, configurable: true });
  }

  // ---- Still motion --------------------------------------------------------------------------
  // Zero durations (not `animation: none`) so that every animation and transition jumps to where
  // it would end: an element that fades in with `forwards` is shown, not left invisible.
  // The rules sit in a cascade layer that this style declares first: for !important
  // declarations the first layer wins over the page's layers and unlayered rules alike (only
  // inline style="... !important" beats it).
  const DECLS = `animation-delay: 0s !important;
    animation-duration: 0s !important;
    animation-iteration-count: 1 !important;
    transition-delay: 0s !important;
    transition-duration: 0s !important;
    caret-color: transparent !important;`;
  const layer = (rules) => `@layer webdojo-determinism {\n${rules}\n}`;
  const DOC_CSS = layer(`*, *::before, *::after, ::backdrop, ::marker { ${DECLS} }
  :root { scroll-behavior: auto !important; }`);
  const SHADOW_CSS = layer(`:host, *, *::before, *::after { ${DECLS} }`);

  const doc = globalThis.document;
  if (!doc) return; // not a window (defensive: init scripts only run in documents)

  // The rules go in twice, on purpose:
  // - as a constructed sheet adopted by the document: it applies at once, with no element to
  //   wait for, so that a script that runs before <html> exists (a page written with
  //   document.write from another script, as Playwright's setContent does) already sees them;
  // - as a <style> first in <html>: its layer is then declared before any of the page's own,
  //   which adopted sheets (ordered after every <style> and <link>) cannot guarantee, and it
  //   stays if the page replaces document.adoptedStyleSheets.
  const canAdopt = typeof CSSStyleSheet === "function" && "adoptedStyleSheets" in Document.prototype;
  const sheetOf = (css) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    return sheet;
  };
  if (canAdopt) doc.adoptedStyleSheets = [sheetOf(DOC_CSS), ...doc.adoptedStyleSheets];

  const style = doc.createElement("style");
  style.setAttribute("data-webdojo", "determinism");
  style.textContent = DOC_CSS;
  // At document start there is usually no <html> yet: put the style in as soon as there is
  // one, and again whenever the page takes it out (document.open, innerHTML on <html>). The
  // observer watches only the document's and the root's children, not the whole tree, so it
  // costs nothing on busy pages.
  const observer = new MutationObserver(ensureStyle);
  observer.observe(doc, { childList: true });
  function ensureStyle() {
    const root = doc.documentElement;
    if (!root) return;
    if (!style.isConnected) root.insertBefore(style, root.firstChild);
    observer.observe(root, { childList: true });
  }
  ensureStyle();

  // Shadow roots do not see document styles: give each new one the same rules.
  if (canAdopt) {
    const sheet = sheetOf(SHADOW_CSS);
    const attachShadow = Element.prototype.attachShadow;
    define(Element.prototype, "attachShadow", function attachShadowWithStill(...args) {
      const root = attachShadow.apply(this, args);
      root.adoptedStyleSheets = [sheet, ...root.adoptedStyleSheets];
      return root;
    });
  }

  // Web Animations (element.animate) bypass CSS: finish finite ones at once, cancel endless
  // ones (as Playwright's screenshot option animations="disabled" does).
  const animate = Element.prototype.animate;
  if (typeof animate === "function") {
    define(Element.prototype, "animate", function animateToEnd(...args) {
      const anim = animate.apply(this, args);
      try {
        anim.finish(); // throws InvalidStateError for an endless animation
      } catch {
        anim.cancel();
      }
      return anim;
    });
  }
});
