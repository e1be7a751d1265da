// @ts-check
// The score-keeper's start page: a new sheet (started on this phone, with or without network), joining
// a shared sheet by its code, the sheets this phone kept, and statistics per player and ruleset
// (yambak.keeper.statistics, run by the phone's engine; by the server when that engine cannot start).
import { boot, T, $, $$, el, setText, toast, pct as percent } from "./page.js";
import { listSheets, loadSheet, saveSheet, deleteSheet, finishedRecords, finishedIds, knownNames, rememberNames, newId, onChange, askToPersist } from "./keeper-store.js";

/** @type {import("./keeper-engine.js").Engine} */
let engine;  // given by init(), before anything else runs
/** @type {{to(path: string, view: import("./protocol").SheetView | null): void}} */
let go;
/** @type {() => Promise<void>} */
let syncAll = () => Promise.resolve();
/** @param {string} code */
const reason = (code) => (boot.errors && boot.errors[code]) || "";
const online = () => navigator.onLine !== false;

/** @param {{engine: import("./keeper-engine.js").Engine, go: typeof go, syncAll?: () => Promise<void>}} options */
export function init(options) {
  engine = options.engine; go = options.go; syncAll = options.syncAll || syncAll;
  wireForm();
  $("keep-join").addEventListener("submit", join);
  engine.onChange(() => { if (!$("home").hidden) renderStats(); });
  window.addEventListener("keeper-synced", () => { if (!$("home").hidden) { renderPast(); renderStats(); } });
  onChange(() => { if (!$("home").hidden) { renderPast(); renderStats(); } });  // this tab's or another's
  askToPersist();
}

export async function show() {
  $("home").hidden = false; $("ks").hidden = true;
  document.body.classList.remove("keeper-sheet");
  setText($("head-title"), T("Score-keeper"));
  setText($("sync"), "");
  $("keep-home").hidden = true;
  document.title = `yambak — ${T("Score-keeper")}`;
  await Promise.all([fillNames(), prefill(), renderPast()]);
  renderStats();
  document.body.dataset.ready = "1";
  syncAll();
  document.body.dataset.home = "1";
}

/** @param {string} text */
function showError(text) {
  const e = $("home-error");
  e.hidden = !text; e.textContent = text || "";
  if (text) e.scrollIntoView({ block: "nearest" });
}

// --- the new sheet form ----------------------------------------------------------------------------
function seatInputs() { return $$("#players input[name^=player]"); }

function wireForm() {
  const select = $("preset");
  const showOptions = () => { for (const fs of $$("#keep-create fieldset.options")) fs.hidden = fs.dataset.preset !== select.value; };
  select.addEventListener("change", showOptions);
  showOptions();
  const more = $("more-players");
  if (more) more.onclick = () => showRows(visibleRows() + 4);
  $("keep-create").addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); createFromForm(); });
}

function visibleRows() { return $$("#players .seat-row").filter((r) => !r.hidden).length; }
/** @param {number} n */
function showRows(n) {
  const rows = $$("#players .seat-row");
  rows.forEach((r, i) => { if (i < n) r.hidden = false; });
  const more = $("more-players");
  if (more) more.hidden = rows.every((r) => !r.hidden);
}

// The family again: the players and rules of the last sheet, ready to go.
let prefilled = false;
async function prefill() {
  if (prefilled) return;
  prefilled = true;
  const last = (await listSheets())[0];
  if (!last || !last.players || !last.players.length) return;
  const inputs = seatInputs();
  if (inputs.slice(1).some((i) => i.value.trim())) return;  // the form was used already
  showRows(Math.max(visibleRows(), last.players.length));
  inputs.forEach((input, i) => { input.value = last.players[i] ? last.players[i].name : ""; });
  const select = $("preset");
  if (last.preset && [...select.options].some((o) => o.value === last.preset)) { select.value = last.preset; select.dispatchEvent(new Event("change")); }
}

async function fillNames() {
  const list = $("known-names");
  list.replaceChildren(...(await knownNames()).map((/** @type {string} */ n) => el("option", { value: n })));
}

/** @param {string} preset @returns {Record<string, unknown>} */
function readOptions(preset) {
  const schema = (boot.presets.find((/** @type {{id: string}} */ p) => p.id === preset) || { options: [] }).options;
  /** @type {Record<string, unknown>} */
  const out = {};
  const form = $("keep-create");
  for (const o of schema) {
    if (o.kind === "bool") { const box = form.querySelector(`input[name="${o.field}"]`); if (box) out[o.name] = box.checked; }
    else if (o.kind === "list") out[o.name] = [...form.querySelectorAll(`input[name="${o.field}"]:checked`)].map((b) => b.value);
    else {
      const r = form.querySelector(`input[name="${o.field}"]:checked`);
      if (r) out[o.name] = typeof o.default === "number" ? Number(r.value) : r.value;
    }
  }
  return out;
}

