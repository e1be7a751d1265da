// @ts-check
// Whether this phone is ready to keep sheets with no network, said before the family finds out at the
// campsite: the offline copy (the service worker and every file it keeps), the phone's own engine, the
// storage (kept by the browser or not, how much space there is against what the copy needs). The start
// page shows it in a card (`#offline-card`), asks for persistent storage, and warns when it is not ready;
// `document.body.dataset.offline` says "checking", "ready" or "not-ready" (the tests read it).
import { boot, T, el, $, num } from "./page.js";

/** @typedef {"none" | "installing" | "ready" | "failed"} CopyState */
/** @typedef {{copy: CopyState, cached: number, persisted: boolean | null, usage: number | null, quota: number | null, why: string}} Readiness */

/** @type {{files: number, bytes: number, version: string}} what the server says the copy holds */
const wanted = boot.offline || { files: 0, bytes: 0, version: "" };
/** @type {Readiness} */
export const readiness = { copy: "none", cached: 0, persisted: null, usage: null, quota: null, why: "" };
/** @type {import("./keeper-engine.js").Engine | null} */
let engine = null;

/** @param {number} bytes */
const MB = (bytes) => (bytes >= 1e9 ? T("{n} GB", { n: num(bytes / 1e9, 1) }) : T("{n} MB", { n: num(bytes / 1e6, 1) }));

// Reads everything again: the copy's files in the cache, the storage's state and space.
export async function check() {
  try {
    const cache = await caches.open(`yambak-keep-${wanted.version}`);
    readiness.cached = (await cache.keys()).length;
    if (readiness.copy !== "failed" && readiness.cached >= wanted.files) readiness.copy = "ready";
  } catch { readiness.cached = 0; }
  const storage = navigator.storage;
  try { readiness.persisted = storage && storage.persisted ? await storage.persisted() : null; } catch { readiness.persisted = null; }
  try {
    const estimate = storage && storage.estimate ? await storage.estimate() : null;
    readiness.usage = estimate && estimate.usage != null ? estimate.usage : null;
    readiness.quota = estimate && estimate.quota != null ? estimate.quota : null;
  } catch { readiness.usage = readiness.quota = null; }
  render();
}

// The service worker registered, its install followed: an install that fails (no room for the copy)
// leaves it "redundant", which the page would otherwise never hear of.
export function install() {
  if (!("serviceWorker" in navigator)) { readiness.copy = "failed"; readiness.why = T("This browser cannot keep pages offline."); render(); return; }
  readiness.copy = "installing";
  navigator.serviceWorker.register("/keep/sw.js", { scope: "/keep/" }).then((reg) => {
    const follow = (/** @type {ServiceWorker | null} */ worker) => {
      if (!worker) return;
      worker.addEventListener("statechange", () => {
        if (worker.state === "redundant" && readiness.copy !== "ready") { readiness.copy = "failed"; check(); }
        if (worker.state === "activated") check();
      });
    };
    follow(reg.installing || reg.waiting);
    reg.addEventListener("updatefound", () => follow(reg.installing));
    if (reg.active && !reg.installing && !reg.waiting) check();
  }).catch(() => { readiness.copy = "failed"; check(); });
  navigator.serviceWorker.ready.then(() => { document.body.dataset.offlineReady = "1"; check(); }).catch(() => {});
}

/** @param {import("./keeper-engine.js").Engine} phoneEngine */
export function watch(phoneEngine) {
  engine = phoneEngine;
  engine.onChange(render);
  $("offline-persist")?.addEventListener("click", async () => {
    try { if (navigator.storage && navigator.storage.persist) await navigator.storage.persist(); } catch { /* not offered */ }
    check();
  });
  install();
  check();
}

/** @returns {"checking" | "ready" | "not-ready"} */
function verdict() {
  const free = readiness.quota != null && readiness.usage != null ? readiness.quota - readiness.usage : null;
  if (readiness.copy === "failed" || (engine && engine.failed)) return "not-ready";
  if (readiness.copy !== "ready" && free != null && free < wanted.bytes) return "not-ready";
  if (readiness.copy === "ready" && (!engine || engine.ready)) return "ready";
  return "checking";
}

function render() {
  const card = $("offline-card");
  const state = verdict();
  document.body.dataset.offline = state;
  const warn = $("offline-warn");
  if (warn) warn.hidden = state !== "not-ready";
  if (!card) return;
  const free = readiness.quota != null && readiness.usage != null ? Math.max(0, readiness.quota - readiness.usage) : null;
  const lines = [];
  // The offline copy
  if (readiness.copy === "ready") lines.push(["ok", T("Offline copy of the pages and the engine: saved on this phone ({size}).", { size: MB(wanted.bytes) })]);
  else if (readiness.copy === "failed" || (free != null && free < wanted.bytes)) {
    lines.push(["bad", free != null && free < wanted.bytes
      ? T("Offline copy: not saved. It needs {need} and this phone gives the page {free}.", { need: MB(wanted.bytes), free: MB(free) })
      : readiness.why || T("Offline copy: not saved. Free some space on this phone, then reload this page.")]);
  } else lines.push(["wait", T("Offline copy: saving {size}…", { size: MB(wanted.bytes) })]);
  // The phone's engine
  if (!engine || engine.failed) lines.push(["bad", T("The phone's engine is not available: sheets are kept with the server's engine, online only.")]);
  else if (engine.ready) lines.push(["ok", T("The phone's engine: ready (started in {s} s).", { s: num((engine.readyIn || 0) / 1000, 1) })]);
  else lines.push(["wait", T("The phone's engine: starting…")]);
  // The storage
  if (readiness.persisted) lines.push(["ok", T("Storage: kept by the browser until you delete it.")]);
  else lines.push(["warn", T("Storage: the browser may clear it when space runs short.")]);
  if (free != null && readiness.quota != null) lines.push(["info", T("Space for this site: {free} free of {quota}.", { free: MB(free), quota: MB(readiness.quota) })]);
  const head = state === "ready" ? T("This phone is ready to keep sheets offline.")
    : state === "not-ready" ? T("This phone is not ready to keep sheets offline.")
      : T("Getting this phone ready to keep sheets offline…");
  const list = el("ul", { class: "offline-list" });
  for (const [kind, text] of lines) list.append(el("li", { class: kind }, text));
  const summary = $("offline-summary");
  if (summary) { summary.textContent = head; summary.className = `offline-${state}`; }
  $("offline-lines")?.replaceChildren(list);
  const button = $("offline-persist");
  if (button) button.hidden = !!readiness.persisted || !(navigator.storage && navigator.storage.persist);
  card.dataset.state = state;
}
