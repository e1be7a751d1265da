// @ts-check
// The score-keeper's engine on the phone: Pyodide (served by the app from web/static/pyodide/, kept by
// the service worker) running the package's own rules, engine and keeper core (/keep/engine.zip, the
// same files as the server's). The page starts it from a blob of this file (a blob worker is answered
// by the page's service worker, so it starts with no network) and sends {type: "init", origin, engine}.
// Then messages {id, request: JSON} -> {id, reply: JSON}.
/* global loadPyodide */
/** @typedef {{unpackArchive: (data: ArrayBuffer, format: string) => void, pyimport: (name: string) => {call: Call}}} Pyodide the little of Pyodide this uses */
/** @typedef {(request: string) => string} Call the keeper core's entry (yambak.keeper.browser.call): a JSON request, a JSON reply */
/** @typedef {{type: "init", origin: string, engine: string}} Init where Pyodide and the engine are served */
/** @typedef {Init | {type?: undefined, id: number, request: string}} Incoming what the page sends */
/** @type {(options: {indexURL: string}) => Promise<Pyodide>} Pyodide's loader, defined by importScripts(pyodide.js) */
var loadPyodide;  // eslint-disable-line no-var
/** @type {Call | null} */
let call = null;
/** @type {(init: Init) => void} */
let start = () => {};
const started = new Promise((/** @type {(init: Init) => void} */ resolve) => { start = resolve; }).then(async ({ origin, engine }) => {
  importScripts(`${origin}/static/pyodide/pyodide.js`);
  const py = await loadPyodide({ indexURL: `${origin}/static/pyodide/` });
  const response = await fetch(new URL(engine, origin));
  if (!response.ok) throw new Error(`engine ${response.status}`);
  py.unpackArchive(await response.arrayBuffer(), "zip");
  const ready = py.pyimport("yambak.keeper.browser").call;
  call = ready;
  ready(JSON.stringify({ op: "stats", records: [] }));  // import and warm everything once
  self.postMessage({ type: "ready" });
}).catch((err) => { self.postMessage({ type: "failed", message: String(err && err.message || err) }); });

self.onmessage = async (/** @type {MessageEvent<Incoming | null>} */ e) => {
  const msg = e.data;
  if (!msg) return;
  if (msg.type === "init") { start(msg); return; }
  await started;
  const { id, request } = msg;
  if (!call) { self.postMessage({ id, reply: JSON.stringify({ ok: false, error: { code: "engine/unavailable", message: "the engine did not start" } }) }); return; }
  let reply;
  try { reply = call(request); } catch (err) { reply = JSON.stringify({ ok: false, error: { code: "engine/error", message: String(err) } }); }
  self.postMessage({ id, reply });
};