async function createFromForm() {
  showError("");
  const form = $("keep-create");
  const name = form.querySelector("input[name=name]").value.trim() || T("Score sheet");
  const players = seatInputs().map((i) => i.value.trim()).filter(Boolean);
  if (!players.length) { showError(reason("input/players")); return; }
  const seen = new Map();
  for (const p of players) {
    const k = p.toLocaleLowerCase();
    if (seen.has(k)) { showError(T("Two players are called {name}: make the names different.", { name: p })); return; }
    seen.set(k, p);
  }
  const file = form.querySelector("input[name=custom_file]");
  let toml = form.querySelector("textarea[name=custom]").value.trim();
  if (file && file.files && file.files[0]) toml = (await file.files[0].text()).trim();
  const preset = $("preset").value;
  const spec = toml ? { rules_toml: toml } : { preset, options: readOptions(preset) };
  await newSheet({ name, spec, players });
}

// A new sheet: on the server when there is network (it then has its code at once), else on this
// phone with its own engine (it gets its code when the network returns).
/** @param {{name: string, spec: any, players: string[]}} sheet */
export async function newSheet({ name, spec, players }) {
  const button = $("start-sheet");
  if (button) button.disabled = true;
  try {
    const id = newId(16);
    const token = newId(24);  // this phone's write token: the sheet's id only reads
    let rules = spec.rules || null;
    if (spec.rules_toml) {  // house rules: read by the engine (the phone's, or the server's below)
      if (!engine.failed) {
        await waitForEngine();
        const r = await engine.call("new", { spec: { rules_toml: spec.rules_toml, players } });
        if (!r.ok) { showError(errorText(r.error)); return; }
        rules = r.record.rules;
      } else if (!online()) { showError(T("House rules need this phone's engine or the network.")); return; }
    }
    const body = { id, name, players, token, ...(rules ? { rules } : spec.rules_toml ? {} : { preset: spec.preset, options: spec.options || {} }) };
    if (online() && (rules || !spec.rules_toml)) {
      let r = null;
      try { r = await fetch("/api/keep", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }); } catch { r = null; }
      if (r) {
        const data = await r.json().catch(() => null);
        if (r.ok && data) {
          await rememberNames(players);
          const s = { id: data.id, name, code: data.code, token: data.token, synced: true, spec: rules ? { rules } : { preset: spec.preset, options: spec.options || {} },
            base: { v: data.view.v, record: data.view.record }, view: data.view, queue: [], refile: [], created: Date.now() };
          await saveSheet(s, data.view);
          go.to(`/keep/${data.id}`, data.view);
          return;
        }
        if (data && data.code && r.status < 500) { showError(errorText(data)); return; }
      }
    }
    // no network: this phone's engine starts the sheet
    if (engine.failed) { showError(T("With no network, a new sheet needs this phone's engine, which could not start here.")); return; }
    await waitForEngine();
    const r = await engine.call("new", { spec: rules ? { rules, players } : { preset: spec.preset, options: spec.options || {}, players } });
    if (!r.ok) { showError(errorText(r.error)); return; }
    await rememberNames(players);
    const s = { id, name, code: null, token, synced: false, spec: rules ? { rules } : { preset: spec.preset, options: spec.options || {} },
      base: { v: 0, record: r.record }, queue: [], refile: [], created: Date.now() };
    await saveSheet(s, null);
    go.to(`/keep/${id}`, null);
  } finally { if (button) button.disabled = false; }
}

/** @param {Record<string, any> | null} err */
function errorText(err) {
  if (!err) return "";
  if (err.code === "keeper/same-name") return T("Two players are called {name}: make the names different.", { name: err.name || "" });
  if (err.code === "input/rules") return `${T("These rules cannot be used:")} ${err.detail || err.message || ""}`;
  return reason(err.code) || err.message || err.code;
}

async function waitForEngine() {
  if (engine.ready || engine.failed) return;
  const note = $("home-error");
  note.hidden = false; note.classList.add("muted"); note.textContent = T("Preparing this phone's engine…");
  await new Promise((resolve) => { const check = () => { if (engine.ready || engine.failed) resolve(undefined); }; engine.onChange(check); check(); });
  note.classList.remove("muted"); note.hidden = true;
}

