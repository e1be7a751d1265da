// The score-keeper page: a dice pad, the sheet the server keeps, the history, an offline queue.
// Nothing here computes a score: every number shown comes from the server's view (the engine).
// Entries go through one queue (kept in localStorage, each with a unique id) so that an entry
// made offline is sent, in order and once, when the network returns; the server acknowledges
// a replayed id without applying it twice.
import { boot, T, rowLabel, colLabel, boxLabel as pageBoxLabel, $, el } from "./page.js";
const boxLabel = (box) => pageBoxLabel(box, view ? view.rules.columns.length : 1);
const FACES = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const CACHE = "yambak-keep-v2";
const KEY = `yambak-keep:${boot.sheet}`;

const load = (k, d) => { try { return JSON.parse(localStorage.getItem(`${KEY}:${k}`)) ?? d; } catch { return d; } };
const store = (k, v) => { try { localStorage.setItem(`${KEY}:${k}`, JSON.stringify(v)); } catch { /* private mode: memory only */ } };

let view = boot.view;
const saved = load("view", null);
if (saved && saved.id === view.id && saved.v > view.v) view = saved;  // the page may come from the offline cache
let queue = load("queue", []);       // entries not yet acknowledged by the server, oldest first
let pad = [];                        // dice typed so far
let roll = 1;
let scratchMode = false;
let fixing = null;                   // the history entry being corrected
let tab = null;
let followed = null;                 // the seat to enter for at the last render: the sheet shown follows it
let invalid = {};                    // turn -> engine message, from a refused correction
let flushing = false;
let retryTimer = null;
let ws = null, wsRetry = 500, live = false;

