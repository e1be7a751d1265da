// @ts-check
// A kept sheet on a phone: the players strip, the sheet (the shared Sheet component) scrolling in its
// own pane, the dice pad docked under it, the history and sharing in a drawer. Every number drawn is
// the engine's: the phone's own (Pyodide, over the server's last record and the entries not yet sent;
// its last view is kept, so a sheet opened again shows its true totals while the engine starts) or the
// server's view. Entries go through one queue kept on the phone (keeper-store.js, shared by its tabs);
// the server acknowledges an entry id once, rebases an entry overtaken by another phone while it is
// still that player's turn, and otherwise refuses it: the phone then shows it to be filed again, never
// drops it, and never for another player. Dice typed on the pad belong to the player they were typed
// for: when another phone enters that turn first, they are cleared with a message. Writing takes the
// phone's write token (from making the sheet, or from its code); without one the sheet is watched.
import { boot, T, colon, C, N, colLabel, colShort, num, $, el, setText, setAttr, say, target, toast } from "./page.js";
import { dieSvg, miniDice } from "./dice.js";
import { GameSheet, PlayerStrip, SessionSocket, boxLabel, playableCell, reason } from "./game.js";
import { loadSheet, saveSheet, listSheets, newId, rememberNames, addEntry, removeEntry, refileEntry, whileSending,
  onChange, keepOnScreen, storage } from "./keeper-store.js";

let engine = null, go = null;
let S = null;                 // the sheet as this phone keeps it (keeper-store)
/** @type {import("./protocol").SheetView | null} */
let shown = null;             // the view drawn
let results = [];             // per queued entry, as the phone's engine applied it
let pad = [], roll = 1, zeroMode = false;
let padFor = null;            // {seat, filled}: the turn the typed dice (or the 0) are for
let trusted = false;          // whether `shown`'s numbers are true (the phone's engine's, or the server's of base alone)
let opened = 0;               // drops an open() a newer one replaced while it read the phone's storage
let fixing = null, fixOptions = null;
let preview = null, previewKey = "";
let zeros = null, zerosKey = "";
let rolloff = null;           // {target, seats, dice: {seat: [..]}} while a roll-off is typed
let tab = null, followed = null;
let invalid = {};             // turn -> why, from a refused correction
let notice = null;            // {code, text, ...}: the last refusal, shown until the next action
let flushing = false, inflight = null, deferred = null, retryTimer = null, retryDelay = 1500;
let socket = null, live = false;
let drawer = null;
let sheetUI = null, strip = null;
let seq = 0;                  // drops answers to requests a newer one replaced

const named = (box) => boxLabel(shown, box);
const nDice = () => shown.rules.rolled_dice;
const online = () => navigator.onLine !== false;
// refusals that say "not now" rather than "not this entry": the entry waits in the queue and goes again
const transient = (code) => /^(server|rate|cluster)\//.test(code || "");
const isTurn = (e) => e.kind === "dice" || e.kind === "scratch";
const readOnly = () => !!S && !S.token;  // no write token: this phone watches the sheet
const auth = () => (S && S.token ? { authorization: `Bearer ${S.token}` } : {});
const points = (x) => (Number.isInteger(x) ? String(x) : num(x, 1));

// --- messages in the player's language, from a refusal's code and fields ---------------------------
function refusalText(err) {
  if (!err) return "";
  const name = (seat) => (shown && shown.players[seat] ? shown.players[seat].name : "");
  switch (err.code) {
    case "stale/overtaken": return err.current != null ? T("Another phone entered this turn first: it is {name}'s turn now.", { name: name(err.current) }) : reason(err.code);
    case "illegal/not-your-turn": return err.current != null ? T("It is {name}'s turn now.", { name: name(err.current) }) : reason(err.code);
    case "keeper/breaks-later": return T("This correction would make entries {list} illegal: not applied.", { list: (err.invalid || []).map((x) => x.turn).join(", ") });
    case "input/dice": return T("Type all {n} dice first.", { n: err.n || nDice() });
    case "stale/version": return T("The sheet changed on another phone: this change was not applied.");
    case "engine/unavailable": case "engine/error": return T("This phone's engine could not answer: {detail}", { detail: err.message || "" });
    case "auth/sheet-token": return T("This phone may only watch this sheet: type its code to keep score on it.");
    case "stale/ahead": return T("An entry before this one was not filed, so this one was not filed either.");
    case "storage/full": return T("This phone's storage is full: the entry was not kept. Delete old sheets from this phone and try again.");
    default: return reason(err.code) === T("Not available now.") && err.message ? err.message : reason(err.code);
  }
}

// --- opening and closing ----------------------------------------------------------------------------
export function init(options) {
  engine = options.engine; go = options.go;
  engine.onChange(() => { if (S) recompute(); });
  onChange((id, other) => { if (other && S && id === S.id) reload().then(recompute); else if (id === null && S) draw(); });
}

// What the page's address brings (and leaves it at once, so no history or screenshot keeps it): a write
// token (#token=, with its #code=: a sheet made by the form without the page's script, or joined on the
// start page), a code to join with (#join=: a shared link). Kept for the sheet until it is open.
let carried = { id: null };
function fromAddress(id) {
  const found = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
  if (location.hash) history.replaceState(history.state, "", location.pathname + location.search);
  if (carried.id !== id) carried = { id };
  Object.assign(carried, found);
  return carried;
}

// Open a sheet: the phone's copy (the server's view, when newer, moves its record on). Resolves whether
// the phone has it (else the caller asks the server).
export async function open(id, serverView) {
  close();
  const mine = ++opened;
  const address = fromAddress(id);
  let s = await loadSheet(id);
  if (mine !== opened) return true;  // another sheet was opened meanwhile
  if (serverView && (!s || !s.base || serverView.v >= s.base.v)) {
    s = s || { id, created: Date.now(), queue: [], refile: [] };
    Object.assign(s, { id, name: serverView.name, synced: true, base: { v: serverView.v, record: serverView.record }, view: serverView });
  }
  if (s && address.token) { s.token = address.token; s.code = address.code || s.code; }
  if (!s) { shown = null; renderMissing(); return false; }
  carried = { id: null };
  S = s; keepOnScreen(id);
  clearPad(); fixing = null; rolloff = null; tab = null; followed = null; invalid = {}; notice = null;
  ({ view: shown, trusted } = firstView(S));
  document.body.classList.add("keeper-sheet");
  $("ks").hidden = false; $("home").hidden = true; $("keep-home").hidden = false;
  if (!sheetUI) sheetUI = new GameSheet($("sheet"), { onAction: (box) => chooseBox(box) });
  if (!strip) strip = new PlayerStrip($("strip"), { onTab: (i) => { tab = i; draw(); } });
  wire();
  await saveSheet(S, trusted ? shown : null);
  recompute();
  follow();
  const code = address.join || (!S.token && S.synced && S.code ? S.code : null);  // a sheet kept before write tokens: its code again
  if (code && online()) joinWith(code, !address.join); else flush();
  return true;
}

export function close() {
  if (socket) { socket.close(); socket = null; }
  clearTimeout(retryTimer);
  live = false; S = null; shown = null; drawer = null; trusted = false;
  keepOnScreen(null);
  useLabels(null);
  document.body.classList.remove("keeper-sheet");
}

// The view to draw before the engine answers: its last view of this very record and queue, else the
// server's of a record with nothing queued; else the last one there is, not to be written anywhere.
const lastKey = (s) => `${s.base ? s.base.v : 0}|${s.queue.map((e) => e.id).join(",")}`;
function firstView(s) {
  if (s.last && s.last.key === lastKey(s)) return { view: s.last.view, trusted: true };
  if (!s.queue.length && s.view && s.base && s.view.v === s.base.v) return { view: s.view, trusted: true };
  return { view: (s.last && s.last.view) || s.view || null, trusted: false };
}

