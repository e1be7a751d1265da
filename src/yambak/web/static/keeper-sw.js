// The score-keeper's service worker: the keeper pages and their assets keep working offline.
// Network first (always fresh online), the cache when the network is gone. Live data (/api, /ws)
// is never cached here: the page keeps its own last view and its queue of entries.
const CACHE = "yambak-keep-v2";
const ASSETS = ["/static/style.css", "/static/keeper.js", "/static/page.js", "/static/keeper-icon.svg", "/keep/manifest.webmanifest", "/keep/"];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(ASSETS)).catch(() => null).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("yambak-keep-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return;
  if (!(url.pathname.startsWith("/keep") || url.pathname.startsWith("/static/"))) return;
  e.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok && res.type === "basic") {
          const copy = res.clone();
          caches.open(CACHE).then((c) => c.put(req, copy));
        }
        return res;
      })
      .catch(() => caches.match(req, { ignoreSearch: true })
        .then((hit) => hit || new Response("offline", { status: 503, headers: { "content-type": "text/plain" } }))),
  );
});
