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
// Its parts, by job: keeper-state.js (the state), keeper-pad.js, keeper-sync.js, keeper-draw.js, keeper-share.js.
import { $, el } from "./page.js";
import { GameSheet, PlayerStrip, reason } from "./game.js";
import { loadSheet, saveSheet, onChange, keepOnScreen } from "./keeper-store.js";
import { NONE, firstView, lastKey, online, reload, sheetRef, state, useLabels } from "./keeper-state.js";
import { chooseBox, clearPad, refreshHints, wire } from "./keeper-pad.js";
import { flush, follow, joinWith } from "./keeper-sync.js";
import { draw } from "./keeper-draw.js";

// --- opening and closing ----------------------------------------------------------------------------
/** @param {{engine: import("./keeper-engine.js").Engine, go: {newSheet(args: object): void}}} options */
export function init(options) {
  state.engine = options.engine; state.go = options.go;
  state.engine.onChange(() => { if (state.sheet) recompute(); });
  $("sheet-print").addEventListener("click", () => window.print());
  // on paper, every player's sheet one after the other (the screen shows one player's at a time)
  window.addEventListener("beforeprint", printSheets);
  window.matchMedia("print").addEventListener("change", (e) => { if (e.matches) printSheets(); });
  onChange((id, other) => { if (other && state.sheet && id === state.sheet.id) reload().then(recompute); else if (id === null && state.sheet) draw(); });
}

// What the page's address brings (and leaves it at once, so no history or screenshot keeps it): a write
// token (#token=, with its #code=: a sheet made by the form without the page's script, or joined on the
// start page), a code to join with (#join=: a shared link). Kept for the sheet until it is open.
/** @param {string} id @returns {Record<string, string | null>} */
function fromAddress(id) {
  const found = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
  if (location.hash) history.replaceState(history.state, "", location.pathname + location.search);
  if (state.carried.id !== id) state.carried = { id };
  Object.assign(state.carried, found);
  return state.carried;
}

// Open a sheet: the phone's copy (the server's view, when newer, moves its record on). Resolves whether
// the phone has it (else the caller asks the server).
/** @param {string} id @param {import("./protocol").SheetView | null} serverView */
export async function open(id, serverView) {
  close();
  const mine = ++state.opened;
  const address = fromAddress(id);
  let s = await loadSheet(id);
  if (mine !== state.opened) return true;  // another sheet was opened meanwhile
  if (serverView && (!s || !s.base || serverView.v >= s.base.v)) {
    const base = { v: serverView.v, record: serverView.record };
    s = Object.assign(s || { id, created: Date.now(), queue: [], refile: [] }, { id, name: serverView.name, synced: true, base, view: serverView });
  }
  if (s && address.token) { s.token = address.token; s.code = address.code || s.code; }
  if (!s) { state.shown = NONE; renderMissing(); return false; }
  state.carried = { id: null };
  state.sheet = s; keepOnScreen(id);
  clearPad(); state.fixing = null; state.rolloff = null; state.tab = null; state.followed = null; state.invalid = {}; state.notice = null;
  const first = firstView(state.sheet);
  state.shown = first.view || NONE; state.trusted = first.trusted;
  document.body.classList.add("keeper-sheet");
  $("ks").hidden = false; $("home").hidden = true; $("keep-home").hidden = false;
  if (!state.sheetUI) state.sheetUI = new GameSheet($("sheet"), { onAction: (box) => chooseBox(box) });
  if (!state.strip) state.strip = new PlayerStrip($("strip"), { onTab: (/** @type {number} */ i) => { state.tab = i; draw(); } });
  wire();
  const csv = /** @type {HTMLAnchorElement} */ ($("sheet-csv"));
  csv.href = `/keep/${id}/sheet.csv`; csv.hidden = !state.sheet.synced;  // the server's copy: a sheet it knows
  await saveSheet(state.sheet, state.trusted ? state.shown : null);
  recompute();
  follow();
  const code = address.join || (!state.sheet.token && state.sheet.synced && state.sheet.code ? state.sheet.code : null);  // a sheet kept before write tokens: its code again
  if (code && online()) joinWith(code, !address.join); else flush();
  return true;
}

// Every player's sheet for printing, drawn by the shared component from the view on screen (the engine's).
function printSheets() {
  const host = $("print-sheets");
  host.replaceChildren();
  const view = state.shown;
  if (!state.sheet || !view || !view.players) return;
  for (const p of view.players) {
    const wrap = el("div", { class: "sheet-wrap" });
    const grand = el("p", { class: "grand" });
    const part = el("section", { class: "print-sheet" });
    part.append(wrap, grand);
    host.append(part);
    const drawn = new GameSheet(wrap, { onAction: () => {} }).render(view, { tab: p.seat, grand, winnerRow: true, openCell: () => ({ text: "" }) });
    if (drawn.perPlayer) break;  // one table holds every player
  }
}

export function close() {
  if (state.socket) { state.socket.close(); state.socket = null; }
  clearTimeout(state.retryTimer);
  state.live = false; state.sheet = NONE; state.shown = NONE; state.drawer = null; state.trusted = false;
  keepOnScreen(null);
  useLabels(null);
  document.body.classList.remove("keeper-sheet");
}

function renderMissing() {
  document.body.classList.remove("keeper-sheet");
  $("ks").hidden = true; $("home").hidden = false;
  const e = $("home-error"); e.hidden = false; e.textContent = reason("sheet/unknown");
}

export async function recompute() {
  if (!state.sheet) return;
  const mine = ++state.seq;
  if (state.engine.ready && state.sheet.base) {
    const key = lastKey(state.sheet);
    const r = await state.engine.call("view", { sheet: sheetRef(), queue: state.sheet.queue });
    if (mine !== state.seq || !state.sheet) return;
    if (r.ok) { state.shown = r.view; state.results = r.results; state.trusted = true; state.sheet.last = { key, view: r.view }; }
  } else {
    const first = firstView(state.sheet);
    if (first.view) { state.shown = first.view; state.trusted = first.trusted; state.results = []; }
  }
  if (!state.shown) { draw(); return; }
  draw();
  refreshHints();
  await saveSheet(state.sheet, state.trusted ? state.shown : null);  // the list of sheets shows true numbers only
}

export { syncAll } from "./keeper-sync.js";
