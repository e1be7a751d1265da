// @ts-check
// The phone's own engine: the package's rules, engine and keeper core, unchanged, running under
// Pyodide in a Web Worker (keeper-worker.js). Requests are JSON in, JSON out; until the engine is
// ready they wait; if it cannot start (no Pyodide on the server, an old phone) `failed` says so and
// the page keeps its sheets with the server's engine alone.
export class Engine {
  constructor(zipUrl) {
    this.ready = false; this.failed = !zipUrl || typeof Worker === "undefined"; this.seq = 0;
    this.waiting = new Map(); this.listeners = [];
    this.started = Date.now(); this.readyIn = null;
    if (this.failed) return;
    this.queued = [];
    this.start(zipUrl);
  }

  // The worker runs from a blob of /keep/worker.js: a blob worker is answered by the page's service
  // worker (Pyodide and the engine come from its copies when there is no network).
  async start(zipUrl) {
    try {
      const r = await fetch("/keep/worker.js");
      if (!r.ok) throw new Error(`worker ${r.status}`);
      const url = URL.createObjectURL(new Blob([await r.text()], { type: "text/javascript" }));
      this.worker = new Worker(url);
    } catch (err) { this.fail(String(err)); return; }
    this.worker.onmessage = (e) => this.receive(e.data);
    this.worker.onerror = () => this.fail("worker error");
    this.worker.postMessage({ type: "init", origin: location.origin, engine: zipUrl });
    for (const m of this.queued) this.worker.postMessage(m);
    this.queued = null;
  }

  receive(msg) {
    if (msg.type === "ready") {
      this.ready = true; this.readyIn = Date.now() - this.started;
      document.body.dataset.engine = "ready";
      this.notify();
    } else if (msg.type === "failed") this.fail(msg.message);
    else if (msg.id != null && this.waiting.has(msg.id)) {
      const done = this.waiting.get(msg.id); this.waiting.delete(msg.id);
      let reply;
      try { reply = JSON.parse(msg.reply); } catch { reply = { ok: false, error: { code: "engine/error", message: "bad reply" } }; }
      done(reply);
    }
  }

  fail(why) {
    if (this.failed && !this.ready) { /* already reported */ }
    this.failed = true; this.ready = false; this.why = why;
    document.body.dataset.engine = "failed";
    for (const done of this.waiting.values()) done({ ok: false, error: { code: "engine/unavailable", message: String(why) } });
    this.waiting.clear();
    this.notify();
  }

  onChange(fn) { this.listeners.push(fn); }
  notify() { for (const fn of this.listeners) fn(); }

  // One request: {ok: true, ...} or {ok: false, error}. Never rejects.
  call(op, payload = {}) {
    if (this.failed) return Promise.resolve({ ok: false, error: { code: "engine/unavailable", message: String(this.why || "") } });
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      const msg = { id, request: JSON.stringify({ op, ...payload }) };
      if (this.queued) this.queued.push(msg); else this.worker.postMessage(msg);
    });
  }
}
