// @ts-check
// What the phone remembers of its score sheets, in IndexedDB (nothing leaves the phone but the entries
// it sends to a sheet's server): every sheet it kept or followed, each entry not yet acknowledged (one
// record per entry, so that two tabs of one sheet never write over each other's), the entries to file
// again, the names used before. Sheets are game records (docs/rules.md §11), so that a profile can
// later import them as they are. Tabs tell each other what changed (BroadcastChannel); one tab at a
// time sends a sheet's queue (Web Locks). A full storage removes the oldest sheets the server keeps
// anyway; an entry not yet sent is never removed to make room: when it cannot be stored, it is refused.
// What the keeper's earlier pages kept in localStorage moves here once, on the first load.
const DB = "yambak-keep";
const OLD_INDEX = "yambak.keep.index";
const OLD_SHEET = "yambak.keep.sheet.";
const OLD_NAMES = "yambak.keep.names";
const MAX_NAMES = 40;

// A sheet as the phone keeps it ("sheets"):
// { id, name, code, token (this phone's write token; none: it only watches), spec, synced, orphan,
//   base: {v, record} (the server's last record), view (the server's last view, while unfinished),
//   last: {key, view} (the phone's engine's last view, of base and queue: shown at once when reopened),
//   final (the record once finished), created, updated }
// Its line in the list of sheets ("index"): { id, name, synced, created, updated, rules, preset, rules_name,
//   players: [{name, total, points}], finished, winners, entries }; `pending` is counted from "entries".
// An entry not yet acknowledged ("entries"): { id, sheet, seq, state: "queued" | "refile", entry, error }.

/** @typedef {import("./protocol").SheetView} SheetView */
/** An entry as the phone queues it: the protocol's (its dice a list: how many is the rules' to say), with the version
 * it was typed at. @typedef {Omit<import("./protocol").EntryIn, "dice"> & {dice?: number[] | null}} Entry */
/** An entry as it is typed, before it is queued. @typedef {Omit<Entry, "id" | "v"> & {id?: string}} NewEntry */
/** A sheet as this phone keeps it, with its queue and its entries to file again (above).
 * @typedef {{id: string, name: string, code?: string | null, token?: string | null, spec?: any, synced?: boolean,
 *   orphan?: string | null, base: {v: number, record: any}, view?: SheetView | null, last?: {key: string, view: SheetView},
 *   queue: Entry[], refile: {entry: Entry, error: any}[], created?: number, final?: any}} KeptSheet */
/** A sheet's line in the list of sheets (above). @typedef {{id: string, name: string, synced?: boolean, pending: number,
 *   finished?: boolean, updated?: number, orphan?: string | null, [field: string]: any}} SheetLine */

/** @type {Promise<IDBDatabase> | null} */
let opening = null;
const channel = typeof BroadcastChannel !== "undefined" ? new BroadcastChannel(DB) : null;
/** @type {((sheetId: string | null, fromOtherTab: boolean) => void)[]} */
const listeners = [];
/** @type {{pruned: number, full: boolean}} */
export const storage = { pruned: 0, full: false };

/** @param {IDBRequest} req @returns {Promise<any>} */
const done = (req) => new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); req.onerror = () => reject(req.error); });
/** @param {IDBTransaction} tx */
const finished = (tx) => new Promise((resolve, reject) => {
  tx.oncomplete = () => resolve(undefined); tx.onabort = () => reject(tx.error || new Error("aborted")); tx.onerror = () => { /* onabort follows */ };
});
/** @param {any} err */
const isFull = (err) => !!err && (err.name === "QuotaExceededError" || /quota/i.test(String(err.message || "")));

function db() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => {
        const d = req.result;
        d.createObjectStore("sheets", { keyPath: "id" });
        d.createObjectStore("index", { keyPath: "id" });
        const entries = d.createObjectStore("entries", { keyPath: "id" });
        entries.createIndex("sheet", "sheet");
        d.createObjectStore("meta", { keyPath: "key" });
      };
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    }).then(async (d) => { await migrate(d); return d; });
  }
  return opening;
}

// One transaction; a full storage prunes and tries once more (`write` says whether it may add data).
/** @template T @param {string[]} stores @param {IDBTransactionMode} mode @param {(tx: IDBTransaction) => Promise<T>} body @returns {Promise<T>} */
async function run(stores, mode, body) {
  for (let attempt = 0; ; attempt++) {
    const d = await db();
    const tx = d.transaction(stores, mode);
    const out = body(tx);
    try { await finished(tx); return await out; } catch (err) {
      if (mode !== "readwrite" || !isFull(err) || attempt > 0 || !(await prune())) throw err;
    }
  }
}