// The sheet's queue, entries to file again, record and token as stored (another tab may have changed them).
async function reload() {
  if (!S) return;
  const fresh = await loadSheet(S.id);
  if (!fresh || !S || fresh.id !== S.id) return;
  S.queue = fresh.queue; S.refile = fresh.refile;
  if (fresh.base && (!S.base || fresh.base.v > S.base.v)) { S.base = fresh.base; S.view = fresh.view; }
  if (fresh.token !== undefined && (S.token === undefined || fresh.token)) S.token = fresh.token;
  S.code = fresh.code || S.code; S.synced = S.synced || fresh.synced;
}

// Join with the sheet's code: a write token for this phone. `quiet`: a sheet kept before write tokens
// joining again by itself (no message unless it fails).
async function joinWith(code, quiet = false) {
  let data = null, r = null;
  try {
    r = await fetch("/api/keep/join", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code }) });
    data = await r.json().catch(() => null);
  } catch { data = null; }
  if (!S) return;
  if (r && r.ok && data && data.id === S.id) {
    S.token = data.token; S.code = data.code;
    await saveSheet(S, trusted ? shown : null);
    if (!quiet) toast(T("This phone can now keep score on this sheet."));
    reconnect();
  } else if (r && r.ok && data) notice = { code: "join/other", text: T("That code belongs to another sheet.") };
  else if (data && data.code) notice = { code: data.code, text: refusalText(data) };
  else if (!quiet) notice = { code: "join/offline", text: T("Joining a shared sheet needs the network.") };
  draw();
  flush();
}

function renderMissing() {
  document.body.classList.remove("keeper-sheet");
  $("ks").hidden = true; $("home").hidden = false;
  const e = $("home-error"); e.hidden = false; e.textContent = reason("sheet/unknown");
}

// Row names as the ruleset's players say them (docs/rules.md §10): a family may name a row its own way.
const baseLabels = boot.labels;
function useLabels(rules) {
  const family = rules && (boot.family_labels || {})[rules.preset || rules.id];
  if (family || !rules) { boot.labels = family || baseLabels; return; }
  // house rules: their rows' and columns' own labels as the file writes them, an unnamed id as words
  const words = (id) => { const t = String(id).replace(/_/g, " ").trim(); return t.charAt(0).toUpperCase() + t.slice(1); };
  const out = { rows: { ...baseLabels.rows }, rows_short: { ...baseLabels.rows_short },
                columns: { ...baseLabels.columns }, columns_short: { ...baseLabels.columns_short } };
  for (const r of rules.rows || []) {
    if (r.label) { out.rows[r.id] = r.label; out.rows_short[r.id] = r.short || r.label; }
    else if (!out.rows[r.id]) { out.rows[r.id] = out.rows_short[r.id] = words(r.id); }
  }
  for (const c of rules.columns || []) {
    if (c.label) { out.columns[c.id] = out.columns_short[c.id] = c.label; }
    else if (!out.columns[c.id]) { out.columns[c.id] = out.columns_short[c.id] = words(c.id); }
  }
  boot.labels = out;
}

// --- the view: the phone's engine over the server's record and the queue --------------------------------
function sheetRef() { return { id: S.id, code: S.code || null, name: S.name, v: S.base.v, record: S.base.record }; }

async function recompute() {
  if (!S) return;
  const mine = ++seq;
  if (engine.ready && S.base) {
    const key = lastKey(S);
    const r = await engine.call("view", { sheet: sheetRef(), queue: S.queue });
    if (mine !== seq || !S) return;
    if (r.ok) { shown = r.view; results = r.results; trusted = true; S.last = { key, view: r.view }; }
  } else {
    const first = firstView(S);
    if (first.view) { shown = first.view; trusted = first.trusted; results = []; }
  }
  if (!shown) { draw(); return; }
  draw();
  refreshHints();
  await saveSheet(S, trusted ? shown : null);  // the list of sheets shows true numbers only
}

// The seat the next entry is for: the engine's (queue included), else the server's moved on by the queue,
// a turn at a time in the order the engine gives (`next_seat`).
function nextSeat() {
  if (!shown) return 0;
  if (engine.ready || !S.queue.length) return shown.current;
  return S.queue.filter(isTurn).reduce((seat) => shown.next_seat[seat], shown.current);
}
function filledOf(seat) {
  const p = shown.players[seat];
  if (engine.ready || !S.queue.length) return p.turns_done;
  return p.turns_done + S.queue.filter((e) => isTurn(e) && e.seat === seat).length;
}

// --- entries -------------------------------------------------------------------------------------
async function submit(entry) {
  notice = null; invalid = {};
  if (readOnly()) { refuse({ code: "auth/sheet-token" }); return false; }
  if (engine.ready) {  // checked by the phone's engine first: a refusal keeps the typed dice
    const r = await engine.call("view", { sheet: sheetRef(), queue: S.queue, entry });
    if (!r.ok) { refuse(r.error); return false; }
  }
  entry.id = newId(12);
  // stored after every entry any tab queued before it; null: no room, and nothing lost (the dice stay)
  if (!(await addEntry(S.id, entry, S.base.v))) { refuse({ code: "storage/full" }); return false; }
  await reload();
  await recompute();
  flush();
  return true;
}

function refuse(err) {
  if (err.code === "keeper/breaks-later") { invalid = {}; for (const x of err.invalid || []) invalid[x.turn] = reason(x.code); }
  notice = { ...err, text: refusalText(err) };
  say(notice.text);
  draw();
}

// The entry of the typed dice: for the player they were typed for (never for whoever plays now).
function entryFor(box) {
  const seat = padFor ? padFor.seat : nextSeat();
  const filled = padFor ? padFor.filled : filledOf(seat);
  if (zeroMode && !pad.length) return { kind: "scratch", seat, filled, box };
  if (pad.length !== nDice()) { refuse({ code: "input/dice", n: nDice() }); return null; }
  const e = { kind: "dice", seat, filled, dice: pad.slice(), roll: shown.rules.roll_matters ? roll : 1, box };
  if (zeroMode) e.strike = true;
  return e;
}

async function chooseBox(box) {
  const entry = entryFor(box);
  if (!entry) return;
  const keep = { pad: pad.slice(), roll, zeroMode, padFor };
  clearPad();
  const ok = await submit(entry);
  if (!ok) { ({ pad, roll, zeroMode, padFor } = keep); refreshHints(); draw(); }
  else {
    const w = engine.ready && shown && shown.history.length ? shown.history[shown.history.length - 1] : null;
    if (w) say(T("{name} scored {value} in {box}", { name: shown.players[w.player].name, value: w.written, box: named(w.box) }));
  }
}

async function undo() {
  notice = null; invalid = {};
  if (readOnly()) { refuse({ code: "auth/sheet-token" }); return; }
  clearPad();
  await reload();  // what every tab queued
  const last = S.queue[S.queue.length - 1];
  if (last) {  // not sent yet (and no tab is sending it): just forget it
    const forgot = await whileSending(S.id, async () => { await removeEntry(S.id, last.id); return true; });
    if (forgot === true) { await reload(); await recompute(); return; }
  }
  if (!shown || (!shown.history.length && !Object.keys(shown.rolloffs || {}).length)) return;
  await submit({ kind: "undo", count: 1 });  // after whatever is queued: it takes back the last of it
}

function clearPad() { pad = []; roll = 1; zeroMode = false; padFor = null; preview = null; zeros = null; }

function startFix(h) {
  if (readOnly()) { refuse({ code: "auth/sheet-token" }); return; }
  fixing = { ...h, choice: null }; fixOptions = null; rolloff = null; padFor = null;
  pad = (h.dice || []).slice(); roll = h.roll; zeroMode = !h.dice;
  tab = h.player; notice = null;
  closeDrawer();
  refreshHints(); draw();
  $("fix-box") && $("fix-box").focus();
}

