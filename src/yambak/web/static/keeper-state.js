// @ts-check
// A kept sheet's state on this phone, in one object shared by its modules (keeper-sheet.js opens and
// closes a sheet; keeper-pad.js types entries; keeper-sync.js sends them; keeper-draw.js draws the sheet;
// keeper-share.js has the history, the sharing and the end), and what they all read of it: the seat to
// enter, refusals in the player's language, the rows' names.
import { boot, T, num } from "./page.js";
import { boxLabel, reason } from "./game.js";
import { loadSheet } from "./keeper-store.js";

/** @typedef {import("./protocol").SheetView} SheetView */
/** @typedef {import("./protocol").BoxOutlook} BoxOutlook */
/** @typedef {import("./keeper-store.js").Entry} Entry */
/** @typedef {import("./keeper-store.js").KeptSheet} KeptSheet */
/** The last refusal or message, shown until the next action: its code, its text, and the refusal's fields.
 * @typedef {{code: string, text: string, [field: string]: any}} Notice */
/** @typedef {{
 *   engine: import("./keeper-engine.js").Engine, go: {newSheet(args: object): void},
 *   sheet: KeptSheet, shown: SheetView, results: {ok: boolean}[],
 *   pad: number[], roll: number, zeroMode: boolean, padFor: {seat: number, filled: number} | null,
 *   trusted: boolean, opened: number, carried: {id: string | null, [key: string]: string | null},
 *   fixing: (import("./protocol").HistoryEntry & {choice: string | null}) | null, fixOptions: Record<string, BoxOutlook> | null,
 *   preview: Record<string, BoxOutlook> | null, previewKey: string, zeros: Record<string, BoxOutlook> | null, zerosKey: string,
 *   rolloff: {target: string, seats: number[], dice: Record<string, number[]>} | null,
 *   tab: number | null, followed: number | null, invalid: Record<number, string>, notice: Notice | null,
 *   flushing: boolean, inflight: Entry | null, deferred: SheetView | null, retryTimer: ReturnType<typeof setTimeout> | undefined,
 *   retryDelay: number, syncing: boolean,
 *   socket: import("./game.js").SessionSocket<import("./protocol").Protocol["sheet_server"]> | null, live: boolean,
 *   drawer: "history" | "share" | null, sheetUI: import("./game.js").GameSheet | null, strip: import("./game.js").PlayerStrip | null,
 *   seq: number, headPending: boolean, measure: CanvasRenderingContext2D | null, labelsKey: string, wired: boolean}} KeeperState */

// `sheet` and `shown` are null while no sheet is open (and `shown` until its first view): typed as open, for
// everything past the entry points (open, draw, the socket's and the engine's callbacks), which check them first.
/** What `sheet` and `shown` hold while no sheet is open. @type {any} */
export const NONE = null;

/** @type {KeeperState} */
export const state = {
  engine: /** @type {any} */ (null), go: /** @type {any} */ (null),  // given by init(), before anything else runs
  sheet: NONE,                // the sheet as this phone keeps it (keeper-store)
  shown: NONE,                // the view drawn
  results: [],                // per queued entry, as the phone's engine applied it
  pad: [], roll: 1, zeroMode: false,
  padFor: null,               // {seat, filled}: the turn the typed dice (or the 0) are for
  trusted: false,             // whether `shown`'s numbers are true (the phone's engine's, or the server's of base alone)
  opened: 0,                  // drops an open() a newer one replaced while it read the phone's storage
  carried: { id: null },      // what the page's address brought for a sheet (keeper-sheet.js `fromAddress`)
  fixing: null, fixOptions: null,
  preview: null, previewKey: "",
  zeros: null, zerosKey: "",
  rolloff: null,              // {target, seats, dice: {seat: [..]}} while a roll-off is typed
  tab: null, followed: null,
  invalid: {},                // turn -> why, from a refused correction
  notice: null,               // {code, text, ...}: the last refusal, shown until the next action
  flushing: false, inflight: null, deferred: null, retryTimer: undefined, retryDelay: 1500, syncing: false,
  socket: null, live: false,
  drawer: null,
  sheetUI: null, strip: null,
  seq: 0,                     // drops answers to requests a newer one replaced
  headPending: false, measure: null, labelsKey: "",  // the column and row names' fitting (keeper-draw.js)
  wired: false,
};

/** @param {string} box */
export const named = (box) => boxLabel(state.shown, box);
export const nDice = () => state.shown.rules.rolled_dice;
export const online = () => navigator.onLine !== false;
// refusals that say "not now" rather than "not this entry": the entry waits in the queue and goes again
/** @param {string | undefined} code */
export const transient = (code) => /^(server|rate|cluster)\//.test(code || "");
/** @param {{kind: string}} e */
export const isTurn = (e) => e.kind === "dice" || e.kind === "scratch";
export const readOnly = () => !!state.sheet && !state.sheet.token;  // no write token: this phone watches the sheet
/** @returns {Record<string, string>} */
export const auth = () => (state.sheet && state.sheet.token ? { authorization: `Bearer ${state.sheet.token}` } : {});
/** @param {number} x */
export const points = (x) => (Number.isInteger(x) ? String(x) : num(x, 1));

