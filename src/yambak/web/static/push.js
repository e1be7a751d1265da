// @ts-check
// Web Push from the page's side: with notifications allowed, this browser subscribes (through the push
// service worker, /push-sw.js) and hands the subscription to the server for the device's profile, so that
// a turn at an asynchronous table reaches the player with no page open. Everything here may fail (no
// push service reachable, no profile yet, a browser without Push): the page goes on as before, quietly.

/** @param {string} text base64url @returns {Uint8Array<ArrayBuffer>} */
function bytes(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** @param {ServiceWorkerRegistration} reg @returns {Promise<void>} once it has an active worker */
function activated(reg) {
  if (reg.active) return Promise.resolve();
  const worker = reg.installing || reg.waiting;
  return new Promise((resolve, reject) => {
    if (!worker) { reject(new Error("no worker")); return; }
    worker.addEventListener("statechange", () => {
      if (worker.state === "activated") resolve();
      else if (worker.state === "redundant") reject(new Error("redundant"));
    });
  });
}

/** @type {Promise<boolean> | null} */
let started = null;

/** Subscribe this browser to the server's pushes (once per page); true when the server has it. */
export function subscribePush() {
  if (!started) started = subscribe().catch(() => false);
  return started;
}

async function subscribe() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.Notification
      || Notification.permission !== "granted") return false;
  const reg = await navigator.serviceWorker.register("/push-sw.js", { scope: "/" });
  await activated(reg);
  const answer = await fetch("/api/push/key");
  if (!answer.ok) return false;
  const key = bytes((await answer.json()).key);
  let sub = await reg.pushManager.getSubscription();
  const had = sub && sub.options.applicationServerKey ? new Uint8Array(sub.options.applicationServerKey) : null;
  if (sub && !(had && had.length === key.length && had.every((b, i) => b === key[i]))) {
    await sub.unsubscribe();  // made for another key: the server could not sign for it
    sub = null;
  }
  sub = sub || await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  const sent = await fetch("/api/push/subscribe", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(sub.toJSON()),
  });
  return sent.ok;
}
