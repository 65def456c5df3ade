// Small DOM and formatting helpers. Text always goes in as text (never as HTML): model output,
// URLs and answers are shown exactly, and cannot inject markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// replaceChildren, skipping the null/false that optional parts leave (else they show as text)
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

export async function api(path) {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) {
    let detail = response.statusText;
    try { detail = (await response.json()).detail || detail; } catch (_) { /* not JSON */ }
    throw new Error(`${response.status}: ${detail}`);
  }
  return response.json();
}

export const fmt = {
  pct(rate) { return rate === null || rate === undefined ? "–" : `${Math.round(rate * 1000) / 10}%`; },
  num(x, digits = 1) { return x === null || x === undefined ? "–" : Number(x).toFixed(digits); },
  secs(x) { return x === null || x === undefined ? "–" : `${Number(x).toFixed(x < 10 ? 2 : 1)} s`; },
  int(x) { return x === null || x === undefined ? "–" : String(x); },
};

export function pill(status, text) {
  return h("span", { class: `pill ${status}` }, text || status.replace("_", " "));
}

export function codes(list) {
  return (list || []).map((c) => h("span", { class: "code" }, c));
}

export function rateCell(rate) {
  const width = rate === null || rate === undefined ? 0 : Math.round(rate * 100);
  return h("td", { class: "num", "data-v": rate === null || rate === undefined ? "" : rate },
    h("div", { class: "rate" }, h("span", {}, fmt.pct(rate)),
      h("span", { class: "bar" }, h("i", { style: `width:${width}%` }))));
}

export function problemsBox(problems, title = "Some of this run is missing") {
  if (!problems || !problems.length) return null;
  return h("div", { class: "problems", "data-testid": "problems" },
    h("strong", {}, title), h("ul", {}, problems.map((p) => h("li", {}, p))));
}

export function errorBox(message) {
  return h("div", { class: "error-box", "data-testid": "error" }, message);
}

export function episodeHash(rid, key, step) {
  return `#/run/${rid}/episode/${encodeURIComponent(key)}` + (step ? `/${step}` : "");
}
