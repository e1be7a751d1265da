// @ts-check
// The score-keeper's service worker: the keeper page, its scripts, Pyodide and the engine, kept so that a
// phone opens the keeper, starts a sheet and keeps it with no network at all. The server fills in the
// version (a hash of everything kept: a change anywhere fetches it all anew) and the list of files.
// Pages: network first, the kept copy when the network is gone (a sheet's page falls back to the start
// page, which opens the sheet from the phone's memory). Pyodide and the engine: kept copies first (they
// change only with the version). Live data (/api, /ws) is never kept here: the page keeps its own sheets.
/** @type {ServiceWorkerGlobalScope} */
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));  // a worker global, as this file runs
const VERSION = "__VERSION__";
const CACHE = `yambak-keep-${VERSION}`;
const FILES = ["__FILES__"];
const SHELL = "/keep/";

sw.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll([SHELL, ...FILES])).then(() => sw.skipWaiting()));
});

sw.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("yambak-keep-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => sw.clients.claim()));
});

/** Keeps a copy of a good answer of this site, and gives the answer on. @param {Request} req @param {Response} res @returns {Response} */
const keep = (req, res) => {
  if (res.ok && res.type === "basic") { const copy = res.clone(); caches.open(CACHE).then((c) => c.put(req, copy)); }
  return res;
};
const offline = () => new Response("offline", { status: 503, headers: { "content-type": "text/plain" } });

sw.addEventListener("fetch", (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== sw.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return;
  if (url.pathname.startsWith("/static/pyodide/") || url.pathname === "/keep/engine.zip") {
    e.respondWith(caches.match(req).then((hit) => hit || fetch(req).then((res) => keep(req, res))));
    return;
  }
  if (req.mode === "navigate" && url.pathname.startsWith("/keep")) {
    e.respondWith(fetch(req).then((res) => (res.status === 404 ? res : keep(req, res)))
      .catch(() => caches.match(req, { ignoreSearch: true }).then((hit) => hit || caches.match(SHELL)).then((hit) => hit || offline())));
    return;
  }
  if (!(url.pathname.startsWith("/keep") || url.pathname.startsWith("/static/"))) return;
  e.respondWith(fetch(req).then((res) => keep(req, res))
    .catch(() => caches.match(req, { ignoreSearch: true }).then((hit) => hit || offline())));
});