const newId = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`).replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40);
// Entries on a version the view has passed were applied (or refused) already: they no longer count.
const turnEntries = () => queue.filter((e) => (e.kind === "dice" || e.kind === "scratch") && e.v >= view.v);
// The seat the next entry is for: the server's current seat, moved on by the entries still queued.
const nextSeat = () => (view.current + turnEntries().length) % view.players.length;

function setView(v) {
  if (!v || v.id !== view.id || v.v < view.v) return;
  view = v; store("view", view); render();
}

// --- entries --------------------------------------------------------------------------------------

function enqueue(entry) {
  entry.id = newId();
  entry.v = view.v + queue.length;
  entry.offline = !navigator.onLine;
  queue.push(entry); store("queue", queue);
  render(); flush();
}

function payload(e) {
  const out = { id: e.id, v: e.v, kind: e.kind };
  for (const k of ["seat", "dice", "roll", "box", "turn", "count"]) if (e[k] != null) out[k] = e[k];
  return out;
}

async function flush() {
  if (flushing) return;
  flushing = true;
  try {
    while (queue.length) {
      const e = queue[0];
      let r, data = null;
      try {
        r = await fetch(`/api/keep/${boot.sheet}/entries`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload(e)) });
      } catch { e.offline = true; store("queue", queue); retryLater(); return; }
      try { data = await r.json(); } catch { data = null; }
      if (r.ok) {
        queue.shift(); store("queue", queue);
        if (data && data.view) setView(data.view);
        continue;
      }
      if (r.status >= 500 || !data || !data.code) { retryLater(); return; }
      if (data.code.startsWith("stale")) {
        await refresh();
        // An entry made offline still stands if it is still that player's turn: rebase the queue on the new version.
        if (e.offline && (e.kind === "dice" || e.kind === "scratch") && e.seat === view.current) {
          queue.forEach((q, i) => { q.v = view.v + i; }); store("queue", queue);
          continue;
        }
      }
      queue.shift();
      queue.forEach((q, i) => { q.v = view.v + i; }); store("queue", queue);
      refused(e, data);
    }
  } finally { flushing = false; render(); }
}

function retryLater() { clearTimeout(retryTimer); retryTimer = setTimeout(flush, 2000); render(); }

async function refresh() {
  try { const r = await fetch(`/api/keep/${boot.sheet}`); if (r.ok) setView(await r.json()); } catch { /* offline */ }
}

function refused(e, data) {
  if (data.code === "keeper/breaks-later") {
    invalid = {}; for (const x of data.invalid || []) invalid[x.turn] = x.message;
  }
  if (e.kind === "dice" && !fixing) { pad = e.dice.slice(); roll = e.roll; }
  showError(data);
}

function showError(data) {
  const box = $("error");
  box.textContent = data ? `${T("Refused")}: ${data.message}` : "";
  if (data) box.dataset.code = data.code; else delete box.dataset.code;
}

function chooseBox(box) {
  showError(null); invalid = {};
  const seat = nextSeat();
  if (scratchMode) { enqueue({ kind: "scratch", seat, box }); scratchMode = false; return; }
  if (pad.length !== view.rules.dice) { showError({ code: "input/dice", message: T("Type all {n} dice first.", { n: view.rules.dice }) }); render(); return; }
  enqueue({ kind: "dice", seat, dice: pad.slice(), roll: view.rules.roll_matters ? roll : 1, box });
  pad = []; roll = 1;
}

function doUndo() {
  showError(null); invalid = {};
  const last = queue.length ? queue[queue.length - 1] : null;
  // Not sent yet (and not in flight): just forget it.
  if (last && !(flushing && queue.length === 1)) { queue.pop(); store("queue", queue); render(); return; }
  if (last) return;
  if (!view.history.length) return;
  enqueue({ kind: "undo", count: 1 });
}

function startFix(h) {
  fixing = h; pad = (h.dice || []).slice(); roll = h.roll; scratchMode = false; tab = h.player; showError(null); render();
  $("save-fix").scrollIntoView({ block: "nearest" });
}

function saveFix() {
  if (!fixing) return;
  const box = $("fix-box").value;
  const entry = { kind: "fix", turn: fixing.n, box };
  if (!scratchMode) {
    if (pad.length !== view.rules.dice) { showError({ code: "input/dice", message: T("Type all {n} dice first.", { n: view.rules.dice }) }); return; }
    entry.dice = pad.slice(); entry.roll = view.rules.roll_matters ? roll : 1;
  }
  invalid = {}; showError(null);
  fixing = null; pad = []; roll = 1; scratchMode = false;
  enqueue(entry);
}

function cancelFix() { fixing = null; pad = []; roll = 1; scratchMode = false; render(); }

function addDie(v) { if (pad.length < view.rules.dice) { pad.push(v); renderPad(); } }
function removeDie(i) { pad.splice(i, 1); renderPad(); }

// --- drawing --------------------------------------------------------------------------------------

function render() {
  document.body.dataset.v = String(view.v);
  document.body.dataset.pending = String(queue.length);
  document.body.dataset.entries = String(view.history.length);
  document.body.dataset.finished = view.finished ? "1" : "0";
  renderStandings(); renderStatus(); renderPad(); renderTabs(); renderSheet(); renderHistory();
  document.body.dataset.ready = "1";
}

function renderStandings() {
  const t = $("standings"); t.replaceChildren();
  const points = view.rules.match === "column_points";
  const head = el("tr");
  head.append(el("th", { scope: "col" }, T("Player")), el("th", { scope: "col" }, T("Total")));
  if (points) head.append(el("th", { scope: "col" }, T("Match points")));
  t.append(head);
  const winners = view.winners || [];
  for (const p of view.players) {
    const tr = el("tr", { class: (p.seat === nextSeat() && !view.finished ? "current" : "") + (winners.includes(p.seat) ? " win" : ""), "data-seat": p.seat });
    tr.append(el("th", { scope: "row" }, p.name + (winners.includes(p.seat) ? ` — ${T("Winner")}` : "")), el("td", { class: "total" }, String(p.total)));
    if (points) tr.append(el("td", {}, p.match_points == null ? "–" : String(p.match_points)));
    t.append(tr);
  }
}

function renderStatus() {
  const s = $("status");
  const pending = queue.length;
  if (view.finished && !pending) s.textContent = T("Game over");
  else if (fixing) s.textContent = T("Correcting entry {n} of {name}", { n: fixing.n, name: view.players[fixing.player].name });
  else s.textContent = T("{name}: type the dice, then tap a box", { name: view.players[nextSeat()].name });
  $("conn").textContent = pending ? T("{n} entries waiting to be sent", { n: pending }) : (live ? T("Connected") : T("Offline: entries are kept and sent when the network returns"));
}

function renderPad() {
  const n = view.rules.dice;
  const slots = $("slots"); slots.replaceChildren();
  for (let i = 0; i < n; i++) {
    const v = pad[i];
    slots.append(el("button", { type: "button", class: "die" + (v ? "" : " blank"), "data-pos": i, "aria-label": v ? T("Die {n}: {value}", { n: i + 1, value: v }) : T("Die {n}", { n: i + 1 }), onclick: () => v && removeDie(i) }, v ? String(v) : "·"));
  }
  const faces = $("faces");
  if (!faces.childElementCount) {
    for (let v = 1; v <= 6; v++) faces.append(el("button", { type: "button", class: "face", "data-face": v, "aria-label": String(v), onclick: () => addDie(v) }, `${FACES[v]} ${v}`));
  }
  const rolls = $("rolls");
  rolls.hidden = !view.rules.roll_matters;
  if (view.rules.roll_matters) {
    rolls.replaceChildren(el("span", { class: "muted" }, T("Roll number") + ":"));
    for (let r = 1; r <= view.rules.rolls_per_turn; r++) {
      rolls.append(el("button", { type: "button", role: "radio", class: "roll" + (r === roll ? " on" : ""), "aria-checked": r === roll ? "true" : "false", "data-roll": r, onclick: () => { roll = r; renderPad(); renderSheet(); } }, String(r)));
    }
  }
  const sc = $("scratch");
  sc.textContent = T("Just the score (0)"); sc.setAttribute("aria-pressed", scratchMode ? "true" : "false");
  sc.classList.toggle("on", scratchMode);
  sc.onclick = () => { scratchMode = !scratchMode; renderPad(); renderSheet(); };
  const undoBtn = $("undo");
  undoBtn.textContent = T("Undo last entry"); undoBtn.disabled = !view.history.length && !queue.length; undoBtn.onclick = doUndo;
  const cancel = $("cancel-fix"); cancel.hidden = !fixing; cancel.textContent = T("Cancel correction"); cancel.onclick = cancelFix;
  const fix = $("fix");
  fix.hidden = !fixing;
  if (fixing && fix.dataset.n !== String(fixing.n)) {
    fix.dataset.n = String(fixing.n);
    const sel = el("select", { id: "fix-box", "aria-label": T("Box") });
    for (const c of view.rules.columns) for (const r of view.rules.rows) {
      const id = `${c.id}.${r.id}`;
      sel.append(el("option", { value: id, selected: id === fixing.box }, boxLabel(id)));
    }
    const label = el("label", {}, T("Box") + " ");
    label.append(sel);
    fix.replaceChildren(label, el("button", { type: "button", id: "save-fix", class: "primary", onclick: saveFix }, T("Save correction")));
  } else if (!fixing) { delete fix.dataset.n; fix.replaceChildren(); }
}

function renderTabs() {
  const nav = $("tabs"); nav.replaceChildren();
  const next = nextSeat();
  if (!fixing && next !== followed) tab = next;
  followed = next;
  if (tab == null || tab >= view.players.length) tab = fixing ? fixing.player : next;
  for (const p of view.players) {
    nav.append(el("button", { type: "button", role: "tab", class: "tab" + (p.seat === nextSeat() ? " current" : ""), "aria-selected": p.seat === tab ? "true" : "false", "data-seat": p.seat, onclick: () => { tab = p.seat; render(); } }, `${p.name} ${p.total}`));
  }
}

function renderSheet() {
  const wrap = $("sheet"); wrap.replaceChildren();
  const p = view.players[tab];
  const canEnter = !view.finished && !fixing && tab === nextSeat();
  const table = el("table", { class: "sheet", "aria-label": T("Sheet of {name}", { name: p.name }) });
  const head = el("tr"); head.append(el("th"));
  for (const c of view.rules.columns) head.append(el("th", { scope: "col" }, colLabel(c.id)));
  table.append(head);
  const allowed = offered(p);
  const pendingBoxes = new Set(queue.filter((e) => (e.kind === "dice" || e.kind === "scratch") && e.seat === tab).map((e) => e.box));
  const addRow = (label, cells, cls) => { const tr = el("tr", { class: cls || "" }); tr.append(el("th", { scope: "row" }, label)); for (const c of cells) tr.append(c); table.append(tr); };
  const upperEnd = view.rules.rows.filter((r) => r.upper).length;
  view.rules.rows.forEach((r, i) => {
    addRow(rowLabel(r.id), view.rules.columns.map((c) => {
      const id = `${c.id}.${r.id}`;
      const cell = p.columns[c.id].boxes[r.id];
      const score = cell ? cell.score : null;
      const td = el("td", { "data-box": id });
      if (score != null) {
        td.textContent = String(score);
        // RULES.md section 4: a relation changed the box; the written value stays readable
        if (cell.written != null) { td.append(" "); td.append(el("s", { class: "written" }, String(cell.written))); }
      }
      else if (pendingBoxes.has(id)) { td.className = "pending"; td.textContent = "…"; }
      else if (canEnter && (!allowed || allowed.has(id))) td.append(el("button", { type: "button", class: "box", "data-box": id, "aria-label": boxLabel(id), onclick: () => chooseBox(id) }, "+"));
      return td;
    }));
    if (i === upperEnd - 1 && upperEnd > 0) {
      addRow(T("Upper"), view.rules.columns.map((c) => el("td", {}, String(p.columns[c.id].upper ?? ""))), "sum");
      addRow(T("Bonus"), view.rules.columns.map((c) => el("td", {}, String(p.columns[c.id].bonus ?? ""))), "sum");
    }
  });
  if (view.rules.columns.some((c) => p.columns[c.id].minimax !== undefined)) {
    addRow(T("Minimax"), view.rules.columns.map((c) => el("td", {}, String(p.columns[c.id].minimax ?? ""))), "sum");
  }
  addRow(T("Total"), view.rules.columns.map((c) => el("td", { "data-total": c.id }, String(p.columns[c.id].total))), "sum");
  wrap.append(table);
}

// The boxes the sheet can take after the chosen roll number (any roll for "just the score"),
// as the server's engine says; null (offer all) for a view cached before it said so.
function offered(p) {
  if (!p.fillable) return null;
  if (scratchMode) return new Set(Object.values(p.fillable).flat());
  return new Set(p.fillable[String(view.rules.roll_matters ? roll : 1)] || []);
}

function historyText(who, box, dice, r) {
  const rollText = view.rules.roll_matters ? ` · ${T("roll {n}", { n: r })}` : "";
  return `${who} · ${boxLabel(box)} · ${dice ? dice.join(" ") : "—"}${rollText}`;
}

function renderHistory() {
  const ol = $("history"); ol.replaceChildren();
  let seat = view.current;
  const pend = queue.map((e) => {
    let text;
    if (e.kind === "undo") text = T("Undo last entry");
    else if (e.kind === "fix") text = T("Correction of entry {n}", { n: e.turn }) + ` · ${boxLabel(e.box)} · ${e.dice ? e.dice.join(" ") : "0"}`;
    else { text = historyText(view.players[e.seat ?? seat].name, e.box, e.kind === "dice" ? e.dice : null, e.roll || 1); seat = (seat + 1) % view.players.length; }
    return el("li", { class: "pending", "data-id": e.id }, `${text} · ${T("pending")}`);
  });
  for (const li of pend.reverse()) ol.append(li);
  for (const h of view.history.slice().reverse()) {
    const li = el("li", { value: h.n, "data-n": h.n, class: invalid[h.n] ? "invalid" : "" });
    const label = historyText(view.players[h.player].name, h.box, h.dice, h.roll) + ` = ${h.strike ? "✗ " : ""}${h.written}`;
    li.append(el("button", { type: "button", class: "entry", "aria-label": T("Correct entry {n}", { n: h.n }) + `: ${label}`, onclick: () => startFix(h) }, label));
    if (invalid[h.n]) li.append(el("span", { class: "why" }, ` ${invalid[h.n]}`));
    ol.append(li);
  }
}

// --- keys, live updates, offline ---------------------------------------------------------------------

document.addEventListener("keydown", (e) => {
  if (e.target.closest && e.target.closest("input, select, textarea")) return;
  if (e.key >= "1" && e.key <= "6") { addDie(Number(e.key)); e.preventDefault(); }
  else if (e.key === "Backspace" && pad.length) { removeDie(pad.length - 1); e.preventDefault(); }
});

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  try { ws = new WebSocket(`${proto}://${location.host}/ws/keep/${boot.sheet}`); } catch { return; }
  ws.onopen = () => { wsRetry = 500; live = true; flush(); renderStatus(); };
  ws.onmessage = (m) => { const msg = JSON.parse(m.data); if (msg.type === "state") setView(msg.view); };
  ws.onclose = (e) => {
    live = false; renderStatus();
    if (e.code === 4404) return;
    setTimeout(connect, wsRetry); wsRetry = Math.min(wsRetry * 2, 8000);
  };
}

window.addEventListener("online", () => { flush(); if (!live) { wsRetry = 500; } });
window.addEventListener("offline", () => { live = false; renderStatus(); });

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/keep/sw.js", { scope: "/keep/" })
    .then(() => navigator.serviceWorker.ready)
    .then(() => caches.open(CACHE))
    .then((c) => c.addAll([location.pathname, "/static/keeper.js", "/static/style.css"]))
    .then(() => { document.body.dataset.offlineReady = "1"; })
    .catch(() => { /* no offline copy: the page still works online */ });
}

render();
connect();
if (queue.length) flush();