function cancelFix() { fixing = null; fixOptions = null; pad = []; roll = 1; zeroMode = false; tab = nextSeat(); refreshHints(); draw(); }

async function saveFix() {
  if (!fixing) return;
  const box = $("fix-box") && $("fix-box").value;
  if (!box) { if (pad.length !== nDice() && !zeroMode) refuse({ code: "input/dice", n: nDice() }); return; }
  const entry = { kind: "fix", turn: fixing.n, box };
  if (!(zeroMode && !pad.length)) {
    if (pad.length !== nDice()) { refuse({ code: "input/dice", n: nDice() }); return; }
    entry.dice = pad.slice(); entry.roll = shown.rules.roll_matters ? roll : 1;
  }
  const ok = await submit(entry);  // refused: the correction stays open with the typed dice
  if (ok) { fixing = null; fixOptions = null; pad = []; roll = 1; zeroMode = false; tab = nextSeat(); followed = tab; refreshHints(); draw(); }
}

async function addRolloffDice() {
  if (!rolloff || pad.length !== shown.rules.rolloff_dice) return;
  const seat = rolloff.seats[Object.keys(rolloff.dice).length];
  rolloff.dice[String(seat)] = pad.slice(); pad = [];
  if (Object.keys(rolloff.dice).length < rolloff.seats.length) { draw(); return; }
  const entry = { kind: "rolloff", target: rolloff.target, rolloff: rolloff.dice };
  const kept = rolloff; rolloff = null;
  if (!(await submit(entry))) { rolloff = { ...kept, dice: {} }; draw(); }
}

// Whether the typed dice may be struck for 0 somewhere (the engine's preview says where).
function canStrike() { return pad.length === nDice() && !!preview && Object.values(preview).some((o) => o.strike); }

function addDie(v) {
  if (!shown || readOnly() || (shown.finished && !rolloff && !fixing)) return;
  const n = rolloff ? shown.rules.rolloff_dice : nDice();
  if (pad.length >= n) return;
  if (!fixing && !rolloff && !padFor) padFor = { seat: nextSeat(), filled: filledOf(nextSeat()) };  // the dice are this turn's
  pad.push(v); notice = null;
  if (!fixing && !rolloff && tab !== padFor.seat) tab = padFor.seat;  // the dice are this turn's player's
  if (rolloff && pad.length === n) { addRolloffDice(); return; }
  if (zeroMode && !fixing) zeroMode = false;  // dice typed: their scores; "0" again strikes where the engine allows
  refreshHints(); draw();
}
function removeDie(i) { pad.splice(i, 1); if (!pad.length && !zeroMode) padFor = null; refreshHints(); draw(); }

