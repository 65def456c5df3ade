// The episode page: every step's screenshot with its action drawn on it, the model's text,
// parsed action, memory, URL, error and timing; the verifier's verdict and every judge's, with
// reasons and evidence steps (a click on one shows that step and marks the criterion's steps).
// Keys: ←/→ or j/k step, Home/End first/last, a before/after the action, [ / ] previous/next
// episode, Esc back to the overview.
import { api, codes, episodeHash, fmt, h, pill, problemsBox } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
let keyHandler = null;

export function clearKeys() {
  if (keyHandler) document.removeEventListener("keydown", keyHandler);
  keyHandler = null;
}

function kv(pairs) {
  return h("dl", { class: "kv" }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== "")
    .flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

function pretty(value) {
  if (value === null || value === undefined) return null;
  return h("pre", {}, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

function header(rid, ep, keys) {
  const rec = ep.record || {};
  const idx = keys.indexOf(ep.key);
  const link = (i, label) => (i >= 0 && i < keys.length
    ? h("a", { href: episodeHash(rid, keys[i]), class: "btn", "data-testid": label }, label === "prev-episode" ? "[ previous" : "next ]")
    : null);
  return h("div", { class: "card" },
    h("div", { class: "ep-head" },
      h("a", { href: `#/run/${rid}` }, "← overview"),
      h("span", { class: "title mono", "data-testid": "episode-key" }, ep.key),
      pill(ep.status),
      h("span", { class: "muted" }, `${ep.site ?? "?"} · difficulty ${ep.difficulty ?? "?"}${ep.level ? ` (${ep.level})` : ""}`),
      h("span", { class: "muted" }, `${ep.steps.length} steps · ${fmt.secs(rec.wall_s)} wall · policy ${fmt.secs(ep.policy_s)} · env ${fmt.secs(ep.env_s)}`),
      h("span", { style: "margin-left:auto" }, link(idx - 1, "prev-episode"), " ", link(idx + 1, "next-episode"))),
    problemsBox(ep.problems, "Not everything about this episode is known"),
    h("div", { class: "ep-top" }, taskCard(ep), verdictCard(ep)),
    judgesCard(rid, ep));
}

function taskCard(ep) {
  if (!ep.task) return h("div", {}, h("h3", {}, "Task"), h("div", { class: "muted" }, `${ep.task_id}: instruction not available`));
  return h("div", {}, h("h3", {}, "Task"),
    h("div", { class: "instruction", "data-testid": "instruction" }, ep.task.instruction),
    h("h3", {}, `Rubric (${ep.task.facts.length} facts · step cap ${ep.task.max_steps})`),
    h("ul", { class: "small" }, ep.task.facts.map((f) => h("li", {}, f))));
}

function reasons(list) {
  return h("ul", { class: "reasons" }, (list || []).map((r) => h("li", { class: /^(ok|pass|yes)\b/i.test(String(r)) ? "ok" : "fail" }, String(r))));
}

function verdictCard(ep) {
  const rec = ep.record;
  if (!rec) return h("div", {}, h("h3", {}, "Verdict"), h("div", { class: "muted" }, "none: the episode never finished"));
  const v = rec.verifier;
  return h("div", { "data-testid": "verdict" }, h("h3", {}, "Verdict"),
    v ? pill(v.passed ? "pass" : "fail", v.passed ? "verifier passed" : "verifier failed")
      : pill("fault", "not verified"),
    v ? reasons(v.reasons) : null,
    kv([["outcome", rec.outcome], ["answer", rec.answer ? h("span", { class: "mono" }, rec.answer) : null],
      ["final url", rec.final_url], ["fault", rec.fault],
      ["error", rec.error ? h("span", {}, codes([rec.error.code]), " ", rec.error.message || "") : null],
      ["reward", rec.reward]]));
}

// The judges' verdicts: label, reward, every criterion with its reason and evidence steps.
// An evidence link selects that step in place (renderEpisode); step n, the page after the last
// step, is the last step's after-screenshot. The href keeps "open in a new tab" working.
function criterionRow(rid, ep, c) {
  const state = c.passed === true ? "ok" : c.passed === false ? "fail" : "unchecked";
  const last = Math.max(ep.steps.length - 1, 0);
  const links = (c.evidence || []).map((s) => h("a", { href: episodeHash(rid, ep.key, Math.min(s, last)),
    class: "evidence", "data-step": s }, s > last ? "final page" : `step ${s}`));
  return h("li", { class: state, "data-testid": "criterion", "data-evidence": (c.evidence || []).join(" ") },
    h("span", { class: "mono" }, c.name), ` (${c.kind}): `, c.passed === null ? "not checked · " : "",
    c.reason, links.length ? h("span", { class: "small" }, " · evidence: ", links.flatMap((a, i) => (i ? [", ", a] : [a]))) : null);
}

// what the verdict cost: model calls, cached replies, tokens, cost (judges without a model: time)
function usageText(v) {
  const u = v.usage;
  if (!u.calls && !u.cached) return fmt.secs(v.wall_s);
  const parts = [`${u.calls} calls`, `${u.cached} cached`, `${u.prompt_tokens + u.completion_tokens} tokens`];
  if (u.cost !== null && u.cost !== undefined) parts.push(`cost ${Number(u.cost).toFixed(4)}`);
  return `${parts.join(", ")} · ${fmt.secs(v.wall_s)}`;
}

function judgesCard(rid, ep) {
  if (!ep.verdicts || !ep.verdicts.length) return null;
  return h("div", { class: "judges", "data-testid": "verdicts" }, h("h3", {}, "Judges"),
    ep.verdicts.map((v) => h("div", { class: "verdict", "data-judge": v.judge },
      h("div", {}, h("span", { class: "mono" }, v.judge), " ", pill(v.label, v.label.replace("_", " ")),
        ` reward ${v.reward ?? "none"}`, v.model ? h("span", { class: "muted small" }, ` · ${v.model}`) : null,
        h("span", { class: "muted small", "data-testid": "judge-usage" }, ` · ${usageText(v)}`)),
      v.error ? h("div", { "data-testid": "judge-error" }, codes([v.error.code]), " ", v.error.message) : null,
      h("ul", { class: "reasons" }, v.criteria.map((c) => criterionRow(rid, ep, c))),
      v.notes.length ? h("ul", { class: "small muted" }, v.notes.map((n) => h("li", {}, n))) : null)));
}

function stepCard(step) {
  const err = step.error;
  return h("div", { class: "card", "data-testid": "step-card" },
    h("h2", {}, `Step ${step.step}`, step.repeat ? h("span", {}, " ", pill("repeat", "page unchanged")) : null),
    kv([
      ["url", h("span", { class: "mono small", "data-testid": "step-url" }, step.url || "")],
      ["title", step.title],
      ["action", h("code", { "data-testid": "step-action" }, step.action_text)],
      ["target", step.target ? `#${step.target.id} ${step.target.role} “${step.target.name}”` : null],
      ["error", err ? h("span", { "data-testid": "step-error" }, codes([err.code]), ` ${err.fault || ""}: ${err.message || ""}`) : null],
      ["timing", `policy ${fmt.secs(step.policy_s)} · env ${fmt.secs(step.env_s)}`],
      ["dialogs", step.dialogs && step.dialogs.length ? step.dialogs.join(" | ") : null],
      ["tokens", step.usage && Object.keys(step.usage).length ? Object.entries(step.usage).map(([k, v]) => `${k} ${v}`).join(" · ") : null],
    ]),
    h("h3", {}, "Model output"), pretty(step.text ?? "") || h("div", { class: "muted" }, "none"),
    step.memory !== null && step.memory !== undefined ? [h("h3", {}, "Memory"), pretty(step.memory)] : null,
    h("h3", {}, "Parsed action"), pretty(step.action) || h("div", { class: "muted" }, "none (unparsed)"));
}

function stage(step, after) {
  const url = after ? step.next_screenshot_url : step.screenshot_url;
  const [w, hgt] = step.viewport;
  const box = h("div", { class: "stage", "data-testid": "stage" });
  if (!url) {
    box.append(h("div", { class: "missing" }, `screenshot ${after ? "after the action " : ""}missing: ${step.screenshot || "not recorded"}`));
  } else {
    box.append(h("img", { src: url, alt: `step ${step.step}`, "data-testid": "screenshot" }));
  }
  if (!after) {
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("data-testid", "overlay");
    svg.innerHTML = step.overlay_svg; // built server-side from escaped text (overlay.py)
    box.append(svg);
  }
  return box;
}

function filmstrip(ep, current, go, marked) {
  return h("div", { class: "filmstrip", "data-testid": "filmstrip" }, ep.steps.map((s, i) => {
    const flags = [s.repeat ? h("span", { class: "flag repeat", title: "next screenshot identical: WebGym drops this step" }, "⟳") : null,
      s.error ? h("span", { class: "flag err", title: s.error.code }, "!") : null];
    return h("button", { class: `thumb${i === current ? " current" : ""}${s.repeat ? " is-repeat" : ""}${marked.has(i) ? " evidence" : ""}`,
      title: s.action_text, onclick: () => go(i), "data-step": i },
    s.screenshot_url ? h("img", { src: s.screenshot_url, alt: "", loading: "lazy" }) : h("div", { class: "muted small", style: "padding:20px 4px;line-height:1.2" }, "missing"),
    h("span", { class: "n" }, i), h("span", { class: "flags" }, flags));
  }));
}

function stageBar(step, current, n, after, go, flip) {
  return h("div", { class: "stage-bar" },
    h("button", { class: "btn", onclick: () => go(current - 1), disabled: current === 0, "data-testid": "prev" }, "← prev"),
    h("span", { class: "counter" }, `step ${step.step} · `, h("span", { "data-testid": "step-index" }, `${current + 1} / ${n}`)),
    h("button", { class: "btn", onclick: () => go(current + 1), disabled: current === n - 1, "data-testid": "next" }, "next →"),
    h("button", { class: `btn${after ? " on" : ""}`, onclick: flip, "data-testid": "toggle-after" },
      after ? "showing: after the action" : "showing: before the action"),
    step.repeat ? pill("repeat", "⟳ page unchanged by this action") : null,
    h("span", { class: "keys" }, h("kbd", {}, "←"), h("kbd", {}, "→"), " steps ", h("kbd", {}, "a"), " after ",
      h("kbd", {}, "["), h("kbd", {}, "]"), " episodes ", h("kbd", {}, "Esc"), " overview"));
}

// A plain click on an evidence link calls select(step, the criterion's evidence steps) instead
// of following the link (which would fetch and redraw the page); other clicks open a new tab.
function onEvidence(container, select) {
  container.addEventListener("click", (e) => {
    const link = e.target.closest("a.evidence");
    if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    select(Number(link.dataset.step), link.closest("li").dataset.evidence.split(" ").map(Number));
  });
}

export async function renderEpisode(view, rid, key, start, keys) {
  clearKeys();
  const ep = await api(`api/runs/${rid}/episode?key=${encodeURIComponent(key)}`);
  if (!keys.length) {
    try { keys = (await api(`api/runs/${rid}/overview`)).episodes.map((r) => r.key); } catch (_) { keys = []; }
  }
  document.title = `${key} · webdojo`;
  const n = ep.steps.length;
  let current = Math.min(Math.max(start, 0), Math.max(n - 1, 0));
  let after = false;
  let marked = new Set(); // the evidence steps of the criterion last clicked
  const left = h("section");
  const right = h("aside");
  const draw = () => {
    if (!n) {
      left.replaceChildren(h("div", { class: "card muted" }, "This episode has no recorded steps."));
      right.replaceChildren();
      return;
    }
    const step = ep.steps[current];
    const go = (i) => { current = Math.min(Math.max(i, 0), n - 1); draw(); };
    const flip = () => { after = !after; draw(); };
    left.replaceChildren(stage(step, after), stageBar(step, current, n, after, go, flip),
      filmstrip(ep, current, go, marked));
    right.replaceChildren(stepCard(step));
    history.replaceState(null, "", episodeHash(rid, key, current));
    const thumb = left.querySelector(".thumb.current");
    if (thumb) thumb.scrollIntoView({ block: "nearest", inline: "nearest" });
  };
  const grid = h("div", { class: "ep-grid" }, left, right);
  const head = header(rid, ep, keys);
  onEvidence(head, (s, evidence) => {
    if (!n) return;
    marked = new Set(evidence.map((x) => Math.min(x, n - 1)));
    current = Math.min(Math.max(s, 0), n - 1);
    after = s >= n; // the page after the last step: that step's after-screenshot
    draw();
    grid.scrollIntoView({ block: "start" });
  });
  view.replaceChildren(head, grid);
  draw();
  keyHandler = (e) => {
    if (e.target.matches("input, select, textarea") || e.metaKey || e.ctrlKey || e.altKey) return;
    const idx = keys.indexOf(key);
    const moves = { ArrowRight: current + 1, j: current + 1, ArrowLeft: current - 1, k: current - 1, Home: 0, End: n - 1 };
    if (e.key in moves && n) {
      current = Math.min(Math.max(moves[e.key], 0), n - 1);
      draw();
    } else if (e.key === "a") { after = !after; draw(); }
    else if (e.key === "Escape") location.hash = `#/run/${rid}`;
    else if (e.key === "]" && idx >= 0 && idx + 1 < keys.length) location.hash = episodeHash(rid, keys[idx + 1]);
    else if (e.key === "[" && idx > 0) location.hash = episodeHash(rid, keys[idx - 1]);
    else return;
    e.preventDefault();
  };
  document.addEventListener("keydown", keyHandler);
}
