// memlane inspector: what the model sees next, by layer. No build step, no dependencies.
// Everything shown comes from the REST API; model-written text is only ever set as textContent.
"use strict";

const API = "/v1/memlane";
const state = { key: localStorage.getItem("memlane.key") || "", budget: 4000, dev: true };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
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
  // #/thread/<id>[/record/<n>]
  const m = location.hash.match(/^#\/thread\/([^/]+)(?:\/record\/(\d+))?$/);
  return m ? { thread: decodeURIComponent(m[1]), record: m[2] ? Number(m[2]) : null } : {};
}

function threadHref(id) { return "#/thread/" + encodeURIComponent(id); }

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
    el("li", {}, el("a", { href: threadHref(t.thread_id), "data-thread": t.thread_id,
                           class: t.thread_id === current ? "current" : "" },
      t.thread_id, el("br"),
      el("span", { class: "meta",
                   text: `${t.messages} msgs · filed to ${t.filed_to}` })))) :
    [el("li", { class: "muted", text: "no threads yet" })]));
}

function layersSection(trace) {
  const rows = Object.entries(trace.tokens_by_layer).map(([layer, n]) => {
    const pct = Math.max(0.5, (100 * n) / trace.budget);
    return el("div", { class: "layer", "data-layer": layer, "data-tokens": n },
      el("span", { text: layer }), el("span", { class: "muted", text: `${n} tok` }),
      el("div", {}, el("div", { class: "bar " + layer, style: `width:${pct.toFixed(1)}%` })));
  });
  const dropped = trace.dropped.length ?
    el("p", { class: "muted", text: "dropped: " + trace.dropped.map(
      (d) => `${d.what} ${d.ref} (${d.reason})`).join(", ") }) : null;
  return el("section", { id: "layers" }, el("h2", { text: "layers" }),
    el("p", { text: `${trace.tokens_total} of ${trace.budget} tokens` }), ...rows, dropped);
}

function recordLinks(thread, ids) {
  if (!ids.length) return [el("span", { class: "muted", text: " (no records)" })];
  return ids.map((id) => el("a", { class: "record-link", "data-record": id,
                                   href: threadHref(thread) + "/record/" + id }, "#" + id));
}

function bufferSection(thread, trace) {
  const buf = trace.buffer;
  const items = buf.lines.map((b) => el("li", { class: "buffer-line", "data-end": b.end },
    el("span", { class: "when", text: `${fmtDate(b.date)} · msgs ${b.start}-${b.end}` }),
    el("span", { class: "text", text: b.line }), ...recordLinks(thread, b.record_ids)));
  const notes = [];
  if (buf.gap) notes.push(`${buf.gap} ${buf.gap === 1 ? 'stretch' : 'stretches'} not listed (gap)`);
  if (buf.withheld) notes.push(`${buf.withheld} withheld by the injection scan`);
  if (buf.unfiled) notes.push(`${buf.unfiled} evicted messages not filed yet`);
  return el("section", { id: "buffer" }, el("h2", { text: "episodic buffer" }),
    items.length ? el("ul", {}, ...items) :
      el("p", { class: "muted", text: "no buffer block: the whole conversation is in view" }),
    notes.length ? el("p", { class: "muted", text: notes.join(" · ") }) : null);
}

function workingSection(trace) {
  const scores = Object.entries(trace.working_scores);
  if (!scores.length) return null;
  return el("section", { id: "working" }, el("h2", { text: "working memory scores" }),
    el("table", {}, el("tr", {}, el("th", { text: "turn (seq)" }), el("th", { text: "score" }),
                       el("th", {})),
      ...scores.map(([seq, s]) => el("tr", { class: "score", "data-seq": seq },
        el("td", { text: seq }), el("td", { text: Number(s).toFixed(3) }),
        el("td", {}, el("div", { class: "bar working",
                                 style: `width:${(100 * s).toFixed(1)}%` }))))));
}

function contextSection(ctx) {
  return el("section", { id: "context" }, el("h2", { text: "assembled context" }),
    ...ctx.messages.map((m) => el("div", { class: "msg " + m.layer, "data-layer": m.layer },
      el("span", { class: "tag", text: `${m.layer} · ${m.role}` }), m.content)));
}

function recordsSection(records, focus) {
  return el("section", { id: "records" }, el("h2", { text: "records the buffer points at" }),
    ...(records.length ? records.map((r) => el("div", {
      id: "record-" + r.id, class: "record" + (r.id === focus ? " focused" : ""),
      "data-record": r.id },
      el("span", { class: "rid", text: "#" + r.id }), el("span", { class: "text", text: r.text }),
      el("span", { class: "kind", text: `${r.kind}${r.suspect ? " · flagged" : ""}` }))) :
      [el("p", { class: "muted", text: "none" })]));
}

function ledgerSection(ledger) {
  if (!ledger.enabled || !ledger.rows.length) return null;
  return el("section", { id: "ledger" }, el("h2", { text: "quality ledger" }),
    el("table", {}, el("tr", {}, ...["when", "kind", "seq", "score", "signals"].map(
      (h) => el("th", { text: h }))),
      ...ledger.rows.slice(-50).map((r) => el("tr", { class: "ledger-row" },
        el("td", { text: new Date(r.ts * 1000).toISOString().replace("T", " ").slice(0, 19) }),
        el("td", { text: r.kind }), el("td", { text: r.seq ?? "" }),
        el("td", { text: r.score === null ? "" : Number(r.score).toFixed(2) }),
        el("td", { text: Object.keys(r.signals || {}).join(", ") })))));
}

async function showThread(id, focus) {
  const view = document.getElementById("view");
  view.replaceChildren(el("p", { class: "muted", text: "loading " + id + "..." }));
  const enc = encodeURIComponent(id);
  try {
    const [info, ctx, ledger] = await Promise.all([
      api(`/threads/${enc}?limit=1`),
      api(`/threads/${enc}/context?budget=${state.budget}`),
      api(`/ledger?thread_id=${enc}&limit=200`).catch(() => ({ enabled: false, rows: [] })),
    ]);
    const ids = [...new Set(ctx.trace.buffer.lines.flatMap((b) => b.record_ids))];
    const records = ids.length ? (await api(`/records?ids=${ids.join(",")}`)).records : [];
    const t = info.thread;
    view.replaceChildren(
      el("h2", { id: "thread-title", text: t.thread_id }),
      el("p", { class: "muted",
                text: `${t.messages} messages · filed to #${t.filed_to} · ` +
                      `${info.episodes.length} buffer lines · window starts at #` +
                      `${ctx.trace.window_start ?? "-"}` }),
      layersSection(ctx.trace), bufferSection(id, ctx.trace), workingSection(ctx.trace),
      recordsSection(records, focus), contextSection(ctx), ledgerSection(ledger));
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
  document.querySelectorAll("nav a").forEach((a) =>
    a.classList.toggle("current", a.dataset.thread === r.thread));
  if (r.thread) await showThread(r.thread, r.record);
}

async function start() {
  document.getElementById("budget").value = state.budget;
  document.getElementById("key").value = state.key;
  document.getElementById("settings").addEventListener("submit", (ev) => {
    ev.preventDefault();
    state.key = document.getElementById("key").value.trim();
    state.budget = Number(document.getElementById("budget").value) || 4000;
    localStorage.setItem("memlane.key", state.key);
    loadThreads().then(render);
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
