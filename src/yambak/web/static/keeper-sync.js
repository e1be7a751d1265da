// @ts-check
// A kept sheet's sync: the queue sent over the sheet's socket in order, each entry once; a sheet started
// offline made on the server; the live socket that brings every phone's entries; joining with a code.
import { T, toast } from "./page.js";
import { SessionSocket } from "./game.js";
/** @typedef {import("./keeper-store.js").KeptSheet} KeptSheet */
/** @typedef {import("./protocol").SheetView} SheetView */
import { loadSheet, saveSheet, listSheets, newId, removeEntry, refileEntry, whileSending } from "./keeper-store.js";
import { online, refusalText, reload, state, transient } from "./keeper-state.js";
import { recompute } from "./keeper-sheet.js";
import { draw, renderStatus } from "./keeper-draw.js";

// Join with the sheet's code: a write token for this phone. `quiet`: a sheet kept before write tokens
// joining again by itself (no message unless it fails).
/** @param {string} code */
export async function joinWith(code, quiet = false) {
  let data = null, r = null;
  try {
    r = await fetch("/api/keep/join", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }) });
    data = await r.json().catch(() => null);
  } catch { data = null; }
  if (!state.sheet) return;
  if (r && r.ok && data && data.id === state.sheet.id) {
    state.sheet.token = data.token; state.sheet.code = data.code;
    await saveSheet(state.sheet, state.trusted ? state.shown : null);
    if (!quiet) toast(T("This phone can now keep score on this sheet."));
    reconnect();
  } else if (r && r.ok && data) state.notice = { code: "join/other", text: T("That code belongs to another sheet.") };
  else if (data && data.code) state.notice = { code: data.code, text: refusalText(data) };
  else if (!quiet) state.notice = { code: "join/offline", text: T("Joining a shared sheet needs the network.") };
  draw();
  flush();
}

// --- sync: the queue, a sheet started offline, the live socket ----------------------------------------
/** @param {import("./keeper-store.js").Entry} e */
function payload(e) {
  /** @type {Record<string, any>} */
  const out = { id: e.id, v: e.v, kind: e.kind };
  const fields = /** @type {Record<string, any>} */ (e);
  for (const k of ["seat", "filled", "dice", "roll", "box", "strike", "turn", "count", "target", "rolloff"]) if (fields[k] != null) out[k] = fields[k];
  return out;
}

/** @param {KeptSheet} s @param {SheetView | null | undefined} view */
function applyBase(s, view) {  // the server's view of sheet s, when it is newer than what the phone has
  if (!s || !view || view.id !== s.id || view.v < s.base.v) return false;
  s.base = { v: view.v, record: view.record }; s.view = view; s.synced = true;
  return true;
}

/** @param {SheetView | null | undefined} view */
function setBase(view) {
  if (!state.sheet || !view || view.id !== state.sheet.id || view.v < state.sheet.base.v) return false;
  if (state.inflight && view.v > state.sheet.base.v) { state.deferred = !state.deferred || view.v >= state.deferred.v ? view : state.deferred; return false; }
  return applyBase(state.sheet, view);
}

/** @param {string} url @param {object} body */
const post = (url, body) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

// A sheet started with no network: created on the server under the phone's id (again, harmlessly).
/** @param {KeptSheet} s */
async function createOnServer(s) {
  const spec = s.spec || {};
  if (!s.token) { s.token = newId(24); await saveSheet(s); }  // made before write tokens: its own one now
  /** @type {Record<string, unknown>} */
  const body = { id: s.id, name: s.name, players: s.base.record.players, token: s.token };
  if (spec.rules) body.rules = spec.rules; else { body.preset = spec.preset; body.options = spec.options || {}; }
  const r = await post("/api/keep", body);
  const data = await r.json().catch(() => null);
  if (r.ok && data) {
    s.synced = true; s.code = data.code; s.orphan = null;
    if (data.view && data.view.v === 0) s.view = data.view;
    return "ok";
  }
  if (data && data.code && r.status < 500 && r.status !== 429) { s.orphan = data.code; return "refused"; }
  return "later";
}

// Send a sheet's queue, in order, each entry once, over the sheet's socket (the one on screen has its
// own; another sheet gets one for the while), one tab at a time. `open`: the sheet on screen (its view
// follows). "done", or "later" (no network, a server error, another tab sending: try again), "stop" (the
// sheet was closed), or "watch" (this phone may not write there: nothing is sent until it joins again).
/** @param {KeptSheet} s @param {boolean} open @returns {Promise<string>} */
async function push(s, open) {
  // the socket first, then the lock: a tab waiting for the server never keeps another from taking back its entry
  if (open && s.synced && s.queue.length && (!state.socket || !(await state.socket.opened()))) return "later";
  const out = await whileSending(s.id, () => pushNow(s, open));
  return out === "busy" ? "later" : out;
}

