// @ts-check
// What the phone remembers of its score sheets (localStorage; nothing leaves the phone but the
// entries it sends to a sheet's server): every sheet it kept or followed, the entries not yet
// acknowledged, the ones to file again, the names used before. Sheets are game records
// (docs/rules.md §11), so that a profile can later import them as they are.
const INDEX = "yambak.keep.index";
const SHEET = "yambak.keep.sheet.";
const NAMES = "yambak.keep.names";
const MAX_NAMES = 40;

const read = (key, fallback) => { try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; } };
const write = (key, value) => {
  try { localStorage.setItem(key, JSON.stringify(value)); return true; } catch { return false; }  // private mode or full
};

// A sheet as the phone keeps it:
// { id, name, code, spec, synced, base: {v, record}, view (the last server view, while unfinished),
//   queue: [entries not acknowledged], refile: [{entry, error}], final (the record once finished),
//   created, updated }
export function loadSheet(id) {
  const s = read(SHEET + id, null);
  if (!s || s.id !== id) return null;
  s.queue = s.queue || []; s.refile = s.refile || [];
  return s;
}

export function saveSheet(s, shown) {
  s.updated = Date.now();
  const summary = { id: s.id, name: s.name, code: s.code || null, synced: !!s.synced, created: s.created, updated: s.updated,
    pending: s.queue.length + s.refile.length };
  if (shown) {
    summary.rules = shown.rules.id; summary.preset = shown.rules.preset; summary.rules_name = shown.rules.name;
    summary.players = shown.players.map((p) => ({ name: p.name, total: p.total, points: p.match_points }));
    summary.finished = !!shown.finished; summary.winners = shown.winners || [];
    summary.entries = shown.history.length;
    if (shown.finished) s.final = shown.record; else delete s.final;
  }
  if (shown && shown.finished) delete s.view;  // a finished sheet is its record; the engine draws it again
  const index = read(INDEX, []).filter((x) => x.id !== s.id);
  const old = read(INDEX, []).find((x) => x.id === s.id) || {};
  index.unshift({ ...old, ...summary });
  write(SHEET + s.id, s);
  write(INDEX, index);
}

export function listSheets() { return read(INDEX, []).sort((a, b) => (b.updated || 0) - (a.updated || 0)); }

export function deleteSheet(id) {
  try { localStorage.removeItem(SHEET + id); } catch { /* nothing kept */ }
  write(INDEX, read(INDEX, []).filter((x) => x.id !== id));
}

// The records of every finished sheet, oldest first (the statistics' input).
export function finishedRecords() {
  return listSheets().filter((x) => x.finished).reverse().map((x) => {
    const s = loadSheet(x.id);
    return s && (s.final || (s.base && s.base.record));
  }).filter(Boolean);
}

export function finishedIds() { return listSheets().filter((x) => x.finished && x.synced).map((x) => x.id); }

// Names used before, most recent first: suggested when a new sheet is made.
export function knownNames() { return read(NAMES, []); }
export function rememberNames(names) {
  const seen = new Set(names.map((n) => n.toLocaleLowerCase()));
  write(NAMES, [...names, ...knownNames().filter((n) => !seen.has(n.toLocaleLowerCase()))].slice(0, MAX_NAMES));
}

// Ids for entries and for sheets started on this phone (the server keeps a phone's sheet id).
export function newId(bytes = 12) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return btoa(String.fromCharCode(...a)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
