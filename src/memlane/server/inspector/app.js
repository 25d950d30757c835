// memlane inspector: what the model sees next, by layer. No build step, no dependencies.
// Everything shown comes from the REST API; model-written text is only ever set as textContent.
//
// The page is organised around the assembled context, in the order the model reads it: the
// token chart first, then each layer's messages; `#ids` in notes link to their records, and a
// record shows the messages it came from. Everything that selects what is shown lives in the
// URL (#/thread/ID[/record/N][?budget=B]), so a view can be bookmarked or sent.
"use strict";

const API = "/v1/memlane";
const DEFAULT_BUDGET = 4000;
// The order the model reads them in; `tools` are sent beside the messages.
const LAYERS = ["system", "tools", "core", "notes", "buffer", "working", "short_term", "new"];
const LAYER_NAMES = {
  system: "system prompt", tools: "tool schemas", core: "core notes", notes: "notes (records)",
  buffer: "episodic buffer",
  working: "working memory", short_term: "short-term", new: "new message",
};
// The layers whose `#ids` are record ids (linked, and counted among the records in view).
const ID_LAYERS = new Set(["core", "notes", "buffer"]);
const state = { key: localStorage.getItem("memlane.key") || "", dev: true };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

async function api(path) {
  const headers = state.key ? { Authorization: "Bearer " + state.key } : {};
  const res = await fetch(API + path, { headers });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error((body.error && body.error.message) || res.statusText);
    err.status = res.status;
    throw err;
  }
  return body;
}

function route() {
  // #/thread/<id>[/record/<n>][?budget=<b>]
  const [path, query] = location.hash.split("?");
  const params = new URLSearchParams(query || "");
  const budget = Number(params.get("budget")) || DEFAULT_BUDGET;
  const m = path.match(/^#\/thread\/([^/]+)(?:\/record\/(\d+))?$/);
  if (!m) return { budget };
  return { thread: decodeURIComponent(m[1]), record: m[2] ? Number(m[2]) : null, budget };
}

function href(thread, record, budget) {
  let h = "#/thread/" + encodeURIComponent(thread);
  if (record !== null && record !== undefined) h += "/record/" + record;
  const b = budget === undefined ? route().budget : budget;
  if (b !== DEFAULT_BUDGET) h += "?budget=" + b;
  return h;
}

function fmtDate(ts) { return new Date(ts * 1000).toISOString().slice(0, 10); }

async function loadThreads() {
  const list = document.getElementById("threads");
  let data;
  try {
    data = await api("/threads?limit=200");
  } catch (e) {
    list.replaceChildren(el("li", { class: "error", text: e.message }));
    if (e.status === 401) document.getElementById("key").hidden = false;
    return;
  }
  const current = route().thread;
  list.replaceChildren(...(data.threads.length ? data.threads.map((t) =>
    el("li", {}, el("a", { href: href(t.thread_id, null), "data-thread": t.thread_id,
                           class: t.thread_id === current ? "current" : "" },
      t.thread_id, el("br"),
      el("span", { class: "meta",
                   text: `${t.messages} msgs · filed to ${t.filed_to}` })))) :
    [el("li", { class: "muted", text: "no threads yet" })]));
}

// Text with `#12` record ids turned into links to the record (the rest stays plain text).
function linkIds(thread, text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/#(\d+)\b/g)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(el("a", { class: "record-link", "data-record": m[1], href: href(thread, m[1]) },
      m[0]));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function layersSection(trace) {
  const by = trace.tokens_by_layer;
  const order = [...LAYERS.filter((l) => l in by), ...Object.keys(by).filter(
    (l) => !LAYERS.includes(l))];
  const stack = el("div", { class: "stack", title: "the budget, by layer" },
    ...order.map((l) => el("div", { class: "bar " + l,
      style: `width:${(100 * by[l] / trace.budget).toFixed(2)}%`, title: `${l}: ${by[l]}` })));
  const rows = order.map((layer) => {
    const n = by[layer];
    const pct = Math.max(0.5, (100 * n) / trace.budget);
    return el("div", { class: "layer", "data-layer": layer, "data-tokens": n },
      el("a", { href: "#", "data-jump": layer, text: LAYER_NAMES[layer] || layer }),
      el("span", { class: "num", text: `${n} tok` }),
      el("div", {}, el("div", { class: "bar " + layer, style: `width:${pct.toFixed(1)}%` })));
  });
  const free = trace.budget - trace.tokens_total;
  const dropped = trace.dropped.length ?
    el("p", { class: "muted", text: "dropped to fit: " + trace.dropped.map(
      (d) => `${d.what} ${d.ref} (${d.reason})`).join(", ") }) : null;
  return el("section", { id: "layers" },
    el("h2", { text: "what the model sees" }),
    el("p", {}, el("strong", { text: `${trace.tokens_total} of ${trace.budget} tokens` }),
      el("span", { class: "muted", text: ` · ${free} free` })),
    stack, ...rows, dropped);
}

