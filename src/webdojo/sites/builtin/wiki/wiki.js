/* The Veshari Compendium: rendering, search, reading list and history.
 *
 * localStorage keys (namespaced, JSON):
 *   wiki.reading_list  list of article ids, in the order they were added
 *   wiki.history       list of article ids viewed, oldest first (at most 100)
 *
 * Link ids are stable: the first link to article X on a page gets id "link-X", later ones
 * "link-X-2", "link-X-3"... in document order (infobox, lead, sections, see also).
 */
(function () {
  "use strict";

  var KEY_READING = "wiki.reading_list";
  var KEY_HISTORY = "wiki.history";
  var BY_ID = {};
  WIKI_ARTICLES.forEach(function (a) { BY_ID[a.id] = a; });
  var CATEGORY_ORDER = ["Geography", "Places", "History", "People", "Institutions", "Nature", "Culture"];

  // ---- storage -------------------------------------------------------------------------
  function load(key) {
    try { var v = JSON.parse(localStorage.getItem(key)); return Array.isArray(v) ? v : []; }
    catch (e) { return []; }
  }
  function save(key, value) { localStorage.setItem(key, JSON.stringify(value)); }

  // ---- text helpers --------------------------------------------------------------------
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function plain(s) {
    return String(s).replace(/\[\[([a-z0-9-]+)\|([^\]]+)\]\]/g, "$2")
      .replace(/\[\[([a-z0-9-]+)\]\]/g, function (_, id) { return BY_ID[id] ? BY_ID[id].title : id; })
      .replace(/\*\*([^*]+)\*\*/g, "$1").replace(/\*([^*]+)\*/g, "$1");
  }
  function param(name) {
    var m = new RegExp("[?&]" + name + "=([^&#]*)").exec(location.search);
    return m ? decodeURIComponent(m[1].replace(/\+/g, " ")) : "";
  }

  /** A link factory with per-page counters, so ids are unique and stable. */
  function Linker(prefix) {
    var seen = {};
    return function (id, text) {
      seen[id] = (seen[id] || 0) + 1;
      var hid = prefix + id + (seen[id] > 1 ? "-" + seen[id] : "");
      var a = BY_ID[id];
      var label = text || (a ? a.title : id);
      return '<a id="' + hid + '" href="article.html?id=' + id + '"' + (a ? "" : ' class="missing"') + ">" + esc(label) + "</a>";
    };
  }
  function inline(s, link) {
    var out = esc(s);
    out = out.replace(/\[\[([a-z0-9-]+)(?:\|([^\]]+))?\]\]/g, function (_, id, text) { return link(id, text ? text.replace(/&amp;/g, "&") : null); });
    out = out.replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>").replace(/\*([^*]+)\*/g, "<i>$1</i>");
    return out;
  }
  function tableHtml(t, link) {
    var h = '<table class="wikitable"><caption>' + inline(t.caption, link) + "</caption><thead><tr>";
    t.head.forEach(function (c) { h += '<th scope="col">' + esc(c) + "</th>"; });
    h += "</tr></thead><tbody>";
    t.rows.forEach(function (r) {
      var total = /^Total$/.test(r[0]);
      h += "<tr" + (total ? ' class="total"' : "") + ">";
      r.forEach(function (c, i) { h += i === 0 ? '<th scope="row">' + inline(c, link) + "</th>" : "<td>" + inline(c, link) + "</td>"; });
      h += "</tr>";
    });
    return h + "</tbody></table>";
  }
  function bodyHtml(items, link) {
    return items.map(function (it) {
      if (typeof it === "string") return "<p>" + inline(it, link) + "</p>";
      if (it.h3) return "<h3>" + esc(it.h3) + "</h3>";
      if (it.table) return tableHtml(it.table, link);
      if (it.list) return "<ul>" + it.list.map(function (li) { return "<li>" + inline(li, link) + "</li>"; }).join("") + "</ul>";
      if (it.quote) return "<blockquote>" + inline(it.quote, link) + "</blockquote>";
      return "";
    }).join("\n");
  }

  // ---- pictures (inline SVG, no requests) -------------------------------------------------
  var INK = "#4a3a28", WASH = "#e9dcc0", SEA = "#b9cdd0";
  var PICS = {
    islands: '<rect width="240" height="150" fill="' + SEA + '"/><path d="M30 70q20-25 50-12t30 20-40 20-40-28z" fill="' + WASH + '" stroke="' + INK + '"/><path d="M120 40q25-10 40 5t-5 30-35-5z" fill="' + WASH + '" stroke="' + INK + '"/><path d="M160 95q20-10 35 2t-10 22-25-24z" fill="' + WASH + '" stroke="' + INK + '"/><circle cx="95" cy="115" r="9" fill="' + WASH + '" stroke="' + INK + '"/><circle cx="200" cy="40" r="7" fill="' + WASH + '" stroke="' + INK + '"/><path d="M60 120q10-8 20 0t-2 12z" fill="' + WASH + '" stroke="' + INK + '"/><path d="M140 120l6-10 6 10z" fill="' + INK + '"/>',
    city: '<rect width="240" height="150" fill="#efe4cc"/><rect y="110" width="240" height="40" fill="' + SEA + '"/><g fill="' + WASH + '" stroke="' + INK + '"><rect x="20" y="60" width="30" height="50"/><rect x="55" y="40" width="22" height="70"/><rect x="82" y="70" width="40" height="40"/><rect x="150" y="50" width="26" height="60"/><rect x="182" y="30" width="14" height="80"/><rect x="200" y="65" width="30" height="45"/></g><path d="M0 108h240" stroke="' + INK + '"/><path d="M120 95q30-30 60 0" fill="none" stroke="' + INK + '" stroke-width="2"/>',
    town: '<rect width="240" height="150" fill="#efe4cc"/><path d="M0 120q60-15 120 0t120 0v30H0z" fill="' + SEA + '"/><g fill="' + WASH + '" stroke="' + INK + '"><rect x="30" y="70" width="40" height="45"/><rect x="80" y="60" width="50" height="55"/><rect x="140" y="75" width="35" height="40"/></g><g fill="' + INK + '"><rect x="95" y="25" width="8" height="35"/><rect x="112" y="35" width="7" height="25"/><rect x="185" y="40" width="8" height="75"/></g><circle cx="100" cy="18" r="6" fill="#bbb"/><circle cx="189" cy="30" r="7" fill="#bbb"/>',
    volcano: '<rect width="240" height="150" fill="#efe4cc"/><path d="M10 140L100 35h40l90 105z" fill="' + WASH + '" stroke="' + INK + '"/><path d="M100 35q20 10 40 0" fill="none" stroke="' + INK + '"/><path d="M112 30q-10-20 5-25t10 12 15-10" fill="none" stroke="#888" stroke-width="3"/><path d="M100 35l-12 30 10-4-6 20" fill="none" stroke="#8a3b1e" stroke-width="2"/>',
    lighthouse: '<rect width="240" height="150" fill="#efe4cc"/><rect y="120" width="240" height="30" fill="' + SEA + '"/><path d="M105 120l8-80h14l8 80z" fill="' + WASH + '" stroke="' + INK + '"/><rect x="110" y="28" width="20" height="12" fill="#f4c95d" stroke="' + INK + '"/><path d="M107 28l13-10 13 10z" fill="' + INK + '"/><path d="M130 34l90-20v40zM110 34L20 14v40z" fill="#f4c95d" opacity=".45"/><path d="M109 70h22M107 95h26" stroke="#9b3b2e" stroke-width="6"/>',
    person: '<rect width="240" height="150" fill="#efe4cc"/><ellipse cx="120" cy="150" rx="70" ry="55" fill="' + WASH + '" stroke="' + INK + '"/><circle cx="120" cy="62" r="32" fill="' + WASH + '" stroke="' + INK + '"/><rect x="20" y="12" width="200" height="126" fill="none" stroke="' + INK + '" stroke-dasharray="4 3"/>',
    swords: '<rect width="240" height="150" fill="' + SEA + '"/><path d="M40 110q40-10 80 0t80 0" fill="none" stroke="' + INK + '"/><g fill="' + WASH + '" stroke="' + INK + '"><path d="M50 100h50l-8 12H58z"/><path d="M140 95h55l-8 14h-40z"/></g><g stroke="' + INK + '"><path d="M75 100V55M168 95V45"/></g><path d="M76 58l22 20H76zM169 48l20 24h-20z" fill="#f7f0e0" stroke="' + INK + '"/><path d="M120 30q6 8 0 16" stroke="#8a3b1e" fill="none" stroke-width="2"/>',
    scroll: '<rect width="240" height="150" fill="#efe4cc"/><rect x="55" y="25" width="130" height="100" fill="#f7f0e0" stroke="' + INK + '"/><rect x="45" y="18" width="150" height="10" rx="5" fill="' + WASH + '" stroke="' + INK + '"/><rect x="45" y="122" width="150" height="10" rx="5" fill="' + WASH + '" stroke="' + INK + '"/><g stroke="#a08a68"><path d="M70 45h100M70 58h100M70 71h90M70 84h100"/></g><g fill="#9b3b2e"><circle cx="80" cy="108" r="5"/><circle cx="95" cy="108" r="5"/><circle cx="110" cy="108" r="5"/><circle cx="125" cy="108" r="5"/><circle cx="140" cy="108" r="5"/><circle cx="155" cy="108" r="5"/><circle cx="170" cy="108" r="5"/></g>',
    coin: '<rect width="240" height="150" fill="#efe4cc"/><circle cx="120" cy="75" r="55" fill="#d9c9a0" stroke="' + INK + '" stroke-width="2"/><circle cx="120" cy="75" r="45" fill="none" stroke="' + INK + '" stroke-dasharray="3 3"/><path d="M100 70q20-30 40 0q-20 10-40 0zM120 65v30" fill="#f7f0e0" stroke="' + INK + '"/>',
    hall: '<rect width="240" height="150" fill="#efe4cc"/><path d="M40 60l80-35 80 35z" fill="' + WASH + '" stroke="' + INK + '"/><rect x="45" y="60" width="150" height="65" fill="' + WASH + '" stroke="' + INK + '"/><g fill="#f7f0e0" stroke="' + INK + '"><rect x="60" y="70" width="12" height="55"/><rect x="90" y="70" width="12" height="55"/><rect x="138" y="70" width="12" height="55"/><rect x="168" y="70" width="12" height="55"/></g><rect x="112" y="95" width="16" height="30" fill="' + INK + '"/>',
    calendar: '<rect width="240" height="150" fill="#efe4cc"/><rect x="60" y="20" width="120" height="110" fill="#f7f0e0" stroke="' + INK + '"/><rect x="60" y="20" width="120" height="20" fill="#9b3b2e"/><g fill="' + INK + '" font-family="Georgia,serif" font-size="10"><text x="68" y="58">1 2 3 4 5 6 7</text><text x="68" y="76">8 9 …</text><text x="68" y="112">22 … 28</text></g>',
    bridge: '<rect width="240" height="150" fill="#efe4cc"/><rect y="110" width="240" height="40" fill="' + SEA + '"/><path d="M0 70h240" stroke="' + INK + '" stroke-width="4"/><path d="M20 110q30-40 60 0M80 110q40-60 80 0M160 110q30-40 60 0" fill="none" stroke="' + INK + '" stroke-width="2"/><path d="M0 64h240" stroke="#7fb2c0" stroke-width="4"/>',
    moth: '<rect width="240" height="150" fill="#efe4cc"/><path d="M120 75q-60-60-90-25t90 25zM120 75q60-60 90-25t-90 25zM120 78q-45 40-65 20t65-20zM120 78q45 40 65 20t-65-20z" fill="#eef6f6" stroke="' + INK + '"/><circle cx="80" cy="55" r="5" fill="#d9902b"/><circle cx="160" cy="55" r="5" fill="#d9902b"/><ellipse cx="120" cy="80" rx="5" ry="22" fill="#777"/>'
  };
  function picture(kind) {
    return '<svg viewBox="0 0 240 150" role="img" aria-label="illustration" xmlns="http://www.w3.org/2000/svg">' + (PICS[kind] || PICS.scroll) + "</svg>";
  }

  // ---- chrome shared by every page --------------------------------------------------------
  function chrome(active) {
    var header = document.getElementById("masthead");
    if (header) {
      header.innerHTML =
        '<a id="nav-home" class="brand" href="index.html"><svg viewBox="0 0 32 32" width="34" height="34" aria-hidden="true"><path d="M11 28l3-18h4l3 18z" fill="#e9dcc0" stroke="#4a3a28"/><rect x="13" y="5" width="6" height="5" fill="#f4c95d" stroke="#4a3a28"/></svg>' +
        '<span><b>The Veshari Compendium</b><small>an encyclopedia of the seven islands</small></span></a>' +
        '<form id="search-form" class="searchbox" action="search.html" method="get" role="search">' +
        '<label for="search-input" class="sr">Search the Compendium</label>' +
        '<input id="search-input" name="q" type="search" placeholder="Search the Compendium" autocomplete="off" value="' + esc(param("q")) + '">' +
        '<button id="search-go" type="submit">Search</button></form>';
    }
    var side = document.getElementById("sidebar");
    if (side) {
      var items = [["side-home", "index.html", "Main page", "home"], ["side-contents", "contents.html", "Contents", "contents"],
        ["side-search", "search.html", "Search", "search"], ["side-reading", "reading-list.html", "Reading list", "reading"]];
      var n = load(KEY_READING).length;
      side.innerHTML = '<nav aria-label="Site"><h2>Navigation</h2><ul>' + items.map(function (it) {
        var badge = it[3] === "reading" && n ? ' <span class="badge">' + n + "</span>" : "";
        return '<li><a id="' + it[0] + '" href="' + it[1] + '"' + (active === it[3] ? ' aria-current="page"' : "") + ">" + it[2] + badge + "</a></li>";
      }).join("") + "</ul><h2>Categories</h2><ul class=\"cats\">" + CATEGORY_ORDER.map(function (c) {
        return '<li><a id="side-cat-' + c.toLowerCase() + '" href="contents.html#cat-' + c.toLowerCase() + '">' + c + "</a></li>";
      }).join("") + "</ul></nav>";
    }
    var foot = document.getElementById("footer");
    if (foot) foot.innerHTML = "The Veshari Compendium is a work of fiction. All places, people and figures are invented. Years are given in the Reckoning calendar (AR); the current year is 1184 AR.";
  }

  // ---- article page ------------------------------------------------------------------
  function renderArticle() {
    var id = param("id");
    var a = BY_ID[id];
    var main = document.getElementById("content");
    if (!a) {
      document.title = "Article not found – The Veshari Compendium";
      main.innerHTML = '<h1>Article not found</h1><p>There is no article with the id “' + esc(id) + '”. Try the <a id="notfound-search" href="search.html?q=' + encodeURIComponent(id) + '">search</a> or the <a id="notfound-contents" href="contents.html">contents</a>.</p>';
      return;
    }
    document.title = a.title + " – The Veshari Compendium";
    var hist = load(KEY_HISTORY);
    if (hist[hist.length - 1] !== a.id) { hist.push(a.id); if (hist.length > 100) hist = hist.slice(-100); save(KEY_HISTORY, hist); }

    var link = Linker("link-");
    var ib = a.infobox;
    var h = '<article class="article" data-article="' + a.id + '">';
    h += '<div class="title-row"><h1 id="firstHeading">' + esc(a.title) + '</h1><button id="reading-toggle" type="button" class="reading-toggle"></button></div>';
    h += '<p class="tagline">From the Veshari Compendium · <span class="cat">' + esc(a.category) + "</span></p>";
    h += '<aside class="infobox" aria-label="Summary"><div class="ib-title">' + esc(a.title) + '</div><figure>' + picture(a.image) + "<figcaption>" + esc(ib.caption) + "</figcaption></figure><table>";
    ib.rows.forEach(function (r) { h += '<tr><th scope="row">' + esc(r[0]) + "</th><td>" + inline(r[1], link) + "</td></tr>"; });
    h += "</table></aside>";
    h += a.lead.map(function (p) { return "<p>" + inline(p, link) + "</p>"; }).join("");
    h += '<nav class="toc" aria-labelledby="toc-title"><h2 id="toc-title">Contents</h2><ol>';
    a.sections.forEach(function (s, i) { h += '<li><a id="toc-' + s.id + '" href="#sec-' + s.id + '"><span class="num">' + (i + 1) + "</span> " + esc(s.title) + "</a></li>"; });
    if (a.seeAlso && a.seeAlso.length) h += '<li><a id="toc-see-also" href="#sec-see-also"><span class="num">' + (a.sections.length + 1) + "</span> See also</a></li>";
    h += "</ol></nav>";
    a.sections.forEach(function (s) {
      h += '<section><h2 id="sec-' + s.id + '">' + esc(s.title) + "</h2>" + bodyHtml(s.body, link) + "</section>";
    });
    if (a.seeAlso && a.seeAlso.length) {
      h += '<section><h2 id="sec-see-also">See also</h2><ul>' + a.seeAlso.map(function (sid) {
        return "<li>" + link(sid) + " — " + esc(BY_ID[sid] ? BY_ID[sid].summary : "") + "</li>";
      }).join("") + "</ul></section>";
    }
    h += "</article>";
    main.innerHTML = h;
    var btn = document.getElementById("reading-toggle");
    function paint() {
      var on = load(KEY_READING).indexOf(a.id) >= 0;
      btn.setAttribute("aria-pressed", on ? "true" : "false");
      btn.textContent = on ? "★ On your reading list (remove)" : "☆ Add to reading list";
    }
    btn.addEventListener("click", function () {
      var list = load(KEY_READING), at = list.indexOf(a.id);
      if (at >= 0) list.splice(at, 1); else list.push(a.id);
      save(KEY_READING, list);
      paint();
      chrome("article");
    });
    paint();
  }

  // ---- search ------------------------------------------------------------------------
  var STOP = { the: 1, a: 1, an: 1, of: 1, and: 1, in: 1, on: 1, to: 1, is: 1, was: 1, for: 1, by: 1, at: 1, with: 1, what: 1, who: 1, which: 1 };
  function tokens(s) {
    return plain(s).toLowerCase().split(/[^a-z0-9\u00c0-\u024f]+/).filter(function (t) { return t && !STOP[t]; });
  }
  /** The client-side index: one entry per article with its searchable fields. */
  var SEARCH_INDEX = WIKI_ARTICLES.map(function (a) {
    var parts = a.lead.slice();
    var headings = [];
    a.sections.forEach(function (s) {
      headings.push(s.title);
      s.body.forEach(function (it) {
        if (typeof it === "string") parts.push(it);
        else if (it.h3) headings.push(it.h3);
        else if (it.list) parts = parts.concat(it.list);
        else if (it.table) { parts.push(it.table.caption); it.table.rows.forEach(function (r) { parts.push(r.join(" ")); }); }
      });
    });
    a.infobox.rows.forEach(function (r) { parts.push(r.join(" ")); });
    var body = plain(parts.join(" \n"));
    var tf = {};
    tokens(body).forEach(function (t) { tf[t] = (tf[t] || 0) + 1; });
    return { id: a.id, title: a.title, titleTokens: tokens(a.title), aliases: (a.aliases || []).map(function (x) { return x.toLowerCase(); }),
      headingTokens: tokens(headings.join(" ")), tf: tf, text: body, summary: a.summary, category: a.category };
  });

  function rank(query) {
    var q = tokens(query);
    var phrase = query.trim().toLowerCase();
    if (!q.length) return [];
    var results = [];
    SEARCH_INDEX.forEach(function (e) {
      var score = 0, hits = 0;
      q.forEach(function (t) {
        var s = 0;
        if (e.titleTokens.indexOf(t) >= 0) s += 12;
        if (e.aliases.some(function (al) { return al.split(/\s+/).indexOf(t) >= 0; })) s += 8;
        if (e.headingTokens.indexOf(t) >= 0) s += 3;
        if (e.tf[t]) s += Math.min(e.tf[t], 10);
        if (s > 0) hits++;
        score += s;
      });
      if (!hits) return;
      if (e.title.toLowerCase() === phrase) score += 40;
      else if (e.title.toLowerCase().indexOf(phrase) >= 0) score += 15;
      if (e.aliases.indexOf(phrase) >= 0) score += 15;
      score *= hits / q.length; // favour articles matching every word
      results.push({ entry: e, score: Math.round(score * 10) / 10 });
    });
    results.sort(function (x, y) { return y.score - x.score || (x.entry.title < y.entry.title ? -1 : 1); });
    return results;
  }
  function snippet(e, query) {
    var q = tokens(query);
    var sentences = e.text.split(/(?<=[.!?])\s+|\n/);
    var best = sentences.find(function (s) { var l = s.toLowerCase(); return q.some(function (t) { return l.indexOf(t) >= 0; }); }) || e.summary;
    if (best.length > 220) best = best.slice(0, 217) + "…";
    var h = esc(best);
    q.forEach(function (t) {
      if (t.length < 2) return;
      h = h.replace(new RegExp("\\b(" + t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + ")", "gi"), "<mark>$1</mark>");
    });
    return h;
  }
  function renderSearch() {
    var q = param("q");
    var main = document.getElementById("content");
    document.title = (q ? "Search: " + q : "Search") + " – The Veshari Compendium";
    var h = '<h1>Search</h1><form class="bigsearch" action="search.html" method="get" role="search"><label for="search-page-input">Search for</label> ' +
      '<input id="search-page-input" name="q" type="search" value="' + esc(q) + '"> <button id="search-page-go" type="submit">Search</button></form>';
    if (!q) {
      h += "<p>Type a word or a name. Results are ranked by how well each article matches: titles count most, then alternative names, headings and the text.</p>";
    } else {
      var res = rank(q);
      h += '<p class="count" id="result-count">' + (res.length ? res.length + " article" + (res.length > 1 ? "s" : "") + " match “" + esc(q) + "”." : "No articles match “" + esc(q) + "”.") + "</p>";
      h += '<ol class="results">' + res.map(function (r) {
        var e = r.entry;
        return '<li><a id="result-' + e.id + '" href="article.html?id=' + e.id + '">' + esc(e.title) + '</a> <span class="meta">' + esc(e.category) + " · relevance " + r.score + '</span><p>' + snippet(e, q) + "</p></li>";
      }).join("") + "</ol>";
    }
    main.innerHTML = h;
  }

  // ---- contents, home, reading list ---------------------------------------------------------
  function byCategory() {
    var groups = {};
    WIKI_ARTICLES.forEach(function (a) { (groups[a.category] = groups[a.category] || []).push(a); });
    Object.keys(groups).forEach(function (c) { groups[c].sort(function (x, y) { return x.title < y.title ? -1 : 1; }); });
    return groups;
  }
  function renderContents() {
    var groups = byCategory();
    var h = '<h1>Contents</h1><p>All ' + WIKI_ARTICLES.length + " articles of the Compendium, by category.</p>";
    CATEGORY_ORDER.forEach(function (c) {
      if (!groups[c]) return;
      h += '<h2 id="cat-' + c.toLowerCase() + '">' + c + '</h2><ul class="contents-list">' + groups[c].map(function (a) {
        return '<li><a id="contents-' + a.id + '" href="article.html?id=' + a.id + '">' + esc(a.title) + "</a> — " + esc(a.summary) + "</li>";
      }).join("") + "</ul>";
    });
    document.getElementById("content").innerHTML = h;
  }
  function renderHome() {
    var link = Linker("home-");
    var groups = byCategory();
    var f = BY_ID["mount-skarn"];
    var h = '<h1>Welcome to the Veshari Compendium</h1><p class="intro">The free encyclopedia of the seven islands of the Stillwater Sea: ' + WIKI_ARTICLES.length + " articles on their places, people, history and institutions.</p>";
    h += '<div class="home-grid"><section class="panel"><h2>Featured article</h2><div class="featured">' + picture(f.image) +
      "<p>" + inline(f.lead[0], link) + "</p><p>" + link("mount-skarn", "Read the full article…") + "</p></div></section>";
    h += '<section class="panel"><h2>Did you know…</h2><ul>' +
      "<li>… that " + inline("the [[lantern-guild|Lantern Guild]] kept every light burning on both sides' coasts during the [[salt-wars|Salt Wars]]?", link) + "</li>" +
      "<li>… that " + inline("every month of the [[reckoning-calendar|Reckoning calendar]] has exactly 28 days?", link) + "</li>" +
      "<li>… that " + inline("walkers on the [[glass-bridge|Glass Bridge]] can see the channel beneath their feet?", link) + "</li>" +
      "<li>… that " + inline("only one person has appeared on a [[tessel|tessel]] banknote during their own lifetime?", link) + "</li>" +
      "</ul></section></div>";
    h += '<section class="panel"><h2>Browse by category</h2><div class="cat-grid">';
    CATEGORY_ORDER.forEach(function (c) {
      if (!groups[c]) return;
      h += "<div><h3>" + c + "</h3><ul>" + groups[c].map(function (a) { return "<li>" + link(a.id) + "</li>"; }).join("") + "</ul></div>";
    });
    h += "</div></section>";
    document.getElementById("content").innerHTML = h;
  }
  function renderReading() {
    var list = load(KEY_READING);
    var h = "<h1>Reading list</h1>";
    if (!list.length) h += '<p id="reading-empty">Your reading list is empty. Use “☆ Add to reading list” at the top of any article.</p>';
    else {
      h += "<p>" + list.length + " article" + (list.length > 1 ? "s" : "") + ' saved.</p><ul class="reading">' + list.map(function (id) {
        var a = BY_ID[id];
        return '<li><a id="rl-' + id + '" href="article.html?id=' + id + '">' + esc(a ? a.title : id) + '</a> <button type="button" class="small" id="remove-' + id + '" data-id="' + id + '">Remove</button></li>';
      }).join("") + '</ul><p><button type="button" id="reading-clear" class="small">Clear the list</button></p>';
    }
    document.getElementById("content").innerHTML = h;
    Array.prototype.forEach.call(document.querySelectorAll("button[data-id]"), function (b) {
      b.addEventListener("click", function () {
        var l = load(KEY_READING), at = l.indexOf(b.getAttribute("data-id"));
        if (at >= 0) l.splice(at, 1);
        save(KEY_READING, l); renderReading(); chrome("reading");
      });
    });
    var clear = document.getElementById("reading-clear");
    if (clear) clear.addEventListener("click", function () { save(KEY_READING, []); renderReading(); chrome("reading"); });
  }

  var PAGES = { article: renderArticle, search: renderSearch, contents: renderContents, home: renderHome, reading: renderReading };
  document.addEventListener("DOMContentLoaded", function () {
    var page = document.body.getAttribute("data-page");
    chrome(page);
    PAGES[page]();
    if (location.hash) { var t = document.getElementById(location.hash.slice(1)); if (t) t.scrollIntoView(); }
  });
  window.WIKI = { rank: rank, index: SEARCH_INDEX };
})();