// --- joining a shared sheet --------------------------------------------------------------------------
/** @param {Event} e */
async function join(e) {
  e.preventDefault();
  showError("");
  const code = $("keep-join").querySelector("input[name=code]").value;
  if (!online()) { showError(T("Joining a shared sheet needs the network.")); return; }
  try {
    const body = JSON.stringify({ code: code.replace(/\s|-/g, "").slice(0, 12) });
    const r = await fetch("/api/keep/join", { method: "POST", headers: { "content-type": "application/json" }, body });
    const data = await r.json().catch(() => null);
    if (r.ok && data) {  // this phone's write token, handed out by the code: the sheet's page keeps it
      go.to(`${data.url}#${new URLSearchParams({ token: data.token, code: data.code })}`, null);
      return;
    }
    showError(errorText(data) || reason("sheet/unknown-code"));
  } catch { showError(T("Joining a shared sheet needs the network.")); }
}

// --- the sheets this phone kept ----------------------------------------------------------------------
/** @param {import("./keeper-store.js").SheetLine} summary */
function presetName(summary) {
  const p = (boot.presets || []).find((/** @type {{id: string, name: string}} */ x) => x.id === summary.rules || x.id === summary.preset);
  return p ? p.name : summary.rules_name || summary.rules || "";
}

async function renderPast() {
  const list = $("past");
  const sheets = await listSheets();
  $("past-card").hidden = !sheets.length;
  let unsent = 0;  // entries (and sheets) this phone has not sent yet
  for (const s of sheets) unsent += (s.pending || 0) + (s.synced ? 0 : 1);
  document.body.dataset.unsent = String(unsent);
  list.replaceChildren(...sheets.map((s) => {
    const li = el("li", { "data-id": s.id });
    const a = el("a", { href: `/keep/${s.id}`, class: "open" });
    a.addEventListener("click", (/** @type {Event} */ e) => { e.preventDefault(); go.to(`/keep/${s.id}`, null); });
    a.append(el("b", {}, s.name), el("span", { class: "muted" }, ` · ${presetName(s)}`));
    const players = el("span", { class: "who" }, (s.players || []).map((/** @type {{name: string, total: number | null}} */ p, /** @type {number} */ i) => `${p.name} ${p.total ?? ""}${(s.winners || []).includes(i) && s.finished ? " ★" : ""}`).join(" · "));
    const when = new Date(s.updated || s.created || Date.now()).toLocaleDateString(boot.lang, { day: "numeric", month: "short", year: "numeric" });
    const state = s.finished ? T("finished") : T("in progress");
    const local = !s.synced ? T("only on this phone") : "";
    const unsent = s.pending ? T("not sent yet: {n}", { n: s.pending }) : "";
    const meta = el("span", { class: "meta muted" }, [when, state, local, unsent].filter(Boolean).join(" · "));
    const del = el("button", { type: "button", class: "ghost icon del", "aria-label": T("Delete {name} from this phone", { name: s.name }), title: T("Delete {name} from this phone", { name: s.name }) });
    del.append(trashIcon());
    del.onclick = async () => {
      if (!confirm(T("Delete {name} from this phone?", { name: s.name }))) return;
      await deleteSheet(s.id); renderPast(); renderStats();
    };
    li.append(a, players, meta, del);
    return li;
  }));
}

function trashIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const s = document.createElementNS(ns, "svg");
  s.setAttribute("viewBox", "0 0 24 24"); s.setAttribute("width", "20"); s.setAttribute("height", "20"); s.setAttribute("aria-hidden", "true");
  const p = document.createElementNS(ns, "path");
  p.setAttribute("fill", "currentColor");
  p.setAttribute("d", "M9 3h6l1 2h4v2H4V5h4l1-2zm-3 6h12l-1 12H7L6 9zm4 2v8h2v-8h-2zm4 0v8h-0.01V11H14z");
  s.append(p);
  return s;
}

// --- statistics: one function in Python, run by the phone's engine (or the server) -------------------------
/** @typedef {{name: string, games: number, wins: number, mean: number | null, best: number, bonus_rate: number | null,
 *   yam_rate: number | null, totals: number[]}} StatsPlayer a player's statistics (keeper/stats.py) */
/** @typedef {{rules: string, preset?: string, name: string, games: number, options?: Record<string, unknown>, modifiers?: string[],
 *   players: StatsPlayer[]}} StatsGroup the statistics of the sheets of one set of rules */
