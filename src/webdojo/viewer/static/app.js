// The viewer's pages: routing, the run overview and the comparison of two runs.
//   #/run/a                          overview of run a (#/ is the same)
//   #/run/a/episode/<key>/<step>     one episode (see episode.js)
//   #/compare                        run a against run b
import { api, codes, episodeHash, errorBox, fill, fmt, h, pill, problemsBox, rateCell } from "./dom.js";
import { clearKeys, renderEpisode } from "./episode.js";

const view = document.getElementById("view");
const state = { runs: [], filters: {}, visibleKeys: {} };

function setNav(active) {
  const nav = document.getElementById("nav");
  fill(nav,
    ...state.runs.map((r) => h("a", { href: `#/run/${r.id}`, class: active === r.id ? "active" : "" },
      state.runs.length > 1 ? `Run ${r.id.toUpperCase()}: ${r.name}` : "Overview")),
    state.runs.length > 1 ? h("a", { href: "#/compare", class: active === "compare" ? "active" : "" }, "Compare") : null,
  );
  document.getElementById("runpath").textContent = state.runs.map((r) => r.path).join("  vs  ");
}

function stat(label, value, testid) {
  return h("div", { class: "stat" }, h("div", { class: "v", "data-testid": testid }, value),
    h("div", { class: "k" }, label));
}

function bucketTable(title, first, rows, testid) {
  const body = rows.map((r) => h("tr", {},
    h("td", { "data-v": isNaN(Number(r.name)) ? r.name : Number(r.name) }, r.name),
    h("td", { class: "num" }, r.episodes), h("td", { class: "num" }, r.successes),
    rateCell(r.success_rate),
    h("td", { class: "num", "data-v": r.mean_steps ?? "" }, fmt.num(r.mean_steps)),
    h("td", { class: "num" }, r.faults)));
  return h("div", { class: "card" }, h("h2", {}, title),
    h("table", { class: "sortable", "data-testid": testid },
      h("thead", {}, h("tr", {}, h("th", {}, first), h("th", { class: "num" }, "episodes"),
        h("th", { class: "num" }, "successes"), h("th", { class: "num" }, "success"),
        h("th", { class: "num" }, "mean steps"), h("th", { class: "num" }, "faults"))),
      h("tbody", {}, body)));
}

const FILTERS = [["site", "site"], ["difficulty", "difficulty"], ["status", "status"], ["error_code", "error code"]];

function matches(row, f) {
  if (f.site && String(row.site) !== f.site) return false;
  if (f.difficulty && String(row.difficulty) !== f.difficulty) return false;
  if (f.status && row.status !== f.status) return false;
  if (f.error_code && !row.error_codes.includes(f.error_code)) return false;
  if (f.q && !row.key.toLowerCase().includes(f.q.toLowerCase())) return false;
  return true;
}

// one cell per judge: its label, and its reward when graded (F1). Sorted by reward, then the
// unscored labels (webdojo judge writes verdicts next to the run).
function verdictCells(r, judges) {
  return judges.map((j) => {
    const v = r.verdicts[j.judge];
    if (!v) return h("td", { "data-v": "", "data-judge": j.judge }, h("span", { class: "muted" }, "–"));
    const graded = v.reward !== null && v.reward !== 0 && v.reward !== 1;
    return h("td", { "data-v": v.reward ?? v.label, "data-judge": j.judge },
      pill(v.label, v.label.replace("_", " ")), graded ? ` ${fmt.num(v.reward, 2)}` : null);
  });
}

function judgeTable(judges) {
  if (!judges.length) return null;
  const labels = ["success", "failure", "website_failure", "blocked", "infra_error"];
  return h("div", { class: "card section", "data-testid": "judges" }, h("h2", {}, "Judges"),
    h("table", { class: "sortable" },
      h("thead", {}, h("tr", {}, ["judge", "verdicts", ...labels.map((l) => l.replace("_", " ")), "reward mean", "agrees with verifier"]
        .map((c, i) => h("th", { class: i ? "num" : "" }, c)))),
      h("tbody", {}, judges.map((j) => h("tr", { "data-judge": j.judge },
        h("td", { class: "mono" }, j.judge), h("td", { class: "num" }, j.verdicts),
        labels.map((l) => h("td", { class: "num" }, j.labels[l] || "")),
        h("td", { class: "num" }, fmt.num(j.reward_mean, 3)),
        h("td", { class: "num" }, j.with_verifier ? `${j.agree_with_verifier}/${j.with_verifier}` : "–"))))));
}