/** @param {string | null} sheet */
function tell(sheet) {
  if (channel) channel.postMessage({ sheet });
  for (const fn of listeners) fn(sheet, false);
}
// `fn(sheetId, fromOtherTab)`: a sheet (or the list, sheetId null) changed.
/** @param {(sheetId: string | null, fromOtherTab: boolean) => void} fn */
export function onChange(fn) { listeners.push(fn); }
if (channel) channel.onmessage = (e) => { for (const fn of listeners) fn(e.data && e.data.sheet, true); };

// --- sheets ---------------------------------------------------------------------------------------

// A sheet with its queue and its entries to file again (null: not on this phone).
/** @param {string} id @returns {Promise<KeptSheet | null>} */
export async function loadSheet(id) {
  return run(["sheets", "entries"], "readonly", async (tx) => {
    const s = await done(tx.objectStore("sheets").get(id));
    if (!s) return null;
    const rows = /** @type {any[]} */ (await done(tx.objectStore("entries").index("sheet").getAll(id)));
    rows.sort((a, b) => a.seq - b.seq);
    s.queue = rows.filter((r) => r.state === "queued").map((r) => r.entry);
    s.refile = rows.filter((r) => r.state === "refile").map((r) => ({ entry: r.entry, error: r.error }));
    return s;
  });
}

// The sheet's own fields (never its entries, which have their records), merged with what another tab
// may have stored meanwhile: the newer server record wins, a token or a code is never lost. `shown`: a
// view whose numbers are true (the phone's engine's, or the server's with nothing queued): its summary
// goes into the list; another view changes nothing there.
/** @param {KeptSheet} s @param {SheetView | null} [shown] */
export async function saveSheet(s, shown = null) {
  const now = Date.now();
  try { await writeSheet(s, shown, now); } catch (err) {
    if (!isFull(err)) throw err;
    storage.full = true;  // the server keeps the record; the entries have records of their own
    tell(null);
    return false;
  }
  tell(s.id);
  return true;
}

/** @param {KeptSheet} s @param {SheetView | null} shown @param {number} now */
async function writeSheet(s, shown, now) {
  await run(["sheets", "index"], "readwrite", async (tx) => {
    const sheets = tx.objectStore("sheets"), index = tx.objectStore("index");
    const old = /** @type {any} */ (await done(sheets.get(s.id))) || {};
    const row = { ...old, ...strip(s), updated: now };
    if (old.base && s.base && old.base.v > s.base.v) { row.base = old.base; if (old.view) row.view = old.view; }
    row.token = s.token === null ? null : s.token || old.token || null;  // null: revoked (a renewed code)
    row.code = s.code || old.code || null;
    if (shown && shown.finished) { row.final = shown.record; delete row.view; }
    sheets.put(row);
    const line = /** @type {any} */ (await done(index.get(s.id))) || { id: s.id, created: s.created || now };
    Object.assign(line, { name: s.name, synced: !!row.synced, updated: now, orphan: row.orphan || null });
    if (shown) {
      Object.assign(line, { rules: shown.rules.id, preset: shown.rules.preset, rules_name: shown.rules.name,
        players: shown.players.map((p) => ({ name: p.name, total: p.total, points: p.match_points })),
        finished: !!shown.finished, winners: shown.winners || [], entries: shown.history.length });
    }
    index.put(line);
  });
}

/** @param {KeptSheet} s */
const strip = (s) => { const { queue, refile, ...rest } = s; return rest; };

// The sheets on this phone, most recent first, each with how many of its entries are not sent yet.
/** @returns {Promise<SheetLine[]>} */
export async function listSheets() {
  return run(["index", "entries"], "readonly", async (tx) => {
    const lines = /** @type {any[]} */ (await done(tx.objectStore("index").getAll()));
    const rows = /** @type {any[]} */ (await done(tx.objectStore("entries").getAll()));
    const pending = new Map();
    for (const r of rows) pending.set(r.sheet, (pending.get(r.sheet) || 0) + 1);
    for (const x of lines) x.pending = pending.get(x.id) || 0;
    return lines.sort((a, b) => (b.updated || 0) - (a.updated || 0));
  });
}