function toolsBlock(tools, tokens) {
  if (!tools.length) return null;
  const names = tools.map((t) => t.function ? t.function.name : "?");
  return el("div", { class: "group", id: "layer-tools", "data-group": "tools" },
    el("h3", {}, "tool schemas ", el("span", { class: "muted", text: `${tokens} tok` })),
    el("div", { class: "tools-block" },
      el("p", { text: names.join(", ") }),
      el("details", {}, el("summary", { text: "schemas as sent" }),
        el("pre", { text: JSON.stringify(tools, null, 2) }))));
}

function contextSection(thread, ctx) {
  const proxied = ctx.system_prompt_from === "proxy";
  const by = ctx.trace.tokens_by_layer;
  const groups = [];
  let current = null;
  for (const m of ctx.messages) {
    if (!current || current.layer !== m.layer) {
      current = { layer: m.layer, messages: [] };
      groups.push(current);
    }
    current.messages.push(m);
  }
  const blocks = [];
  groups.forEach((g, i) => {
    let name = LAYER_NAMES[g.layer] || g.layer;
    if (g.layer === "system") name = proxied ? "system prompt (as the proxy last sent it: the " +
      "client's)" : "system prompt (memlane's)";
    const first = groups.findIndex((x) => x.layer === g.layer) === i;
    blocks.push(el("div", { class: "group", "data-group": g.layer,
                            id: first ? "layer-" + g.layer : null },
      el("h3", {}, name + " ", el("span", { class: "muted",
        text: `${by[g.layer] ?? 0} tok · ${g.messages.length} message` +
              (g.messages.length === 1 ? "" : "s") })),
      ...g.messages.map((m) => el("div", { class: "msg " + m.layer, "data-layer": m.layer },
        el("span", { class: "tag", text: m.role }),
        ...(ID_LAYERS.has(m.layer) ? linkIds(thread, m.content) : [m.content])))));
    if (g.layer === "system") blocks.push(toolsBlock(ctx.tools || [], by.tools ?? 0));
  });
  if (!groups.some((g) => g.layer === "system")) blocks.unshift(toolsBlock(ctx.tools || [],
                                                                           by.tools ?? 0));
  return el("section", { id: "context" }, el("h2", { text: "assembled context, by layer" }),
    ...blocks);
}

function bufferSection(thread, trace) {
  const buf = trace.buffer;
  const ws = trace.window_start;
  const items = buf.lines.map((b) => {
    // A stretch that runs into the window: its turns from window_start on are shown verbatim
    // below; say so rather than let them read as two different things.
    const overlap = ws !== null && ws !== undefined && b.end >= ws;
    const range = overlap ? `msgs ${b.start}-${ws - 1} (${ws}-${b.end} in the window)` :
      `msgs ${b.start}-${b.end}`;
    return el("li", { class: "buffer-line", "data-end": b.end },
      el("span", { class: "when", text: `${fmtDate(b.date)} · ${range}` }),
      el("span", { class: "text", text: b.line }),
      ...(b.record_ids.length ? b.record_ids.map((id) => el("a", {
        class: "record-link", "data-record": id, href: href(thread, id) }, "#" + id)) :
        [el("span", { class: "muted", text: " (no records)" })]));
  });
  const notes = [];
  if (buf.gap) notes.push(`${buf.gap} ${buf.gap === 1 ? "stretch" : "stretches"} not listed (gap)`);
  if (buf.withheld) notes.push(`${buf.withheld} withheld by the injection scan`);
  if (buf.unfiled) notes.push(`${buf.unfiled} evicted message${buf.unfiled === 1 ? "" : "s"} ` +
                              "not filed yet");
  return el("section", { id: "buffer" }, el("h2", { text: "buffer lines (the index)" }),
    items.length ? el("ul", {}, ...items) :
      el("p", { class: "muted", text: "no buffer block: the whole conversation is in view" }),
    notes.length ? el("p", { class: "muted", text: notes.join(" · ") }) : null);
}