/** @param {KeptSheet} s @param {boolean} open @returns {Promise<string>} */
async function pushNow(s, open) {
  const still = () => !open || state.sheet === s;
  if (open) await reload(); else Object.assign(s, (await loadSheet(s.id)) || {});  // every tab's entries
  if (!s.synced) {
    let made;
    try { made = await createOnServer(s); } catch { return "later"; }
    await saveSheet(s);
    if (made !== "ok") return made === "refused" ? "done" : "later";
    if (open) { draw(); follow(); }
  }
  if (!s.queue.length) return "done";
  if (!s.token) return "watch";
  /** @type {SessionSocket<import("./protocol").Protocol["sheet_server"]> | null} */
  const sock = open ? state.socket : new SessionSocket(`/ws/keep/${s.id}`, { reconnect: false, hello: () => ({ tokens: [s.token] }), onView: (msg) => applyBase(s, msg.view) });
  if (!sock) return "later";
  if (!open) sock.connect();
  try {
    if (!(await sock.opened())) return "later";
    let sent = 0;
    while (s.queue.length) {
      if (!still()) return "stop";
      const e = s.queue[0];
      if (open) state.inflight = e;
      if (sent++ >= PACE_AFTER) await sleep(PACE_MS);  // a long queue stays under the socket's rate limit
      const answer = await sock.request({ type: "entry", entry: payload(e) }, e.id);
      if (open) state.inflight = null;
      if (!still()) return "stop";
      if (!answer.ok && !answer.lost && answer.error.code === "rate/limited") { await sleep(1500); continue; }
      if (answer.ok) {
        await removeEntry(s.id, e.id);
        s.queue.shift();
        const view = "view" in answer.msg ? answer.msg.view : null;  // an `ack` (applied before) has none: the server's view is fetched
        if (open) { if (view) setBase(view); else await refreshFromServer(); if (state.deferred) { setBase(state.deferred); state.deferred = null; } }
        else if (view) applyBase(s, view);
        await saveSheet(s);
        continue;
      }
      if (answer.lost || transient(answer.error.code)) return "later";
      // the server decided against this entry: it is shown to be filed again, never dropped silently
      try { await refileEntry(s.id, e.id, answer.error); } catch { return "later"; }  // kept queued: asked again
      s.queue.shift();
      s.refile.push({ entry: e, error: answer.error });
      if (answer.error.code === "sheet/unknown") { s.orphan = answer.error.code; s.synced = false; }
      if (answer.error.code === "auth/sheet-token") s.token = null;  // its code was renewed: watch until it joins again
      if (open) { if (state.deferred) { setBase(state.deferred); state.deferred = null; } await refreshFromServer(); }
      await saveSheet(s);
      if (!s.token) return "watch";
    }
  } finally { if (!open) sock.close(); }
  return "done";
}

// The server takes a burst of 40 messages a socket, then 20 a second: a queue kept offline is sent within that.
const PACE_AFTER = 30, PACE_MS = 60;
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function flush() {
  if (state.flushing || !state.sheet || !online()) return;
  state.flushing = true;
  const s = state.sheet;
  let result = "done";
  try { result = await push(s, true); }
  finally {
    state.flushing = false; state.inflight = null;
    if (state.sheet === s) {
      if (result === "later") retryLater(); else state.retryDelay = 1500;
      await reload();
      await recompute();
    }
  }
}

// The sheets kept on this phone with entries not yet sent (or not yet on the server), sent now
// (the start page, the network back); the sheet on screen sends its own.
export async function syncAll() {
  if (state.syncing || !online()) return;
  state.syncing = true;
  try {
    for (const x of await listSheets()) {
      if (!(x.pending > 0 || !x.synced) || (state.sheet && state.sheet.id === x.id)) continue;
      const s = await loadSheet(x.id);
      if (!s || s.orphan || (!s.queue.length && s.synced)) continue;
      if (!s.token && s.synced && s.code && !(await tokenFor(s))) continue;  // kept before write tokens
      if ((await push(s, false)) === "later") break;
    }
  } finally { state.syncing = false; window.dispatchEvent(new Event("keeper-synced")); }
}
window.addEventListener("online", () => { syncAll(); });

// A write token for a sheet kept before write tokens, from the code it kept (none: the code was renewed).
/** @param {KeptSheet} s */
async function tokenFor(s) {
  try {
    const r = await post("/api/keep/join", { code: s.code });
    const data = await r.json().catch(() => null);
    if (!r.ok || !data || data.id !== s.id) return false;
    s.token = data.token; s.code = data.code;
    await saveSheet(s);
    return true;
  } catch { return false; }
}

function retryLater() { clearTimeout(state.retryTimer); state.retryTimer = setTimeout(flush, state.retryDelay); state.retryDelay = Math.min(state.retryDelay * 2, 15000); draw(); }

async function refreshFromServer() {
  if (!state.sheet || !state.sheet.synced) return;
  try { const r = await fetch(`/api/keep/${state.sheet.id}`); if (r.ok) setBase(await r.json()); } catch { /* offline */ }
}

// Follow the sheet on screen live: its socket (entries go out on it, every phone's entries come in).
export function follow() {
  if (!state.sheet || !state.sheet.synced || state.socket) return;
  const sid = state.sheet.id;
  state.socket = new SessionSocket(`/ws/keep/${sid}`, {
    hello: () => ({ tokens: state.sheet && state.sheet.token ? [state.sheet.token] : [] }),
    onWelcome: () => { state.live = true; flush(); renderStatus(); },
    onStatus: (up) => { if (!up) { state.live = false; renderStatus(); } },
    onView: (msg) => { if (state.sheet && state.sheet.id === sid && setBase(msg.view)) recompute(); },
  });
  state.socket.version = state.sheet.base.v;
  state.socket.connect();
}

// The socket again, from hello: after an offline spell (the old one may look open and be dead) and when the
// phone's token changed. The badge says "Live" only once the new one is welcomed.
export function reconnect() {
  if (state.socket) { state.socket.close(); state.socket = null; }
  state.live = false;
  follow();
  renderStatus();
}
window.addEventListener("online", () => { if (state.sheet) { state.retryDelay = 1500; reconnect(); flush(); } });
window.addEventListener("offline", () => { if (state.sheet) { state.live = false; renderStatus(); } });