/** @param {string} id */
export async function deleteSheet(id) {
  await run(["sheets", "index", "entries"], "readwrite", async (tx) => {
    tx.objectStore("sheets").delete(id);
    tx.objectStore("index").delete(id);
    const entries = tx.objectStore("entries");
    for (const key of /** @type {any[]} */ (await done(entries.index("sheet").getAllKeys(id)))) entries.delete(key);
  });
  tell(id);
}

// The records of every finished sheet, oldest first (the statistics' input).
export async function finishedRecords() {
  const ids = (await listSheets()).filter((x) => x.finished).reverse().map((x) => x.id);
  return run(["sheets"], "readonly", async (tx) => {
    /** @type {any[]} */
    const out = [];
    for (const id of ids) {
      const s = /** @type {any} */ (await done(tx.objectStore("sheets").get(id)));
      if (s && (s.final || (s.base && s.base.record))) out.push(s.final || s.base.record);
    }
    return out;
  });
}

export async function finishedIds() { return (await listSheets()).filter((x) => x.finished && x.synced).map((x) => x.id); }

// --- entries --------------------------------------------------------------------------------------

// An entry joins the sheet's queue, after every entry any tab queued before it; its version is the one
// it was made on (the server's record and the entries before it). Returns the entry as stored, or null
// when there is no room for it (the phone then keeps the typed dice and says so).
/** @param {string} sheetId @param {NewEntry & {id: string}} entry @param {number} baseV @returns {Promise<Entry | null>} */
export async function addEntry(sheetId, entry, baseV) {
  try {
    const out = await run(["sheets", "entries"], "readwrite", async (tx) => {
      const entries = tx.objectStore("entries");
      const rows = /** @type {any[]} */ (await done(entries.index("sheet").getAll(sheetId)));
      const s = /** @type {any} */ (await done(tx.objectStore("sheets").get(sheetId)));
      const base = Math.max(baseV, s && s.base ? s.base.v : 0);
      const queued = rows.filter((r) => r.state === "queued").length;
      const stored = { ...entry, v: base + queued };
      entries.put({ id: entry.id, sheet: sheetId, seq: Math.max(0, ...rows.map((r) => r.seq)) + 1, state: "queued", entry: stored });
      return stored;
    });
    tell(sheetId);
    return out;
  } catch (err) {
    if (isFull(err)) { storage.full = true; tell(null); return null; }
    throw err;
  }
}

// An entry the server acknowledged (or one taken back before it was sent).
/** @param {string} sheetId @param {string} id */
export async function removeEntry(sheetId, id) {
  await run(["entries"], "readwrite", async (tx) => { tx.objectStore("entries").delete(id); });
  tell(sheetId);
}

// An entry the server refused: kept to be filed again or discarded, never dropped silently.
/** @param {string} sheetId @param {string} id @param {unknown} error */
export async function refileEntry(sheetId, id, error) {
  await run(["entries"], "readwrite", async (tx) => {
    const entries = tx.objectStore("entries");
    const row = /** @type {any} */ (await done(entries.get(id)));
    if (row) entries.put({ ...row, state: "refile", error });
  });
  tell(sheetId);
}

// One tab at a time sends a sheet's queue: `fn` runs with the lock, or not at all (another tab holds it).
/** @template T @param {string} sheetId @param {() => Promise<T>} fn @returns {Promise<T | "busy">} */
export async function whileSending(sheetId, fn) {
  const locks = navigator.locks;
  if (!locks) return fn();
  return locks.request(`${DB}:send:${sheetId}`, { ifAvailable: true }, (lock) => (lock ? fn() : "busy"));
}

// --- a full storage ---------------------------------------------------------------------------------

// Room made by removing sheets the server keeps (synced, nothing queued or to file again), oldest first,
// finished ones before the others; the sheet on screen stays. Returns whether anything was removed.
/** @type {string | null} */
let keep = null;
/** @param {string | null} id */
export function keepOnScreen(id) { keep = id; }
async function prune() {
  const lines = await listSheets();
  const spare = lines.filter((x) => x.synced && !x.pending && x.id !== keep)
    .sort((a, b) => Number(!!b.finished) - Number(!!a.finished) || (a.updated || 0) - (b.updated || 0));
  const gone = spare.slice(0, Math.max(1, Math.ceil(spare.length / 4)));
  for (const x of gone) await deleteSheet(x.id);
  storage.pruned += gone.length;
  if (gone.length) tell(null);
  return gone.length > 0;
}

// --- names ----------------------------------------------------------------------------------------

