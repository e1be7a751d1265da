// @ts-check
// The push service worker (served as /push-sw.js, its scope the whole site): shows what the server pushes
// (your turn at an asynchronous table) as a notification, and a tap on it opens that table, in a tab
// already showing it if there is one. It answers no request: pages load as if it were not there.
/** @type {ServiceWorkerGlobalScope} */
const pushSw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));  // a worker global, as this file runs

pushSw.addEventListener("install", () => { pushSw.skipWaiting(); });
pushSw.addEventListener("activate", (e) => { e.waitUntil(pushSw.clients.claim()); });

/** Only a path of this site: a push cannot send the player anywhere else. @param {unknown} url */
const sitePath = (url) => {
  if (typeof url !== "string" || !url.startsWith("/")) return "/";
  try {
    const to = new URL(url, pushSw.location.origin);  // as the browser reads it ("/\\x", "/\t/x" leave the site)
    return to.origin === pushSw.location.origin ? to.pathname + to.search : "/";
  } catch { return "/"; }
};

pushSw.addEventListener("push", (e) => {
  /** @type {Record<string, unknown>} */
  let data = {};
  try { data = e.data ? e.data.json() : {}; } catch { /* not JSON: the plain notification below */ }
  /** A pushed text, cut short, or the fallback. @param {unknown} v @param {string} fallback @returns {string} */
  const text = (v, fallback) => (typeof v === "string" && v ? v.slice(0, 200) : fallback);
  e.waitUntil(pushSw.registration.showNotification(text(data.title, "yambak"), {
    body: text(data.body, ""),
    tag: text(data.tag, "yambak"),
    icon: "/static/keeper-icon.svg",
    data: { url: sitePath(data.url) },
  }));
});

pushSw.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const url = new URL(sitePath(e.notification.data && e.notification.data.url), pushSw.location.origin);
  e.waitUntil(pushSw.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
    const open = tabs.find((t) => new URL(t.url).pathname === url.pathname);
    return open ? open.focus() : pushSw.clients.openWindow(url.href);
  }));
});

// The browser replaced the subscription (it expired, or was renewed): tell the server the new one.
/** @typedef {ExtendableEvent & {oldSubscription?: PushSubscription | null}} SubscriptionChange (not in TypeScript's lib) */
pushSw.addEventListener("pushsubscriptionchange", (/** @type {Event} */ event) => {
  const e = /** @type {SubscriptionChange} */ (event);
  const options = e.oldSubscription ? e.oldSubscription.options : null;
  if (!options) return;
  e.waitUntil(pushSw.registration.pushManager.subscribe(options).then((sub) => fetch("/api/push/subscribe", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(sub.toJSON()),
  })).catch(() => { /* the page subscribes again when next opened */ }));
});