let statsKey = "";
/** @type {string | null} */
let statsGroup = null;
async function renderStats() {
  const records = await finishedRecords();
  const card = $("stats-card");
  card.hidden = !records.length;
  if (!records.length) return;
  const key = `${records.length}|${engine.ready}|${engine.failed}|${statsGroup}`;
  if (key === statsKey) return;
  statsKey = key;
  /** @type {{games: number, groups: StatsGroup[]} | null} */
  let stats = null;
  if (engine.ready) {
    const r = await engine.call("stats", { records });
    if (r.ok) stats = /** @type {any} */ (r);
  } else if (engine.failed && online()) {
    try {
      const r = await fetch("/api/keep/stats", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ sheets: (await finishedIds()).slice(0, 200) }) });
      if (r.ok) stats = await r.json();
    } catch { stats = null; }
  }
  const box = $("stats");
  if (!stats) { box.replaceChildren(el("p", { class: "muted" }, T("Preparing this phone's engine…"))); return; }
  document.body.dataset.stats = String(stats.games);
  if (!stats.groups.length) { box.replaceChildren(); return; }
  if (!stats.groups.some((g) => g.rules === statsGroup)) statsGroup = stats.groups[0].rules;
  const select = el("select", { id: "stats-rules", "aria-label": T("Rules") });
  for (const g of stats.groups) select.append(el("option", { value: g.rules, selected: g.rules === statsGroup }, `${groupName(g)} (${g.games})`));
  select.onchange = () => { statsGroup = select.value; statsKey = ""; renderStats(); };
  const group = /** @type {StatsGroup} */ (stats.groups.find((g) => g.rules === statsGroup));
  const t = el("table", { class: "stats" });
  const head = el("tr");
  for (const h of [T("Player"), T("Games"), T("Wins"), T("Mean"), T("Best"), T("Bonus"), T("Yams")]) head.append(el("th", { scope: "col" }, h));
  const thead = el("thead"); thead.append(head); t.append(thead);
  const best = Math.max(...group.players.map((p) => p.best), 1);
  for (const p of group.players) {
    const tr = el("tr");
    const who = el("th", { scope: "row" });
    who.append(el("span", { class: "who" }, p.name), spark(p.totals, best, T("Totals of {name}, oldest first: {list}", { name: p.name, list: p.totals.join(", ") })));
    tr.append(who, el("td", {}, String(p.games)), el("td", {}, String(p.wins)), el("td", {}, fmt(p.mean)), el("td", {}, String(p.best)),
      el("td", {}, pct(p.bonus_rate)), el("td", {}, pct(p.yam_rate)));
    t.append(tr);
  }
  box.replaceChildren(el("label", { class: "stats-pick" }, T("Rules") + " "), t);
  box.firstChild.append(select);
}

/** @param {StatsGroup} g */
function groupName(g) {
  const p = (boot.presets || []).find((/** @type {{id: string, name: string}} */ x) => x.id === g.preset);
  const base = p ? p.name : g.name;
  const opts = Object.entries(g.options || {}).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join("+") || "–" : v}`).concat(g.modifiers || []).join(", ");
  return opts ? `${base} · ${opts}` : base;
}

/** @param {number | null} x */
const fmt = (x) => (x == null ? "–" : Number(x).toLocaleString(boot.lang, { maximumFractionDigits: 1 }));  // 12 or 12,5
/** @param {number | null} x */
const pct = (x) => (x == null ? "–" : percent(x));

// A small bar chart of a player's totals, oldest first.
/** @param {number[]} values @param {number} max @param {string} label */
function spark(values, max, label) {
  const ns = "http://www.w3.org/2000/svg";
  const w = 96, h = 28, n = Math.max(values.length, 1), bw = Math.max(2, Math.floor(w / Math.max(n, 8)) - 1);
  const s = document.createElementNS(ns, "svg");
  s.setAttribute("viewBox", `0 0 ${w} ${h}`); s.setAttribute("width", String(w)); s.setAttribute("height", String(h));
  s.setAttribute("role", "img"); s.setAttribute("aria-label", label);
  values.forEach((v, i) => {
    const r = document.createElementNS(ns, "rect");
    const bh = Math.max(1, Math.round((Math.max(v, 0) / max) * (h - 2)));
    r.setAttribute("x", String(i * (bw + 1))); r.setAttribute("y", String(h - bh)); r.setAttribute("width", String(bw)); r.setAttribute("height", String(bh));
    r.setAttribute("class", v === max ? "bar best" : "bar");
    s.append(r);
  });
  return s;
}

export { toast, loadSheet };