// Names used before, most recent first: suggested when a new sheet is made.
export async function knownNames() {
  return run(["meta"], "readonly", async (tx) => ((await done(tx.objectStore("meta").get("names"))) || { names: [] }).names);
}
/** @param {string[]} names */
export async function rememberNames(names) {
  const seen = new Set(names.map((n) => n.toLocaleLowerCase()));
  const known = await knownNames();
  const all = [...names, ...known.filter((/** @type {string} */ n) => !seen.has(n.toLocaleLowerCase()))].slice(0, MAX_NAMES);
  await run(["meta"], "readwrite", async (tx) => { tx.objectStore("meta").put({ key: "names", names: all }); });
}

// Ids for entries, sheets started on this phone (the server keeps a phone's sheet id) and write tokens.
export function newId(bytes = 12) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return btoa(String.fromCharCode(...a)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// Asked once: storage the browser does not clear by itself when it runs short.
export function askToPersist() { try { if (navigator.storage && navigator.storage.persist) navigator.storage.persist(); } catch { /* not offered */ } }

// --- the move from localStorage ---------------------------------------------------------------------

// The keeper's earlier pages kept sheets in localStorage ("yambak.keep.index", "yambak.keep.sheet.ID"
// with their queue and entries to file again, "yambak.keep.names", and before that one queue per sheet
// in "yambak-keep:ID:queue"). All of it moves here in one transaction, once (two tabs opening at once
// move it once: the second finds the mark), then leaves localStorage.
/** @param {IDBDatabase} d */
async function migrate(d) {
  let old;
  try { old = readOld(); } catch { return; }
  if (!old.sheets.length && !old.names.length) return;
  const tx = d.transaction(["sheets", "index", "entries", "meta"], "readwrite");
  const meta = tx.objectStore("meta");
  const moved = /** @type {Promise<boolean>} */ (done(meta.get("migrated")).then((mark) => {
    if (mark) return false;
    let seq = 0;
    for (const { sheet, line } of old.sheets) {
      const { queue = [], refile = [], ...rest } = sheet;
      tx.objectStore("sheets").put(rest);
      tx.objectStore("index").put({ ...line, id: sheet.id, name: sheet.name, synced: !!sheet.synced });
      for (const e of queue) if (e && e.id) tx.objectStore("entries").put({ id: e.id, sheet: sheet.id, seq: ++seq, state: "queued", entry: e });
      for (const x of refile) {
        if (x && x.entry && x.entry.id) tx.objectStore("entries").put({ id: x.entry.id, sheet: sheet.id, seq: ++seq, state: "refile", entry: x.entry, error: x.error || null });
      }
    }
    if (old.names.length) meta.put({ key: "names", names: old.names });
    meta.put({ key: "migrated", at: Date.now(), sheets: old.sheets.length });
    return true;
  }));
  try { await finished(tx); } catch { return; }  // nothing moved: localStorage keeps it for the next load
  await moved;
  for (const key of old.keys) { try { localStorage.removeItem(key); } catch { /* kept */ } }
}

function readOld() {
  /** @type {string[]} */
  const keys = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && (k === OLD_INDEX || k === OLD_NAMES || k.startsWith(OLD_SHEET) || k.startsWith("yambak-keep:"))) keys.push(k);
  }
  /** @param {string} k @param {any} fallback @returns {any} */
  const parse = (k, fallback) => { try { return JSON.parse(localStorage.getItem(k) || "null") ?? fallback; } catch { return fallback; } };
  const index = parse(OLD_INDEX, []);
  const lines = new Map((Array.isArray(index) ? index : []).filter((/** @type {any} */ x) => x && x.id).map((/** @type {any} */ x) => [x.id, x]));
  /** @type {{sheet: any, line: any}[]} */
  const sheets = [];
  for (const k of keys.filter((k) => k.startsWith(OLD_SHEET))) {
    const s = parse(k, null);
    if (!s || typeof s.id !== "string") continue;
    s.queue = Array.isArray(s.queue) ? s.queue : [];
    s.refile = Array.isArray(s.refile) ? s.refile : [];
    const older = parse(`yambak-keep:${s.id}:queue`, []);  // the first keeper's queue of this sheet
    const known = new Set(s.queue.map((/** @type {any} */ e) => e && e.id));
    for (const e of Array.isArray(older) ? older : []) if (e && e.id && !known.has(e.id)) s.queue.push(e);
    sheets.push({ sheet: s, line: lines.get(s.id) || {} });
  }
  const names = parse(OLD_NAMES, []);
  return { keys, sheets, names: Array.isArray(names) ? names.filter((/** @type {unknown} */ n) => typeof n === "string") : [] };
}
