// @ts-check
// What every page module shares: the boot data the server embeds, translation, labels, DOM helpers,
// the device's settings (theme, confirmations, shortcuts), a live region and a toast.
// Strings arrive translated from the server (boot.strings); user text is only ever set as textContent.
import { pluralRule } from "./plural.js";

/** The page's boot data (the server's JSON in <script id="boot">): each page reads its own fields. @type {any} */
export const boot = JSON.parse(/** @type {HTMLElement} */ (document.getElementById("boot")).textContent || "{}");
/** @param {string} text @param {Record<string, unknown>} args */
const fill = (text, args) => text.replace(/\{(\w+)\}/g, (_, k) => String(args[k] ?? ""));
/** @param {string} s @param {Record<string, unknown>} [args] @returns {string} */
export const T = (s, args = {}) => fill(boot.strings[s] || s, args);
// "Ann: 12", a label and its text, with the colon as the language writes it ("Ann : 12" in French)
/** @param {string} label @param {unknown} text */
export const colon = (label, text) => T("{label}: {text}", { label, text });
// The same English meaning another thing elsewhere (an "open" round, an "open" box): a context apart.
/** @param {string} context @param {string} s @param {Record<string, unknown>} [args] @returns {string} */
export const C = (context, s, args = {}) => fill(boot.strings[`${context}\u0004${s}`] || s, args);
// Plurals: the catalog's forms for singular/plural (boot.strings["singular\0plural"]), the form chosen
// by the catalog's own Plural-Forms rule (boot.strings["\0"]); {n} is n unless args say otherwise.
/** @param {string} singular @param {string} plural @param {number} n @param {Record<string, unknown>} [args] @returns {string} */
export const N = (singular, plural, n, args = {}) => {
  const forms = boot.strings[`${singular}\u0000${plural}`];
  const index = forms ? pluralIndex(n) : (n === 1 ? 0 : 1);
  // a fraction (4.5 match points) is written the language's way: "4,5 ptn", never "4.5 ptn"
  const shown = Number.isInteger(n) ? n : new Intl.NumberFormat(LANG).format(n);
  return fill((forms ? forms[Math.min(index, forms.length - 1)] : null) || (index === 0 ? singular : plural), { n: shown, ...args });
};
/** @type {import("./plural.js").Rule | null} */
let rule = null;
/** @param {number} n */
function pluralIndex(n) {
  if (!rule) rule = pluralRule(boot.strings["\u0000"] || "n != 1");
  return Number(rule(Math.abs(Math.trunc(n))));
}

// A sentence of the rule describer (rules/describe.py `Phrase.to_json`) in the page's language; `name`
// words a row or a column ({"row": id}) the page's way.
/** @param {import("./protocol").Phrase} p @param {(named: Record<string, string>) => string} name @returns {string} */
export function phrase(p, name) {
  /** @type {Record<string, any>} */
  const args = {};
  for (const [k, v] of Object.entries(p.a || {})) args[k] = v && typeof v === "object" ? ("t" in v ? phrase(/** @type {import("./protocol").Phrase} */ (v), name) : name(/** @type {Record<string, string>} */ (v))) : v;
  return p.raw ? fill(p.t, args) : T(p.t, args);
}

/** @param {string} id @returns {string} */
export const rowLabel = (id) => boot.labels.rows[id] || id;
/** @param {string} id @returns {string} */
export const colLabel = (id) => boot.labels.columns[id] || id;
/** @param {string} id @returns {string} */
export const rowShort = (id) => (boot.labels.rows_short || {})[id] || rowLabel(id);
/** @param {string} id @returns {string} */
export const colShort = (id) => (boot.labels.columns_short || {})[id] || colLabel(id);
// "free.sixes" as players read it; the bare row where the sheet has one column.
/** @param {string} box @param {number} columns @returns {string} */
export const boxLabel = (box, columns) => { const [c, r] = box.split("."); return columns > 1 ? `${colLabel(c)} · ${rowLabel(r)}` : rowLabel(r); };
// An element of the page's own markup by id. Typed `any` on purpose: which kind of element an id names
// is the template's to say (an input, a dialog, a select...), and the checks here are about the rest.
/** @type {(id: string) => any} */
export const $ = (id) => document.getElementById(id);
// The page's elements a selector matches, as HTML elements (a list, not a live NodeList).
/** @type {(selector: string, root?: ParentNode) => any[]} */
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
/** An event's target as the element it is (events here come from elements).
 * @param {Event} e @returns {any} */
