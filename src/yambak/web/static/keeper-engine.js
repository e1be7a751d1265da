// @ts-check
// The phone's own engine: the package's rules, engine and keeper core, unchanged, running under
// Pyodide in a Web Worker (keeper-worker.js). Requests are JSON in, JSON out; until the engine is
// ready they wait; if it cannot start (no Pyodide on the server, an old phone) `failed` says so and
// the page keeps its sheets with the server's engine alone.
/** @typedef {{ok: boolean, error?: any, [field: string]: any}} Reply an answer of the engine: {ok: true, ...} or {ok: false, error} */
export class Engine {
  /** @param {string | null} zipUrl the engine's zip (none: Pyodide is not served) */
  constructor(zipUrl) {
    this.ready = false; this.failed = !zipUrl || typeof Worker === "undefined"; this.seq = 0;
    /** @type {Map<number, (reply: Reply) => void>} */ this.waiting = new Map();
    /** @type {(() => void)[]} */ this.listeners = [];
    /** @type {number | null} */ this.readyIn = null;
    /** @type {Worker | null} */ this.worker = null;
    /** @type {{id: number, request: string}[] | null} the requests made before the worker started */
    this.queued = [];
    /** @type {unknown} */ this.why = null;
    this.started = Date.now();
    if (this.failed || !zipUrl) return;
    this.start(zipUrl);
  }

  // The worker runs from a blob of /keep/worker.js: a blob worker is answered by the page's service
  // worker (Pyodide and the engine come from its copies when there is no network).
  /** @param {string} zipUrl */
  async start(zipUrl) {
    try {
      const r = await fetch("/keep/worker.js");
      if (!r.ok) throw new Error(`worker ${r.status}`);
      const url = URL.createObjectURL(new Blob([await r.text()], { type: "text/javascript" }));
      this.worker = new Worker(url);
    } catch (err) { this.fail(String(err)); return; }
    const worker = this.worker;
    worker.onmessage = (e) => this.receive(e.data);
    worker.onerror = () => this.fail("worker error");
    worker.postMessage({ type: "init", origin: location.origin, engine: zipUrl });
    for (const m of this.queued || []) worker.postMessage(m);
    this.queued = null;
  }

  /** @param {{type?: string, message?: string, id?: number, reply?: string}} msg the worker's (keeper-worker.js) */
  receive(msg) {
    if (msg.type === "ready") {
      this.ready = true; this.readyIn = Date.now() - this.started;
      document.body.dataset.engine = "ready";
      this.notify();
    } else if (msg.type === "failed") this.fail(msg.message);
    else if (msg.id != null && this.waiting.has(msg.id)) {
      const done = /** @type {(reply: Reply) => void} */ (this.waiting.get(msg.id)); this.waiting.delete(msg.id);
      let reply;
      try { reply = JSON.parse(msg.reply || ""); } catch { reply = { ok: false, error: { code: "engine/error", message: "bad reply" } }; }
      done(reply);
    }
  }

  /** @param {unknown} why */
  fail(why) {
    if (this.failed && !this.ready) { /* already reported */ }
    this.failed = true; this.ready = false; this.why = why;
    document.body.dataset.engine = "failed";
    for (const done of this.waiting.values()) done({ ok: false, error: { code: "engine/unavailable", message: String(why) } });
    this.waiting.clear();
    this.notify();
  }

  /** @param {() => void} fn */
  onChange(fn) { this.listeners.push(fn); }
  notify() { for (const fn of this.listeners) fn(); }

  // One request: {ok: true, ...} or {ok: false, error}. Never rejects.
  /** @param {string} op @param {object} [payload] @returns {Promise<Reply>} */
  call(op, payload = {}) {
    if (this.failed) return Promise.resolve({ ok: false, error: { code: "engine/unavailable", message: String(this.why || "") } });
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      const msg = { id, request: JSON.stringify({ op, ...payload }) };
      if (this.queued) this.queued.push(msg); else this.worker?.postMessage(msg);
    });
  }
}