function episodeRow(rid, r, judges) {
  const open = () => { location.hash = episodeHash(rid, r.key); };
  return h("tr", { class: "link", onclick: open, "data-key": r.key },
    h("td", {}, h("a", { href: episodeHash(rid, r.key), class: "mono" }, r.key)),
    h("td", {}, r.site ?? "–"), h("td", { class: "num", "data-v": r.difficulty ?? "" }, fmt.int(r.difficulty)),
    h("td", { "data-v": r.status }, pill(r.status)),
    h("td", { class: "num" }, r.steps), h("td", { class: "num" }, r.repeats || ""),
    h("td", { class: "num", "data-v": r.wall_s ?? "" }, fmt.secs(r.wall_s)),
    h("td", { "data-v": r.error_codes.join(" ") }, codes(r.error_codes)),
    h("td", { class: "small" }, r.answer ? String(r.answer).slice(0, 80) : ""),
    verdictCells(r, judges));
}

function episodeTable(rid, data) {
  const f = (state.filters[rid] ||= {});
  const body = h("tbody");
  const count = h("span", { class: "muted small", "data-testid": "shown-count" });
  const table = h("table", { class: "sortable", "data-testid": "episodes" },
    h("thead", {}, h("tr", {}, ["episode", "site", "difficulty", "status", "steps", "repeats",
      "wall time", "error codes", "answer", ...data.judges.map((j) => j.judge)]
      .map((c, i) => h("th", { class: [2, 4, 5, 6].includes(i) ? "num" : "" }, c)))),
    body);
  const refresh = () => {
    const rows = data.episodes.filter((r) => matches(r, f));
    body.replaceChildren(...rows.map((r) => episodeRow(rid, r, data.judges)));
    window.wdSort.reapply(table);
    state.visibleKeys[rid] = Array.from(body.rows).map((tr) => tr.dataset.key);
    count.textContent = `${rows.length} of ${data.episodes.length} episodes`;
  };
  const selects = FILTERS.map(([name, label]) => h("label", {}, label,
    h("select", { "data-filter": name, onchange: (e) => { f[name] = e.target.value; refresh(); } },
      h("option", { value: "" }, "all"),
      data.choices[name].map((v) => h("option", { value: v, selected: String(v) === f[name] }, String(v))))));
  const search = h("input", { type: "search", placeholder: "task id…", value: f.q || "",
    oninput: (e) => { f.q = e.target.value; refresh(); } });
  table.addEventListener("click", (e) => {
    if (e.target.closest("th")) setTimeout(() => { state.visibleKeys[rid] = Array.from(body.rows).map((tr) => tr.dataset.key); });
  });
  refresh();
  return h("div", { class: "card" }, h("h2", {}, "Episodes"),
    h("div", { class: "filters" }, selects, search, count), h("div", { class: "table-wrap" }, table));
}

// A run that is still being written: the open overview polls the run's version token and
// redraws itself when it changes, keeping the scroll position and the filters.
const POLL_MS = 2000;
let stopWatching = () => {};
let routeGen = 0; // bumped on each navigation: a redraw started before one is dropped

function watch(rid, version, badge) {
  stopWatching();
  const gen = routeGen;
  let seen = version, busy = false;
  const timer = setInterval(async () => {
    if (busy || document.hidden || gen !== routeGen) return;
    busy = true;
    try {
      const now = (await api(`api/runs/${rid}/version`)).version;
      if (now !== seen) {
        seen = now;
        const y = window.scrollY;
        await renderOverview(rid, gen);
        window.scrollTo(0, y);
      }
    } catch (err) {
      badge.textContent = `not updating: ${err.message}`;
    } finally {
      busy = false;
    }
  }, POLL_MS);
  stopWatching = () => clearInterval(timer);
}

async function renderOverview(rid, reloadOf = null) {
  const data = await api(`api/runs/${rid}/overview`);
  const reloaded = reloadOf !== null;
  if (reloaded && reloadOf !== routeGen) return; // the user has moved on meanwhile
  setNav(rid);
  const badge = h("span", { class: "live", "data-testid": "live", title: "the page redraws itself when the run's files change" },
    reloaded ? `updated ${new Date().toLocaleTimeString()}` : "watching for changes");
  const t = data.totals, run = data.run;
  document.title = `${run.name} · webdojo`;
  const scored = `${t.successes}/${t.episodes} verified`;
  fill(view,
    h("div", { class: "section" }, h("h1", {}, run.name),
      h("div", { class: "muted" }, `policy ${run.policy ?? "?"} · tasks ${run.tasks ?? "?"} · format v${run.format_version ?? "?"} · ${run.path}`,
        run.has_report ? h("span", {}, " · ", h("a", { href: `runs/${rid}/files/report.html`, target: "_blank" }, "report.html")) : null,
        " · ", badge)),
    problemsBox(run.problems),
    h("div", { class: "stats" },
      stat("episodes (finished)", t.all_episodes, "stat-episodes"),
      stat(`success rate (${scored})`, fmt.pct(t.success_rate), "stat-success"),
      stat("faults (unscored)", t.faults, "stat-faults"),
      stat("unfinished", t.unfinished, "stat-unfinished"),
      stat("mean steps", fmt.num(t.mean_steps), "stat-steps"),
      stat(`repeated steps (${t.repeated_steps}/${t.total_steps})`, fmt.pct(t.repetition_share), "stat-repeats"),
      stat("episode wall time (sum)", fmt.secs(t.wall_s), "stat-wall")),
    h("div", { class: "grid2 section" },
      bucketTable("Success by site", "site", data.by_site, "by-site"),
      bucketTable("Success by difficulty", "difficulty", data.by_difficulty, "by-difficulty")),
    judgeTable(data.judges),
    h("div", { class: "card plots" },
      h("img", { src: `api/runs/${rid}/plots/success_by_difficulty.svg`, alt: "success by difficulty" }),
      h("img", { src: `api/runs/${rid}/plots/episode_lengths.svg`, alt: "episode lengths" })),
    episodeTable(rid, data));
  watch(rid, data.version, badge);
}