export const target = (e) => e.target;
// Numbers as the page's language writes them ("73,3" in nl, fr, hr, de): Intl, as Babel writes them
// on the server (web/i18n.py `number`, `percent`; a test compares the two).
const LANG = document.documentElement.lang || "en";
/** @param {number} x */
export const num = (x, digits = 1) => new Intl.NumberFormat(LANG, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
/** @param {number} x */
export const pct = (x, digits = 0) => new Intl.NumberFormat(LANG, { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
/** An element with its attributes (on...: listeners) and text. Typed `any` as `$` is: its kind is the caller's to know.
 * @param {string} tag @param {Record<string, any>} [attrs] @param {unknown} [text] @returns {any} */
export const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : v);
  }
  if (text != null) e.textContent = String(text);
  return e;
};
/** @param {string} tag @param {Record<string, string | number>} [attrs] @returns {SVGElement} */
export const svg = (tag, attrs = {}) => {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};
// Set a property only when it changes (keeps the DOM, and focus, stable across updates).
/** @param {Node} node @param {string} text */
export const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
/** @param {Element} node @param {string} name @param {unknown} value */
export const setAttr = (node, name, value) => {
  if (value === null || value === undefined || value === false) { if (node.hasAttribute(name)) node.removeAttribute(name); }
  else { const v = value === true ? "" : String(value); if (node.getAttribute(name) !== v) node.setAttribute(name, v); }
};

// --- the device's settings (localStorage; nothing leaves the device) -------------------------
const KEY = "yambak.settings";
const DEFAULTS = { theme: "system", confirmZero: true, shortcuts: true, hints: false, sound: true, celebrations: true };
export function settings() {
  try { return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || "{}") }; } catch { return { ...DEFAULTS }; }
}
/** @param {string} name @param {unknown} value */
export function saveSetting(name, value) {
  /** @type {Record<string, unknown>} */
  const s = settings(); s[name] = value;
  try { localStorage.setItem(KEY, JSON.stringify(s)); } catch { /* private mode: the setting lasts this page */ }
  applyTheme();
  return s;
}
export function applyTheme() {
  const theme = settings().theme;
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}
applyTheme();

// The settings menu of the header: every page has it; controls are plain form elements.
export function wireSettings(onChange = () => {}) {
  const theme = $("set-theme"), confirm = $("set-confirm"), keys = $("set-keys");
  const s = settings();
  if (theme) { theme.value = s.theme; theme.onchange = () => { saveSetting("theme", theme.value); onChange(); }; }
  if (confirm) { confirm.checked = s.confirmZero; confirm.onchange = () => { saveSetting("confirmZero", confirm.checked); onChange(); }; }
  if (keys) { keys.checked = s.shortcuts; keys.onchange = () => { saveSetting("shortcuts", keys.checked); onChange(); }; }
  const sound = $("set-sound"), party = $("set-celebrations");  // sounds and vibration; celebrations apart
  if (sound) { sound.checked = s.sound; sound.onchange = () => { saveSetting("sound", sound.checked); onChange(); }; }
  if (party) { party.checked = s.celebrations; party.onchange = () => { saveSetting("celebrations", party.checked); onChange(); }; }
  // close the menu on Escape or a click elsewhere
  const menu = /** @type {HTMLDetailsElement | null} */ (document.querySelector("details.menu"));
  if (menu) {
    document.addEventListener("click", (e) => { if (menu.open && !menu.contains(target(e))) menu.open = false; });
    menu.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => { if (e.key === "Escape") { menu.open = false; /** @type {HTMLElement} */ (menu.querySelector("summary")).focus(); } });
  }
}

// --- speech and notes --------------------------------------------------------------------------
/** @type {ReturnType<typeof setTimeout> | undefined} */
let liveTimer;
// Say a line once to screen readers (a polite live region; repeated text is still read once per call).
/** @param {string} text */
export function say(text) {
  const live = $("live"); if (!live || !text) return;
  live.textContent = "";
  clearTimeout(liveTimer);
  liveTimer = setTimeout(() => { live.textContent = text; }, 30);
}
/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;
/** @param {string} text */
export function toast(text, ms = 3200) {
  let t = $("toast");
  if (!t) { t = el("div", { id: "toast", class: "toast", role: "status" }); document.body.append(t); }
  t.textContent = text; t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, ms);
}
export function clearToast() { const t = $("toast"); if (t) t.hidden = true; clearTimeout(toastTimer); }