function sourcesBlock(thread, sources) {
  if (!sources) return null;
  if (!sources.length) return el("p", { class: "muted", text: "no source messages (kept)" });
  return el("div", { class: "sources" }, el("h4", { text: "came from" }),
    ...sources.map((m) => el("div", { class: "source", "data-seq": m.seq },
      el("span", { class: "tag" },
        m.thread_id === thread ? `#${m.seq} ${m.role}` :
          el("a", { href: href(m.thread_id, null) }, `${m.thread_id} #${m.seq}`), " · ",
        fmtDate(m.ts)),
      el("span", { class: "text", text: m.content }))));
}

function recordsSection(thread, records, focus, sources) {
  return el("section", { id: "records" },
    el("h2", { text: "records in view" }),
    el("p", { class: "muted", text: "the records in the notes and the ones the buffer points " +
                                     "at; follow an id to see the messages a record came from" }),
    ...(records.length ? records.map((r) => el("div", {
      id: "record-" + r.id, class: "record" + (r.id === focus ? " focused" : ""),
      "data-record": r.id },
      el("a", { class: "rid", href: href(thread, r.id), text: "#" + r.id }),
      el("span", { class: "text", text: r.text }),
      el("span", { class: "kind", text: `${r.kind}${r.pinned ? " · pinned" : ""}` +
                                        `${r.suspect ? " · flagged" : ""}` }),
      r.id === focus ? sourcesBlock(thread, sources) : null)) :
      [el("p", { class: "muted", text: "none" })]));
}

function workingSection(trace) {
  const scores = Object.entries(trace.working_scores);
  if (!scores.length) return null;
  // Folded away: it explains why working memory holds what it holds, which matters less than
  // what it holds (above).
  const kept = scores.filter(([, s]) => s > 0.0005).length;
  return el("section", { id: "working" }, el("details", {},
    el("summary", { text: `working-memory scores: ${scores.length} turns, ${kept} above 0` }),
    el("table", {}, el("tr", {}, el("th", { text: "turn (seq)" }), el("th", { text: "score" }),
                       el("th", {})),
      ...scores.map(([seq, s]) => el("tr", { class: "score", "data-seq": seq },
        el("td", { text: seq }), el("td", { text: Number(s).toFixed(3) }),
        el("td", {}, el("div", { class: "bar working",
                                 style: `width:${(100 * s).toFixed(1)}%` })))))));
}

function ledgerSection(ledger) {
  if (!ledger.enabled || !ledger.rows.length) return null;
  return el("section", { id: "ledger" }, el("details", {},
    el("summary", { text: `quality ledger: ${ledger.rows.length} ` +
                          (ledger.rows.length === 1 ? "row" : "rows") }),
    el("table", {}, el("tr", {}, ...["when", "kind", "seq", "score", "signals"].map(
      (h) => el("th", { text: h }))),
      ...ledger.rows.slice(-50).map((r) => el("tr", { class: "ledger-row" },
        el("td", { text: new Date(r.ts * 1000).toISOString().replace("T", " ").slice(0, 19) }),
        el("td", { text: r.kind }), el("td", { text: r.seq ?? "" }),
        el("td", { text: r.score === null ? "" : Number(r.score).toFixed(2) }),
        el("td", { text: Object.keys(r.signals || {}).join(", ") }))))));
}