// --- messages in the player's language, from a refusal's code and fields ---------------------------
/** @param {Record<string, any> | null | undefined} err a coded refusal and its fields */
export function refusalText(err) {
  if (!err) return "";
  const name = (/** @type {number} */ seat) => (state.shown && state.shown.players[seat] ? state.shown.players[seat].name : "");
  switch (err.code) {
    case "stale/overtaken": return err.current != null ? T("Another phone entered this turn first: it is {name}'s turn now.", { name: name(err.current) }) : reason(err.code);
    case "illegal/not-your-turn": return err.current != null ? T("It is {name}'s turn now.", { name: name(err.current) }) : reason(err.code);
    case "keeper/breaks-later": return T("This correction would make entries {list} illegal: not applied.", { list: (err.invalid || []).map((/** @type {{turn: number}} */ x) => x.turn).join(", ") });
    case "input/dice": return T("Type all {n} dice first.", { n: err.n || nDice() });
    case "stale/version": return T("The sheet changed on another phone: this change was not applied.");
    case "engine/unavailable": case "engine/error": return T("This phone's engine could not answer: {detail}", { detail: err.message || "" });
    case "auth/sheet-token": return T("This phone may only watch this sheet: type its code to keep score on it.");
    case "stale/ahead": return T("An entry before this one was not filed, so this one was not filed either.");
    case "storage/full": return T("This phone's storage is full: the entry was not kept. Delete old sheets from this phone and try again.");
    default: return reason(err.code) === T("Not available now.") && err.message ? err.message : reason(err.code);
  }
}

// The view to draw before the engine answers: its last view of this very record and queue, else the
// server's of a record with nothing queued; else the last one there is, not to be written anywhere.
/** @param {KeptSheet} s */
export const lastKey = (s) => `${s.base ? s.base.v : 0}|${s.queue.map((e) => e.id).join(",")}`;
/** @param {KeptSheet} s @returns {{view: SheetView | null, trusted: boolean}} */
export function firstView(s) {
  if (s.last && s.last.key === lastKey(s)) return { view: s.last.view, trusted: true };
  if (!s.queue.length && s.view && s.base && s.view.v === s.base.v) return { view: s.view, trusted: true };
  return { view: (s.last && s.last.view) || s.view || null, trusted: false };
}

// The sheet's queue, entries to file again, record and token as stored (another tab may have changed them).
export async function reload() {
  if (!state.sheet) return;
  const fresh = await loadSheet(state.sheet.id);
  if (!fresh || !state.sheet || fresh.id !== state.sheet.id) return;
  state.sheet.queue = fresh.queue; state.sheet.refile = fresh.refile;
  if (fresh.base && (!state.sheet.base || fresh.base.v > state.sheet.base.v)) { state.sheet.base = fresh.base; state.sheet.view = fresh.view; }
  if (fresh.token !== undefined && (state.sheet.token === undefined || fresh.token)) state.sheet.token = fresh.token;
  state.sheet.code = fresh.code || state.sheet.code; state.sheet.synced = state.sheet.synced || fresh.synced;
}

// Row names as the ruleset's players say them (docs/rules.md §10): a family may name a row its own way.
const baseLabels = boot.labels;
/** @param {import("./protocol").RulesLayout | null} rules */
export function useLabels(rules) {
  const family = rules && (boot.family_labels || {})[rules.preset || rules.id];
  if (family || !rules) { boot.labels = family || baseLabels; return; }
  // house rules: their rows' and columns' own labels as the file writes them, an unnamed id as words
  const words = (/** @type {string} */ id) => { const t = String(id).replace(/_/g, " ").trim(); return t.charAt(0).toUpperCase() + t.slice(1); };
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

export function sheetRef() { return { id: state.sheet.id, code: state.sheet.code || null, name: state.sheet.name, v: state.sheet.base.v, record: state.sheet.base.record }; }

// The seat the next entry is for: the engine's (queue included), else the server's moved on by the queue,
// a turn at a time in the order the engine gives (`next_seat`).
export function nextSeat() {
  if (!state.shown) return 0;
  if (state.engine.ready || !state.sheet.queue.length) return state.shown.current;
  return state.sheet.queue.filter(isTurn).reduce((seat) => state.shown.next_seat[seat], state.shown.current);
}
/** @param {number} seat */
export function filledOf(seat) {
  const p = state.shown.players[seat];
  if (state.engine.ready || !state.sheet.queue.length) return p.turns_done;
  return p.turns_done + state.sheet.queue.filter((e) => isTurn(e) && e.seat === seat).length;
}