// The player's name and last choices, remembered on this device.
const MEMORY = "yambak.lobby";
// The tables this device holds a seat at and has not seen finish, newest first: the lobby offers them again.
const TABLES = "yambak.tables";
/** @returns {{id: string, seats: number[]}[]} */
export function recentTables() { try { return JSON.parse(localStorage.getItem(TABLES) || "[]"); } catch { return []; } }
/** @param {string} id @param {number[]} seats @param {boolean} playing */
export function noteTable(id, seats, playing) {
  const list = recentTables().filter((t) => t.id !== id);
  if (playing && seats.length) list.unshift({ id, seats });
  try { localStorage.setItem(TABLES, JSON.stringify(list.slice(0, 6))); } catch { /* private mode */ }
}

/** @returns {Record<string, any>} */
export function remembered() { try { return JSON.parse(localStorage.getItem(MEMORY) || "{}"); } catch { return {}; } }
/** @param {Record<string, unknown>} patch */
export function remember(patch) {
  try { localStorage.setItem(MEMORY, JSON.stringify({ ...remembered(), ...patch })); } catch { /* private mode */ }
}

// Times the server wrote in UTC (<time datetime data-local>), shown in the reader's own time zone and language.
export function localTimes(root = document) {
  const lang = document.documentElement.lang || undefined;
  for (const t of root.querySelectorAll("time[data-local]")) {
    const d = new Date(t.getAttribute("datetime") || "");
    if (Number.isNaN(d.getTime())) continue;
    t.textContent = d.toLocaleString(lang, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
  }
}

// A player's name on a page: the server names an open seat "Seat 2" for everyone; each page says it in its
// own language.
/** @param {{kind?: string, name: string, seat: number}} p */
export function playerName(p) {
  return p.kind === "open" ? T("Open seat {n}", { n: p.seat + 1 }) : p.name;
}

// A time left: days and hours, hours and minutes, or minutes (to the second in its last ten minutes),
// written the page language's way ("1j 3h" in French). Without Intl.DurationFormat (older browsers), each
// unit's narrow name from NumberFormat.
const DurationFormat = /** @type {any} */ (Intl).DurationFormat;
const durations = DurationFormat ? new DurationFormat(LANG, { style: "narrow" }) : null;
/** @type {Record<string, string>} */
const UNITS = { days: "day", hours: "hour", minutes: "minute", seconds: "second" };
const unitFormats = new Map();
/** @param {number} seconds @returns {string} */
export function duration(seconds) {
  const s = Number.isFinite(seconds) ? Math.max(0, Math.round(seconds)) : 0;
  const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
  const parts = d ? { days: d, hours: h } : h ? { hours: h, minutes: m } : s < 600 ? { minutes: m, seconds: s % 60 } : { minutes: m };
  if (durations && s) return durations.format(parts);
  let shown = Object.entries(parts).filter(([, n]) => n);
  if (!shown.length) shown = [["seconds", 0]];
  return shown.map(([unit, n]) => {
    if (!unitFormats.has(unit)) unitFormats.set(unit, new Intl.NumberFormat(LANG, { style: "unit", unit: UNITS[unit], unitDisplay: "narrow" }));
    return unitFormats.get(unit).format(n);
  }).join(" ");
}

// <time data-countdown data-left="seconds">: the time left, by the server's clock when it sent the page
// (the device's own clock may be off), ticking; once it is reached, "now", and the page reloads where the
// element says so (data-reload: a deal closed, its board is final).
export function countdowns(root = document) {
  const nodes = /** @type {HTMLElement[]} */ ([...root.querySelectorAll("time[data-countdown]")]);
  if (!nodes.length) return;
  const sent = performance.now();
  const tick = () => {
    for (const t of nodes) {
      const left = Number(t.dataset.left) - (performance.now() - sent) / 1000;
      if (Number.isNaN(left)) continue;
      setText(t, left > 0 ? duration(left) : T("now"));
      if (left <= 0 && t.hasAttribute("data-reload") && !t.dataset.ended) { t.dataset.ended = "1"; setTimeout(() => location.reload(), 1500); }
    }
  };
  tick();
  setInterval(tick, 1000);
}

// JSON to this site's API; resolves to [ok, body] (body: the answer, or a coded error with its message).
/** @param {string} method @param {string} url @param {unknown} [body] @returns {Promise<[boolean, any]>} */
export async function api(method, url, body) {
  try {
    const r = await fetch(url, { method, headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body) });
    const data = r.status === 204 ? {} : await r.json().catch(() => ({}));
    return [r.ok, data];
  } catch {
    return [false, { code: "network", message: T("Not connected: try again.") }];
  }
}