// --- what the engine says about the typed dice (preview, zeros, correction targets) -----------------------
async function ask(op, payload) {
  if (engine.ready) return engine.call(op, { sheet: sheetRef(), queue: S.queue, ...payload });
  if (!S.synced || S.queue.length || !online()) return null;  // the server knows another sheet than this phone shows
  const body = op === "fix_options" ? { turn: payload.turn, dice: payload.dice, roll: payload.roll }
    : op === "preview" ? { dice: payload.dice, roll: payload.roll } : { dice: null };
  try {
    const r = await fetch(`/api/keep/${S.id}/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    return r.ok ? { ok: true, ...data } : { ok: false, error: data };
  } catch { return null; }
}

async function refreshHints() {
  if (!shown || !S) return;
  const complete = pad.length === nDice();
  const base = `${S.base.v}|${S.queue.length}|${S.queue.length ? S.queue[S.queue.length - 1].id : ""}`;
  if (fixing) {
    const key = `fix|${base}|${fixing.n}|${zeroMode && !pad.length ? "0" : complete ? pad.join("") + roll : ""}`;
    if (key === previewKey) return;
    previewKey = key; fixOptions = null; renderFix();
    if (!(zeroMode && !pad.length) && !complete) return;
    const r = await ask("fix_options", { turn: fixing.n, dice: zeroMode && !pad.length ? null : pad.slice(), roll: shown.rules.roll_matters ? roll : 1 });
    if (previewKey !== key) return;
    fixOptions = r && r.ok ? r.boxes : null;
    renderFix();
    return;
  }
  if (complete && !rolloff) {
    const key = `p|${base}|${pad.join("")}|${roll}`;
    if (key !== previewKey) {
      previewKey = key; preview = null;
      const r = await ask("preview", { dice: pad.slice(), roll: shown.rules.roll_matters ? roll : 1 });
      if (previewKey !== key) return;
      preview = r && r.ok ? r.boxes : null;
      draw();
    }
  } else { previewKey = ""; preview = null; }
  if (zeroMode && !pad.length) {
    const key = `z|${base}`;
    if (key !== zerosKey) {
      zerosKey = key; zeros = null;
      const r = await ask("zero", {});
      if (zerosKey !== key) return;
      zeros = r && r.ok ? r.boxes : null;
      drawSheet();
    }
  }
}

// --- sync: the queue, a sheet started offline, the live socket ----------------------------------------
function payload(e) {
  const out = { id: e.id, v: e.v, kind: e.kind };
  for (const k of ["seat", "filled", "dice", "roll", "box", "strike", "turn", "count", "target", "rolloff"]) if (e[k] != null) out[k] = e[k];
  return out;
}

function applyBase(s, view) {  // the server's view of sheet s, when it is newer than what the phone has
  if (!s || !view || view.id !== s.id || view.v < s.base.v) return false;
  s.base = { v: view.v, record: view.record }; s.view = view; s.synced = true;
  return true;
}

function setBase(view) {
  if (!S || !view || view.id !== S.id || view.v < S.base.v) return false;
  if (inflight && view.v > S.base.v) { deferred = !deferred || view.v >= deferred.v ? view : deferred; return false; }
  return applyBase(S, view);
}

const post = (url, body) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

// A sheet started with no network: created on the server under the phone's id (again, harmlessly).
async function createOnServer(s) {
  const spec = s.spec || {};
  if (!s.token) { s.token = newId(24); await saveSheet(s); }  // made before write tokens: its own one now
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
async function push(s, open) {
  // the socket first, then the lock: a tab waiting for the server never keeps another from taking back its entry
  if (open && s.synced && s.queue.length && (!socket || !(await socket.opened()))) return "later";
  const out = await whileSending(s.id, () => pushNow(s, open));
  return out === "busy" ? "later" : out;
}

async function pushNow(s, open) {
  const still = () => !open || S === s;
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
  const sock = open ? socket : new SessionSocket(`/ws/keep/${s.id}`, { reconnect: false, hello: () => ({ tokens: [s.token] }), onView: (msg) => applyBase(s, msg.view) });
  if (!sock) return "later";
  if (!open) sock.connect();
  try {
    if (!(await sock.opened())) return "later";
    let sent = 0;
    while (s.queue.length) {
      if (!still()) return "stop";
      const e = s.queue[0];
      if (open) inflight = e;
      if (sent++ >= PACE_AFTER) await sleep(PACE_MS);  // a long queue stays under the socket's rate limit
      const answer = await sock.request({ type: "entry", entry: payload(e) }, e.id);
      if (open) inflight = null;
      if (!still()) return "stop";
      if (!answer.ok && !answer.lost && answer.error.code === "rate/limited") { await sleep(1500); continue; }
      if (answer.ok) {
        await removeEntry(s.id, e.id);
        s.queue.shift();
        const view = answer.msg.view;  // an `ack` (applied before) has none: the server's view is fetched
        if (open) { if (view) setBase(view); else await refreshFromServer(); if (deferred) { setBase(deferred); deferred = null; } }
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
      if (open) { if (deferred) { setBase(deferred); deferred = null; } await refreshFromServer(); }
      await saveSheet(s);
      if (!s.token) return "watch";
    }
  } finally { if (!open) sock.close(); }
  return "done";
}

// The server takes a burst of 40 messages a socket, then 20 a second: a queue kept offline is sent within that.
const PACE_AFTER = 30, PACE_MS = 60;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function flush() {
  if (flushing || !S || !online()) return;
  flushing = true;
  const s = S;
  let result = "done";
  try { result = await push(s, true); }
  finally {
    flushing = false; inflight = null;
    if (S === s) {
      if (result === "later") retryLater(); else retryDelay = 1500;
      await reload();
      await recompute();
    }
  }
}

// The sheets kept on this phone with entries not yet sent (or not yet on the server), sent now
// (the start page, the network back); the sheet on screen sends its own.
let syncing = false;
export async function syncAll() {
  if (syncing || !online()) return;
  syncing = true;
  try {
    for (const x of await listSheets()) {
      if (!(x.pending > 0 || !x.synced) || (S && S.id === x.id)) continue;
      const s = await loadSheet(x.id);
      if (!s || s.orphan || (!s.queue.length && s.synced)) continue;
      if (!s.token && s.synced && s.code && !(await tokenFor(s))) continue;  // kept before write tokens
      if ((await push(s, false)) === "later") break;
    }
  } finally { syncing = false; window.dispatchEvent(new Event("keeper-synced")); }
}
window.addEventListener("online", () => { syncAll(); });

// A write token for a sheet kept before write tokens, from the code it kept (none: the code was renewed).
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

function retryLater() { clearTimeout(retryTimer); retryTimer = setTimeout(flush, retryDelay); retryDelay = Math.min(retryDelay * 2, 15000); draw(); }

async function refreshFromServer() {
  if (!S || !S.synced) return;
  try { const r = await fetch(`/api/keep/${S.id}`); if (r.ok) setBase(await r.json()); } catch { /* offline */ }
}

// Follow the sheet on screen live: its socket (entries go out on it, every phone's entries come in).
function follow() {
  if (!S || !S.synced || socket) return;
  const sid = S.id;
  socket = new SessionSocket(`/ws/keep/${sid}`, {
    hello: () => ({ tokens: S && S.token ? [S.token] : [] }),
    onWelcome: () => { live = true; flush(); renderStatus(); },
    onStatus: (up) => { if (!up) { live = false; renderStatus(); } },
    onView: (msg) => { if (S && S.id === sid && setBase(msg.view)) recompute(); },
  });
  socket.version = S.base.v;
  socket.connect();
}

// The socket again, from hello: after an offline spell (the old one may look open and be dead) and when the
// phone's token changed. The badge says "Live" only once the new one is welcomed.
function reconnect() {
  if (socket) { socket.close(); socket = null; }
  live = false;
  follow();
  renderStatus();
}
window.addEventListener("online", () => { if (S) { retryDelay = 1500; reconnect(); flush(); } });
window.addEventListener("offline", () => { if (S) { live = false; renderStatus(); } });

// --- drawing ---------------------------------------------------------------------------------------
function draw() {
  if (!S) return;
  const b = document.body.dataset;
  b.pending = String(S.queue.length);
  b.refile = String(S.refile.length);
  b.sheet = S.id;
  if (!shown) { setText($("status"), T("Loading the sheet…")); return; }
  useLabels(shown.rules);
  b.v = String(shown.v);
  b.entries = String(shown.history.length);
  b.finished = shown.finished ? "1" : "0";
  b.local = engine.ready && S.queue.length ? "1" : "0";
  b.trusted = trusted ? "1" : "0";
  b.readonly = readOnly() ? "1" : "0";
  b.current = String(nextSeat());
  setText($("head-title"), S.name);
  document.title = `yambak — ${S.name}`;
  const next = nextSeat();
  padMoved(next);
  if (!fixing && next !== followed) tab = next;  // the sheet follows the player to enter
  followed = next;
  if (tab == null || tab >= shown.players.length) tab = next;
  const due = rolloffDue();
  if (due && !rolloff) rolloff = { target: due[0], seats: due[1], dice: {} };
  if (!due) rolloff = null;
  drawStrip(); renderNotes(); drawSheet(); renderPad(); renderEnd(); renderStatus(); renderSide();
  if (drawer) renderDrawer();
  b.ready = "1";
}

// Dice typed for a player whose turn was entered meanwhile on another phone (or tab): never filed for
// whoever plays now. They are cleared, and the message says whose they were.
function padMoved(next) {
  if (!padFor || fixing || rolloff || !(pad.length || zeroMode)) return;
  if (next === padFor.seat && filledOf(padFor.seat) === padFor.filled) return;
  const p = shown.players[padFor.seat];
  const args = { name: p ? p.name : "", dice: pad.join(" ") };
  const text = pad.length ? T("{name}'s turn was entered on another phone: the dice typed for {name} ({dice}) were cleared.", args)
    : T("{name}'s turn was entered on another phone.", args);
  notice = { code: "pad/moved", text };
  say(text);
  clearPad();
}

function rolloffDue() {
  if (!shown || !shown.finished || !shown.rolloff_due) return null;
  const first = Object.entries(shown.rolloff_due)[0];
  return first || null;
}

function drawStrip() {
  const next = nextSeat();
  strip.render(shown, { tab, toAct: (p) => p.seat === next });
}

function renderStatus() {
  if (!S) return;
  const badge = $("sync");
  const waiting = S.queue.length;
  let text, cls;
  if (S.orphan) { text = T("Kept on this phone only"); cls = "warn"; }
  else if (!online()) { text = waiting ? T("Offline · not sent yet: {n}", { n: waiting }) : T("Offline"); cls = "off"; }
  else if (readOnly() && S.synced) { text = live ? T("Watching") : T("Connecting…"); cls = live ? "ok" : "busy"; }
  else if (waiting || !S.synced) { text = T("Sending…"); cls = "busy"; }
  else { text = live ? T("Live") : T("Connecting…"); cls = live ? "ok" : "busy"; }
  setText(badge, text);
  setAttr(badge, "class", `sync ${cls}`);
  setAttr(badge, "title", engine.ready ? T("Scores computed on this phone") : engine.failed ? T("Scores computed by the server") : T("Preparing this phone's engine…"));
}

function renderNotes() {
  const box = $("notes");
  const parts = [];
  if (notice) parts.push(el("p", { class: "note error", role: "alert", "data-code": notice.code }, notice.text));
  if (storage.pruned) {
    parts.push(el("p", { class: "note warn", "data-code": "storage/pruned" },
      N("This phone's storage was full: {n} sheet kept on the server was removed from this phone.", "This phone's storage was full: {n} sheets kept on the server were removed from this phone.", storage.pruned)));
  }
  S.refile.forEach((x, i) => {
    const e = x.entry;
    const who = shown.players[e.seat] ? shown.players[e.seat].name : "";
    const what = e.kind === "dice" ? `${who} · ${named(e.box)} · ${e.dice.join(" ")}` : e.kind === "scratch" ? `${who} · ${named(e.box)} · 0`
      : e.kind === "fix" ? T("Correction of entry {n}", { n: e.turn }) : e.kind === "undo" ? T("Undo") : T("Roll-off");
    const line = el("div", { class: "note refile", "data-refile": String(i), "data-id": e.id });
    line.append(el("p", {}, `${T("Not filed")}: ${what}. ${refusalText(x.error)}`));
    const actions = el("div", { class: "actions" });
    const again = readOnly() ? null : againOption(e);
    if (again === "again") actions.append(el("button", { type: "button", class: "primary again", onclick: () => fileAgain(i) }, T("File it again")));
    else if (again) {
      actions.append(el("button", { type: "button", class: "primary correct", onclick: () => fileAgain(i, again) },
        T("Put it in entry {n} of {name}", { n: again, name: who })));
    }
    actions.append(el("button", { type: "button", class: "discard", onclick: () => discard(i) }, T("Discard")));
    line.append(actions);
    parts.push(line);
  });
  if (readOnly() && S.synced) parts.push(watchNote());
  if (S.orphan && S.orphan !== "sheet/taken") parts.push(el("p", { class: "note warn" }, T("The server does not know this sheet: it is kept on this phone.")));
  const key = JSON.stringify([notice, S.refile.map((x) => x.entry.id), S.orphan, shown.v, shown.history.length, readOnly(), storage.pruned, nextSeat()]);
  if (box.dataset.key !== key) { box.dataset.key = key; box.replaceChildren(...parts); }
  box.hidden = !parts.length;
}

// A watcher's note: this phone follows the sheet; with the sheet's code it keeps score on it too.
function watchNote() {
  const form = el("form", { class: "note watch", id: "watch" });
  form.append(el("p", {}, T("You are watching this sheet. To keep score on this phone too, type its code.")));
  const input = el("input", { name: "code", maxlength: "12", autocomplete: "off", autocapitalize: "characters", placeholder: "ABC234", "aria-label": T("Code") });
  form.append(input, el("button", { type: "submit", class: "primary" }, T("Join")));
  form.addEventListener("submit", (e) => { e.preventDefault(); notice = null; joinWith(input.value.replace(/\s|-/g, "").slice(0, 12)); });
  return form;
}

// What a refused entry may become: "again" when the very turn it was typed for is still open (the same
// player, the same number of boxes filled), else the number of the entry that filed that player's turn
// meanwhile (the dice can correct it); null: nothing but discarding it.
function againOption(e) {
  if (e.kind === "fix") return shown.history[e.turn - 1] ? "again" : null;
  if (!isTurn(e)) return null;
  if (!shown.finished && e.seat === nextSeat() && (e.filled == null || e.filled === filledOf(e.seat))) return "again";
  if (e.filled == null) return null;
  const h = shown.history.filter((x) => x.player === e.seat)[e.filled];
  return h ? h.n : null;
}

async function discard(i) {
  const x = S.refile[i];
  if (!x) return;
  await removeEntry(S.id, x.entry.id);
  await reload();
  draw();
}

// A refused entry back on the pad: for its own player's open turn, or as the correction of the entry
// that filed that turn; never for whoever plays now.
async function fileAgain(i, n = null) {
  const x = S.refile[i];
  if (!x) return;
  const e = x.entry;
  const h = e.kind === "fix" ? shown.history[e.turn - 1] : n ? shown.history[n - 1] : null;
  await removeEntry(S.id, e.id);
  await reload();
  if (h) { startFix(h); pad = (e.dice || []).slice(); roll = e.roll || 1; zeroMode = !e.dice; refreshHints(); draw(); return; }
  clearPad();
  pad = (e.dice || []).slice(); roll = e.roll || 1; zeroMode = !e.dice || !!e.strike;
  padFor = { seat: e.seat, filled: filledOf(e.seat) };
  notice = { code: "refile", text: T("The dice are back on the pad: tap the box for {name}.", { name: shown.players[e.seat].name }) };
  refreshHints(); draw();
}

// The sheet: the shared component (one column per player on one-column sheets, six players at most,
// else the chosen player's columns); an open box is what the engine says of the dice typed.
function drawSheet() {
  if (!shown || !sheetUI) return;
  const rules = shown.rules;
  const next = nextSeat();
  const pending = new Set(S.queue.filter(isTurn).map((e) => `${e.seat}|${e.box}`));
  const enterable = !shown.finished && !fixing && !rolloff;
  const complete = pad.length === nDice();
  sheetUI.render(shown, {
    tab, grand: $("grand"), legendHost: $("legend"), winnerRow: true,
    headText: (id) => headText(id, rules.columns.length),
    columnClass: (c, perPlayer) => {
      const won = shown.finished && shown.column_winners && !perPlayer && (shown.column_winners[c.col] || []).includes(c.seat) && rules.match === "column_points";
      return [perPlayer && c.seat === next && !shown.finished ? "me-col" : "", won ? "win" : ""].filter(Boolean).join(" ");
    },
    cellClass: (c, box, cell) => (cell && cell.score != null && pending.has(`${c.seat}|${box}`) ? "pending" : ""),
    openCell: (c, box, name, p) => typedCell(c, box, name, p, { next, enterable, complete }),
  });
  fitLabels();
  if (headPending) { headPending = false; requestAnimationFrame(() => drawSheet()); }  // measured once drawn
}

// An open box: what the typed dice (or a 0) would do there, as the engine's preview says.
function typedCell(c, box, name, p, { next, enterable, complete }) {
  const data = { action: null };
  if (readOnly()) return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why: refusalText({ code: "auth/sheet-token" }), data };
  if (!enterable || c.seat !== next) {
    const why = fixing ? T("Choose the box of the correction below the dice.") : T("It is {name}'s turn now.", { name: shown.players[next].name });
    return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why, data };
  }
  if (zeroMode && !pad.length) {
    const o = zeros && zeros[box];
    if (o && o.legal) return { text: o.strike ? "✗" : "0", cls: o.strike ? "strike" : "legal zero", label: T("Score 0 in {box}", { box: name }), box, action: box, data: { action: "zero" } };
    return { text: "", cls: "blocked", disabled: true, label: colon(name, o ? reason(o.code) : C("box", "open")), box, why: o ? reason(o.code) : T("Not available now."), data };
  }
  if (complete) {
    const o = preview && preview[box];
    if (o && o.legal) {
      if (zeroMode && o.strike) return { text: "✗", cls: "strike", label: T("Strike {box} for 0", { box: name }), box, action: box, data: { action: "strike" } };
      return playableCell(box, name, o, { action: box, data: { action: "score" } });
    }
    if (o) return { text: "", cls: "blocked", disabled: true, label: colon(name, reason(o.code)), box, why: reason(o.code), data };
    if (!engine.ready && !engine.failed) return { text: "…", cls: "blocked", disabled: true, label: name, box, why: T("Preparing this phone's engine…"), data };
    // no preview (the engine is not running and the server cannot be asked): any box the rules allow now
  }
  const fillable = new Set((p.fillable || {})[String(shown.rules.roll_matters ? roll : 1)] || []);
  if (fillable.has(box)) {
    return complete && !preview ? { text: "+", cls: "legal", label: `${name}`, box, action: box, data: { action: "score" } }
      : { text: "", cls: "open", label: colon(name, C("box", "open")), box, why: T("Type the dice first, then tap the box."), data: { action: "open" } };
  }
  return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why: T("That box cannot be filled after this roll."), data };
}

// Column names: the full name where it fits the column's width, else the short form.
const headFits = new Map();
let headPending = false;
let measure = null;
function headText(id, n) {
  const key = `${id}|${n}|${innerWidth}`;
  if (!headFits.has(key)) {
    const th = $("sheet").querySelector("thead th[tabindex]");
    if (!th || !th.clientWidth) { headPending = true; return colShort(id); }
    measure = measure || document.createElement("canvas").getContext("2d");
    const style = getComputedStyle(th);
    measure.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = th.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
    headFits.set(key, measure.measureText(colLabel(id)).width <= room);
  }
  return headFits.get(key) ? colLabel(id) : colShort(id);
}

// Row names: the full name where it fits on two lines, else the short form (per language and width).
let labelsKey = "";
function fitLabels() {
  const heads = [...$("sheet").querySelectorAll("tbody th")];
  const key = `${sheetUI.shape}|${innerWidth}|${boot.lang}`;
  if (key === labelsKey || !heads.length || !heads[0].offsetWidth) return;
  labelsKey = key;
  for (const th of heads) {
    th.classList.remove("use-short");
    const long = th.querySelector(".long");
    if (!long || !long.textContent) continue;
    if (th.scrollWidth > th.clientWidth + 1 || long.getClientRects().length > 2) th.classList.add("use-short");
  }
}
window.addEventListener("resize", () => { if (S && shown) { labelsKey = ""; fitLabels(); } });

function renderPad() {
  const finished = shown.finished && !rolloff && !fixing;
  $("pad").hidden = finished || readOnly();
  if (finished || readOnly()) return;
  const n = rolloff ? shown.rules.rolloff_dice : nDice();
  const next = nextSeat();
  let status;
  if (rolloff) {
    const seat = rolloff.seats[Object.keys(rolloff.dice).length];
    const where = rolloff.target === "total" ? T("Total") : colLabel(rolloff.target);
    status = T("Roll-off for {column}: {name} rolls {n} dice", { column: where, name: shown.players[seat].name, n });
  } else if (fixing) status = T("Correcting entry {n} of {name}", { n: fixing.n, name: shown.players[fixing.player].name });
  else if (zeroMode && !pad.length) status = T("{name}: tap the box to write 0", { name: shown.players[next].name });
  else if (pad.length === nDice()) status = T("{name}: tap a box", { name: shown.players[next].name });
  else status = T("{name}: type the dice, then tap a box", { name: shown.players[next].name });
  setText($("status"), status);
  $("pad").classList.toggle("fixing", !!fixing);
  $("pad").classList.toggle("rolloff", !!rolloff);
  // the typed dice
  const slots = $("slots");
  while (slots.children.length < n) {
    const i = slots.children.length;
    const b = el("button", { type: "button", class: "die slot blank", "data-pos": String(i) });
    b.append(dieSvg(0));
    b.onclick = () => { if (pad[i]) removeDie(i); };
    slots.append(b);
  }
  while (slots.children.length > n) slots.lastChild.remove();
  [...slots.children].forEach((b, i) => {
    const v = pad[i] || 0;
    if (b.dataset.value !== String(v)) { b.replaceChildren(dieSvg(v)); b.dataset.value = String(v); }
    b.classList.toggle("blank", !v);
    setAttr(b, "aria-label", v ? T("Die {n}: {value}", { n: i + 1, value: v }) + ` · ${T("tap to take it back")}` : T("Die {n}", { n: i + 1 }));
  });
  const back = $("backspace");
  back.disabled = !pad.length;
  setText(back, "⌫");
  setAttr(back, "aria-label", T("Take back the last die"));
  const faces = $("faces");
  if (!faces.childElementCount) {
    for (let v = 1; v <= 6; v++) {
      const b = el("button", { type: "button", class: "face-btn", "data-face": String(v), "aria-label": String(v) });
      b.append(dieSvg(v));
      b.onclick = () => addDie(v);
      faces.append(b);
    }
  }
  const full = pad.length >= n;
  for (const b of faces.children) b.disabled = full;
  // the roll number, where the rules care
  const rolls = $("rolls");
  const showRolls = shown.rules.roll_matters && !rolloff;
  rolls.hidden = !showRolls;
  if (showRolls) {
    // saved rolls (Maxi Yatzy): the player to enter may have rolled more often than a turn's rolls
    const seatNow = shown.players[nextSeat()];
    const most = shown.rules.rolls_per_turn + ((seatNow && seatNow.saved_rolls) || 0);
    if (roll > most) roll = most;
    if (rolls.childElementCount !== most + 1) {
      rolls.replaceChildren(el("span", { class: "muted lbl" }, T("Roll")));
      for (let r = 1; r <= most; r++) {
        rolls.append(el("button", { type: "button", role: "radio", class: "roll-n", "data-roll": String(r), "aria-label": T("Roll number") + ` ${r}`,
          onclick: () => { roll = r; refreshHints(); draw(); } }, String(r)));
      }
    }
    for (const b of rolls.querySelectorAll("button")) {
      const on = Number(b.dataset.roll) === roll;
      b.classList.toggle("on", on); setAttr(b, "aria-checked", String(on));
    }
  }
  // tools
  const undoBtn = $("undo");
  setText(undoBtn, T("Undo"));
  setAttr(undoBtn, "aria-label", T("Undo last entry"));
  undoBtn.disabled = !S.queue.length && !shown.history.length || !!fixing || readOnly();
  const zero = $("zero");
  setText(zero, canStrike() ? `${T("Zero")} / ✗` : T("Zero"));  // a word: a lone "0" reads like a count
  setAttr(zero, "title", T("Just the score (0)"));  // its name is the word it shows; this describes it
  setAttr(zero, "aria-pressed", String(zeroMode));
  zero.hidden = !!rolloff;
  setText($("open-history"), T("History"));
  setText($("open-share"), T("Share"));
  renderFix();
}

function renderFix() {
  const box = $("fix");
  box.hidden = !fixing;
  if (!fixing) { box.replaceChildren(); delete box.dataset.key; return; }
  const complete = pad.length === nDice() || (zeroMode && !pad.length);
  const options = fixOptions ? Object.entries(fixOptions).filter(([, o]) => o.legal) : [];
  const key = JSON.stringify([fixing.n, complete, options]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const previous = fixing.choice || fixing.box;  // the entry's own box until another is chosen
  const sel = el("select", { id: "fix-box", "aria-label": T("Box"), onchange: () => { fixing.choice = sel.value; } });
  if (!complete) sel.append(el("option", { value: "" }, T("Type the dice first, then tap the box.")));
  else if (!fixOptions) sel.append(el("option", { value: "" }, engine.failed && !online() ? T("Not available now.") : "…"));
  else if (!options.length) sel.append(el("option", { value: "" }, T("No box can take this entry.")));
  for (const [b, o] of options) sel.append(el("option", { value: b, selected: b === previous }, `${named(b)} — ${o.written}`));
  sel.disabled = !options.length;
  const label = el("label", { class: "fix-label" }, T("Box") + " ");
  label.append(sel);
  box.replaceChildren(label,
    el("button", { type: "button", id: "save-fix", class: "primary", disabled: !options.length, onclick: saveFix }, T("Save correction")),
    el("button", { type: "button", id: "cancel-fix", class: "ghost", onclick: cancelFix }, T("Cancel")));
}

// After the end: who won and what decided it, each column's winner, undo of the last entry, a new sheet
// with the same players, sharing.
function renderEnd() {
  const end = $("end");
  const show = shown.finished && !rolloff && !fixing;
  end.hidden = !show;
  if (!show) { delete end.dataset.key; return; }
  const key = `${S.id}|${shown.v}|${S.queue.length}|${JSON.stringify(shown.winners)}|${readOnly()}|${boot.lang}`;
  if (end.dataset.key === key) return;
  end.dataset.key = key;
  const [head, why] = headline();
  const parts = [el("h2", { id: "end-title" }, T("Game over")), el("p", { class: "winner" }, head)];
  if (why) parts.push(el("p", { class: "why" }, why));
  const actions = el("div", { class: "actions" });
  actions.append(el("button", { type: "button", class: "primary", id: "again", onclick: sameAgain }, T("New sheet, same players")));
  if (!readOnly()) actions.append(el("button", { type: "button", id: "end-undo", onclick: () => undo() }, T("Undo last entry")));
  actions.append(
    el("button", { type: "button", id: "share-picture", onclick: sharePicture }, T("Share as a picture")),
    el("button", { type: "button", id: "share-text", onclick: shareText }, T("Share as text")),
    el("button", { type: "button", id: "end-history", onclick: () => openDrawer("history") }, T("History")),
    el("button", { type: "button", id: "end-share", onclick: () => openDrawer("share") }, T("Share")),
  );
  parts.push(actions);
  end.replaceChildren(...parts);
}

// The end's headline and what decided it (the engine's `decided`: points, match points, a roll-off, the
// total after level match points, or a shared win): never one winner where two are level.
function headline() {
  const d = shown.decided || { by: (shown.winners || []).length > 1 ? "shared" : "points", next: null };
  const won = (shown.winners || [0]).map((s) => shown.players[s]);
  const top = won[0], other = d.next != null ? shown.players[d.next] : null;
  const args = { name: top.name, total: top.total, points: points(top.match_points ?? 0),
    other: other ? other.total : "", other_points: other ? points(other.match_points ?? 0) : "" };
  switch (d.by) {
    case "alone": return [T("Final score: {total}", args), ""];
    case "shared": return [T("{names} share the win", { names: won.map((p) => p.name).join(", ") }),
      top.match_points != null ? T("Level on match points ({points}) and on the total ({total}).", args) : T("Level on points: {total} each.", args)];
    case "match_points": return [T("{name} wins", args), T("On match points: {points} to {other_points}.", args)];
    case "rolloff": return [T("{name} wins", args), T("On match points, after a roll-off: {points} to {other_points}.", args)];
    case "total": return [T("{name} wins", args), T("Level on match points ({points}): the higher total wins, {total} to {other}.", args)];
    default: return [T("{name} wins", args), other ? T("On points: {total} to {other}.", args) : ""];
  }
}

function renderSide() {
  const side = $("side");
  if (getComputedStyle(side).display === "none") return;
  const key = `${shown.v}|${S.queue.length}|${JSON.stringify(invalid)}`;
  if (side.dataset.key === key) return;
  side.dataset.key = key;
  side.replaceChildren(el("h2", {}, T("History")), historyList());
}

// --- the drawer: history (tap an entry to correct it), sharing -------------------------------------------
function openDrawer(what) { drawer = what; $("drawer").hidden = false; renderDrawer(); $("drawer-close").focus(); if (what === "share") refreshCode(); }
function closeDrawer() { drawer = null; $("drawer").hidden = true; }

function renderDrawer() {
  setText($("drawer-title"), drawer === "history" ? T("History") : T("Share this sheet"));
  setText($("drawer-close"), "×");
  setAttr($("drawer-close"), "aria-label", T("Close"));
  $("drawer-body").replaceChildren(drawer === "history" ? historyList() : sharePanel());
}

function historyText(who, box, dice, r, announced = false) {
  const rollText = shown.rules.roll_matters ? ` · ${T("roll {n}", { n: r })}` : "";
  return `${who} · ${named(box)}${announced ? ` · ${T("announced")}` : ""}${dice ? " · " + dice.join(" ") : ""}${rollText}`;
}

function historyList() {
  const ol = el("ol", { class: "history", reversed: true });
  const queued = S.queue.map((e, i) => {
    let text;
    if (e.kind === "undo") text = T("Undo last entry");
    else if (e.kind === "fix") text = T("Correction of entry {n}", { n: e.turn }) + ` · ${named(e.box)} · ${e.dice ? e.dice.join(" ") : "0"}`;
    else if (e.kind === "rolloff") text = T("Roll-off");
    else text = historyText(shown.players[e.seat] ? shown.players[e.seat].name : "", e.box, e.kind === "dice" ? e.dice : null, e.roll || 1);
    const refused = results[i] && !results[i].ok;
    return el("li", { class: "pending" + (refused ? " invalid" : ""), "data-id": e.id }, `${text} · ${T("not sent yet")}`);
  });
  for (const li of queued.reverse()) ol.append(li);
  for (const [target, rounds] of Object.entries(shown.rolloffs || {}).reverse()) {
    const where = target === "total" ? T("Total") : colLabel(target);
    for (const r of rounds.slice().reverse()) {
      ol.append(el("li", { class: "rolloff" }, colon(T("Roll-off for {column}", { column: where }), Object.entries(r).map(([s, d]) => `${shown.players[s].name} ${d.dice.join("")} (${d.pips})`).join(" · "))));
    }
  }
  for (const h of shown.history.slice().reverse()) {
    const li = el("li", { value: String(h.n), "data-n": String(h.n), class: [invalid[h.n] ? "invalid" : "", h.announced ? "was-announced" : ""].filter(Boolean).join(" ") });
    const who = shown.players[h.player].name;
    const b = el("button", { type: "button", class: "entry", onclick: () => startFix(h) });
    const what = el("span", { class: "what" });
    what.append(el("b", {}, who), ` ${named(h.box)}`);
    const how = el("span", { class: "how" });
    if (h.dice) how.append(miniDice(h.dice));
    else how.append(el("span", {}, h.strike ? T("struck") : "—"));
    if (shown.rules.roll_matters) how.append(el("span", {}, ` ${T("roll {n}", { n: h.roll })}`));
    if (h.announced) how.append(el("span", { class: "announced" }, T("announced")));  // said at the table after roll 1
    b.append(el("span", { class: "n" }, `${h.n}.`), what, el("b", { class: "val" }, `${h.strike ? "✗ " : ""}${h.written}`), how);
    const label = historyText(who, h.box, h.dice, h.roll, h.announced) + ` = ${h.strike ? "✗ " : ""}${h.written}`;
    setAttr(b, "aria-label", T("Correct entry {n}", { n: h.n }) + `: ${label}`);
    li.append(b);
    if (invalid[h.n]) li.append(el("span", { class: "why" }, invalid[h.n]));
    ol.append(li);
  }
  return ol;
}

// Sharing: the code (its QR code and link: each phone that joins with it gets a write token), a new
// code (the old one's tokens stop writing), and the link to watch (the sheet's id: it only reads).
function sharePanel() {
  const box = el("div", { class: "share-panel" });
  if (S.token && S.code) {
    box.append(el("p", { class: "code-line" }, T("Code") + ": "), el("p", { class: "code", id: "code" }, S.code));
    box.append(el("p", { class: "muted" }, T("Other phones open the start page, choose Join and type the code, or scan:")));
    if (online()) {
      const qr = el("div", { id: "qr", class: "qr", role: "img", "aria-label": T("QR code of this sheet") });
      box.append(qr);
      drawQr(qr);
    }
    box.append(el("input", { readonly: true, value: `${location.origin}/k/${S.code}`, "aria-label": T("Link"), id: "join-link" }));
    if (online()) {
      box.append(el("button", { type: "button", id: "renew-code", onclick: renewCode }, T("New code")),
        el("p", { class: "muted small" }, T("A new code stops every phone that joined with this one from writing; share the new one with those who keep score.")));
    }
  } else if (S.token) box.append(el("p", { class: "muted" }, T("The code comes when this phone is online again.")));
  if (S.synced) {
    const watch = el("label", { class: "watch-link" }, T("Link to watch (read only)"));
    watch.append(el("input", { readonly: true, value: `${location.origin}/keep/${S.id}`, id: "watch-link" }));
    box.append(watch);
  }
  const actions = el("div", { class: "actions" });
  actions.append(el("button", { type: "button", onclick: downloadRecord }, T("Download the game record")));
  if (shown.finished) actions.append(el("button", { type: "button", onclick: sharePicture }, T("Share as a picture")), el("button", { type: "button", onclick: shareText }, T("Share as text")));
  box.append(actions);
  return box;
}

// The QR code of the join link: asked with the write token (the code is a key) and drawn in place.
async function drawQr(host) {
  try {
    const r = await fetch(`/keep/${S.id}/qr.svg`, { headers: auth() });
    if (r.status === 403) { await revoked(); return; }
    if (!r.ok) return;
    const doc = new DOMParser().parseFromString(await r.text(), "image/svg+xml");
    const svgEl = doc.documentElement;
    if (svgEl.nodeName.toLowerCase() !== "svg") return;
    svgEl.setAttribute("width", "180"); svgEl.setAttribute("height", "180"); svgEl.setAttribute("aria-hidden", "true");
    host.replaceChildren(document.importNode(svgEl, true));
  } catch { /* offline: the code and the link suffice */ }
}

// This phone's token stopped writing (another phone renewed the code): it watches until it joins again.
async function revoked() {
  if (!S || !S.token) return;
  S.token = null;
  await saveSheet(S);
  reconnect();
  draw();
}

async function renewCode() {
  if (!confirm(T("Phones that joined with the code {code} will no longer be able to write. Make a new code?", { code: S.code }))) return;
  try {
    const r = await fetch(`/api/keep/${S.id}/code`, { method: "POST", headers: auth() });
    const data = await r.json().catch(() => null);
    if (r.status === 403) { await revoked(); return; }
    if (!r.ok || !data) { toast(refusalText(data) || T("Not available now.")); return; }
    S.code = data.code;
    if (data.token) { S.token = data.token; reconnect(); }
    await saveSheet(S);
    toast(T("New code: {code}", { code: data.code }));
    if (drawer) renderDrawer();
  } catch { toast(T("Joining a shared sheet needs the network.")); }
}

// The code now (another phone may have renewed it), when the drawer opens on it.
async function refreshCode() {
  if (!S || !S.token || !S.synced || !online()) return;
  try {
    const r = await fetch(`/api/keep/${S.id}/code`, { headers: auth() });
    if (r.status === 403) { await revoked(); return; }
    const data = r.ok ? await r.json() : null;
    if (data && data.code && data.code !== S.code) { S.code = data.code; await saveSheet(S); if (drawer === "share") renderDrawer(); }
  } catch { /* offline */ }
}

function downloadRecord() {
  const blob = new Blob([JSON.stringify(shown.record, null, 1)], { type: "application/json" });
  save(blob, `yambak-${S.name.replace(/[^\p{L}\p{N}]+/gu, "-")}-${S.id.slice(0, 6)}.json`);
}

function save(blob, filename) {
  const a = el("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}

// --- results to share: text, and a picture drawn on a canvas ----------------------------------------------
function resultsText() {
  const rulesName = rulesTitle();
  const lines = [`${S.name} · ${rulesName}`];
  shown.ranking.forEach((s) => {  // the engine's standings, best first
    const p = shown.players[s];
    lines.push(`${shown.standings[s]}. ${p.name} ${p.total}${p.match_points != null ? ` (${N("{n} pt", "{n} pts", p.match_points)})` : ""}${(shown.winners || []).includes(s) ? " ★" : ""}`);
  });
  if (shown.rules.columns.length > 1 && shown.column_winners) {
    for (const c of shown.rules.columns) {
      lines.push(colon(colLabel(c.id), (shown.column_winners[c.id] || []).map((s) => shown.players[s].name).join(", ")));
    }
  }
  return lines.join("\n");
}

function rulesTitle() {
  const preset = (boot.presets || []).find((x) => x.id === shown.rules.id);
  return preset ? preset.name : shown.rules.name;
}

async function shareText() {
  const text = resultsText();
  try {
    if (navigator.share) { await navigator.share({ title: S.name, text }); return; }
  } catch { /* cancelled: copy instead */ }
  try { await navigator.clipboard.writeText(text); toast(T("Copied.")); } catch { save(new Blob([text], { type: "text/plain" }), `yambak-${S.id.slice(0, 6)}.txt`); }
}

function drawResults() {
  const order = shown.ranking;  // the engine's standings, best first
  const w = 1080, line = 84, h = 330 + order.length * line + (shown.rules.columns.length > 1 ? 70 : 0);
  const c = el("canvas", { width: String(w), height: String(h) });
  const g = c.getContext("2d");
  g.fillStyle = "#1d6b47"; g.fillRect(0, 0, w, h);
  g.fillStyle = "#ffffff"; g.font = "700 56px system-ui, sans-serif"; g.fillText(S.name, 60, 110);
  g.font = "400 36px system-ui, sans-serif"; g.fillStyle = "#d6efe0"; g.fillText(rulesTitle(), 60, 165);
  order.forEach((s, i) => {
    const p = shown.players[s], y = 250 + i * line;
    const won = (shown.winners || []).includes(s);
    g.fillStyle = won ? "#fde68a" : "rgba(255,255,255,.12)";
    g.fillRect(50, y - 58, w - 100, line - 12);
    g.fillStyle = won ? "#1c1e21" : "#ffffff";
    g.font = "700 44px system-ui, sans-serif"; g.fillText(`${shown.standings[s]}. ${p.name}`, 80, y);
    const score = `${p.total}${p.match_points != null ? `  ·  ${N("{n} pt", "{n} pts", p.match_points)}` : ""}`;
    g.textAlign = "right"; g.fillText(score, w - 80, y); g.textAlign = "left";
  });
  if (shown.rules.columns.length > 1 && shown.column_winners) {
    g.font = "400 30px system-ui, sans-serif"; g.fillStyle = "#d6efe0";
    const text = shown.rules.columns.map((col) => `${colShort(col.id)} ${(shown.column_winners[col.id] || []).map((s) => shown.players[s].name).join("/")}`).join(" · ");
    g.fillText(text.length > 70 ? text.slice(0, 69) + "…" : text, 60, h - 90);
  }
  g.font = "600 28px system-ui, sans-serif"; g.fillStyle = "#9fcdb1"; g.fillText("yambak", 60, h - 36);
  return c;
}

async function sharePicture() {
  const canvas = drawResults();
  const blob = await new Promise((res) => canvas.toBlob(res, "image/png"));
  if (!blob) return;
  const file = new File([blob], `yambak-${S.id.slice(0, 6)}.png`, { type: "image/png" });
  try {
    if (navigator.canShare && navigator.canShare({ files: [file] })) { await navigator.share({ files: [file], title: S.name, text: resultsText() }); return; }
  } catch { /* cancelled: save it instead */ }
  save(blob, file.name);
}

async function sameAgain() {
  const record = /** @type {any} */ (shown.record);  // a game record (docs/rules.md §11)
  const spec = S.spec || (typeof record.rules === "string" ? { preset: record.rules, options: {} }
    : record.rules.rows ? { rules: record.rules } : { preset: record.rules.preset, options: record.rules.options || {} });
  go.newSheet({ name: S.name, spec, players: record.players });
}

// --- keys and wiring --------------------------------------------------------------------------------
let wired = false;
function wire() {
  if (wired) return;
  wired = true;
  $("backspace").onclick = () => { if (pad.length) removeDie(pad.length - 1); };
  $("undo").onclick = () => undo();
  $("zero").onclick = () => {  // a 0 for the player whose turn it is, whichever sheet is shown
    zeroMode = !zeroMode;
    if (!fixing && !rolloff) {
      if (!padFor) padFor = { seat: nextSeat(), filled: filledOf(nextSeat()) };
      if (!zeroMode && !pad.length) padFor = null;
      tab = nextSeat();
    }
    if (zeroMode && !fixing && !canStrike()) pad = [];
    refreshHints(); draw();
  };
  $("open-history").onclick = () => openDrawer("history");
  $("open-share").onclick = () => openDrawer("share");
  $("drawer-close").onclick = () => closeDrawer();
  $("drawer").addEventListener("click", (e) => { if (e.target === $("drawer")) closeDrawer(); });
  document.addEventListener("keydown", (e) => {
    if (!S || $("ks").hidden) return;
    if (e.key === "Escape") { if (drawer) closeDrawer(); else if (fixing) cancelFix(); else if (zeroMode) { zeroMode = false; draw(); } return; }
    if (drawer || e.ctrlKey || e.metaKey || e.altKey) return;
    if (target(e).closest && target(e).closest("input, select, textarea")) return;
    if (e.key >= "1" && e.key <= "6") { addDie(Number(e.key)); e.preventDefault(); }
    else if (e.key === "Backspace" && pad.length) { removeDie(pad.length - 1); e.preventDefault(); }
    else if (e.key === "0") { $("zero").click(); e.preventDefault(); }
  });
}

export function names() { return shown ? shown.players.map((p) => p.name) : []; }
export { rememberNames };