function side(rid, key, s) {
  if (!s) return [h("td", { "data-v": "" }, h("span", { class: "muted" }, "absent")), h("td", { class: "num" }, "")];
  return [h("td", { "data-v": s.status }, h("a", { href: episodeHash(rid, key) }, pill(s.status)), " ", codes(s.error_codes)),
    h("td", { class: "num" }, s.steps)];
}

async function renderCompare() {
  setNav("compare");
  const data = await api("api/compare");
  const c = data.counts;
  const body = h("tbody");
  const onlyDiff = h("input", { type: "checkbox", checked: true, onchange: () => refill() });
  const table = h("table", { class: "sortable", "data-testid": "compare" },
    h("thead", {}, h("tr", {}, ["episode", "site", "difficulty", "A", "A steps", "B", "B steps", "change"]
      .map((x) => h("th", {}, x)))), body);
  const refill = () => {
    const rows = data.rows.filter((r) => !onlyDiff.checked || r.change !== "same");
    body.replaceChildren(...rows.map((r) => h("tr", { "data-key": r.key, "data-change": r.change },
      h("td", { class: "mono" }, r.key), h("td", {}, r.site ?? "–"), h("td", { class: "num" }, fmt.int(r.difficulty)),
      ...side("a", r.key, r.a), ...side("b", r.key, r.b), h("td", { "data-v": r.change }, pill(r.change, r.change.replace("_", " "))))));
    window.wdSort.reapply(table);
  };
  refill();
  const sites = data.by_site.map((s) => h("tr", {}, h("td", {}, s.name),
    rateCell(s.a ? s.a.success_rate : null), rateCell(s.b ? s.b.success_rate : null)));
  fill(view,
    h("h1", {}, "Compare runs"),
    h("div", { class: "muted section" }, `A: ${data.a.path} (${data.a.policy ?? "?"})  ·  B: ${data.b.path} (${data.b.policy ?? "?"})`),
    problemsBox(data.a.problems, "Run A: some of it is missing"), problemsBox(data.b.problems, "Run B: some of it is missing"),
    h("div", { class: "stats" },
      stat("A success rate", fmt.pct(data.success_rate.a), "cmp-a-rate"), stat("B success rate", fmt.pct(data.success_rate.b), "cmp-b-rate"),
      stat("B gained (A failed)", c.gained, "cmp-gained"), stat("B lost (A succeeded)", c.lost, "cmp-lost"),
      stat("same outcome", c.same, "cmp-same"), stat("in one run only", c.only_a + c.only_b, "cmp-only")),
    h("div", { class: "card" }, h("h2", {}, "Success by site"), h("table", { class: "sortable" },
      h("thead", {}, h("tr", {}, h("th", {}, "site"), h("th", { class: "num" }, "A"), h("th", { class: "num" }, "B"))),
      h("tbody", {}, sites))),
    h("div", { class: "card" }, h("h2", {}, "Per-task outcomes"),
      h("div", { class: "filters" }, h("label", {}, onlyDiff, "differences only")), table));
}

async function route() {
  const hash = location.hash.replace(/^#\/?/, "");
  const parts = hash.split("/");
  window.scrollTo(0, 0);
  clearKeys();
  stopWatching();
  routeGen += 1;
  try {
    if (!state.runs.length) state.runs = await api("api/runs");
    if (parts[0] === "compare") return await renderCompare();
    const rid = parts[0] === "run" && parts[1] ? parts[1] : "a";
    if (parts[2] === "episode" && parts[3]) {
      setNav(rid);
      const key = decodeURIComponent(parts[3]);
      return await renderEpisode(view, rid, key, Number(parts[4] || 0), state.visibleKeys[rid] || []);
    }
    return await renderOverview(rid);
  } catch (err) {
    view.replaceChildren(errorBox(`Could not load this page: ${err.message}`));
  }
}

window.addEventListener("hashchange", route);
route();