async function showThread(id, focus, budget) {
  const view = document.getElementById("view");
  view.replaceChildren(el("p", { class: "muted", text: "loading " + id + "..." }));
  const enc = encodeURIComponent(id);
  try {
    const [info, ctx, ledger] = await Promise.all([
      api(`/threads/${enc}?limit=1`),
      api(`/threads/${enc}/context?budget=${budget}`),
      api(`/ledger?thread_id=${enc}&limit=200`).catch(() => ({ enabled: false, rows: [] })),
    ]);
    // The records the model can reach in one step: ids on buffer lines, in the core and the
    // notes (which hold the records themselves).
    const ids = new Set(ctx.trace.buffer.lines.flatMap((b) => b.record_ids));
    for (const m of ctx.messages) {
      if (ID_LAYERS.has(m.layer)) {
        for (const x of m.content.matchAll(/#(\d+)\b/g)) ids.add(Number(x[1]));
      }
    }
    if (focus !== null) ids.add(focus);
    const list = [...ids].sort((a, b) => a - b);
    const [recs, focused] = await Promise.all([
      list.length ? api(`/records?ids=${list.join(",")}&limit=${list.length}`) :
        Promise.resolve({ records: [] }),
      focus !== null ? api(`/records/${focus}?sources=true`).catch(() => null) :
        Promise.resolve(null),
    ]);
    const t = info.thread;
    // Sections with nothing to show are null: left out (replaceChildren would print "null").
    view.replaceChildren(...[
      el("h2", { id: "thread-title", text: t.thread_id }),
      el("p", { class: "muted",
                text: `${t.messages} messages · filed to #${t.filed_to} · ` +
                      `${info.episodes.length} buffer lines · window starts at #` +
                      `${ctx.trace.window_start ?? "-"}` }),
      layersSection(ctx.trace), contextSection(id, ctx), bufferSection(id, ctx.trace),
      recordsSection(id, recs.records, focus, focused ? focused.sources : null),
      workingSection(ctx.trace), ledgerSection(ledger)].filter((x) => x !== null));
    view.querySelectorAll("a[data-jump]").forEach((a) => a.addEventListener("click", (ev) => {
      ev.preventDefault();
      const target = document.getElementById("layer-" + a.dataset.jump);
      if (target) target.scrollIntoView({ block: "start" });
    }));
    if (focus !== null) {
      const target = document.getElementById("record-" + focus);
      if (target) target.scrollIntoView({ block: "center" });
    }
    document.body.dataset.ready = "thread";
  } catch (e) {
    view.replaceChildren(el("p", { class: "error", text: e.message }));
    document.body.dataset.ready = "error";
  }
}

async function render() {
  const r = route();
  document.getElementById("budget").value = r.budget;
  document.querySelectorAll("nav a").forEach((a) => {
    a.classList.toggle("current", a.dataset.thread === r.thread);
    a.setAttribute("href", href(a.dataset.thread, null, r.budget));
  });
  if (r.thread) await showThread(r.thread, r.record, r.budget);
}

async function start() {
  document.getElementById("budget").value = route().budget;
  document.getElementById("key").value = state.key;
  document.getElementById("settings").addEventListener("submit", (ev) => {
    ev.preventDefault();
    state.key = document.getElementById("key").value.trim();
    localStorage.setItem("memlane.key", state.key);
    const r = route();
    const budget = Number(document.getElementById("budget").value) || DEFAULT_BUDGET;
    const next = r.thread ? href(r.thread, r.record, budget) :
      (budget !== DEFAULT_BUDGET ? "#?budget=" + budget : "#");
    if (next !== location.hash) location.hash = next;  // the hashchange renders
    else loadThreads().then(render);
  });
  try {
    const me = await api("/whoami");
    state.dev = me.dev_mode;
    document.getElementById("who").textContent =
      `namespace ${me.namespace}${me.dev_mode ? " (dev mode)" : ""} · v${me.version}`;
  } catch (e) {
    document.getElementById("key").hidden = false;
    document.getElementById("who").textContent = e.status === 401 ? "enter an API key" : e.message;
  }
  await loadThreads();
  await render();
  if (!route().thread) document.body.dataset.ready = "threads";
}

window.addEventListener("hashchange", render);
start();
