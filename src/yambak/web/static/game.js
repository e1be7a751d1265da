// @ts-check
// A game on screen, shared by the live table and the kept sheet: the socket to its session (the one
// protocol of server/session/protocol.py), the players strip, and the sheet drawn from the view the
// engine made. Each page adds what it has alone (the table: dice, coach, clocks; the kept sheet: the
// pad, corrections, roll-offs) through a few callbacks; nothing here knows a rule.
import { boot, T, colon, N, colLabel, colShort, rowLabel, phrase, playerName, boxLabel as pageBoxLabel, $, el, setText, setAttr, toast } from "./page.js";
import { Sheet, sheetRows, sumCell, legend } from "./sheet.js";

/** @typedef {import("./protocol").TableView | import("./protocol").SheetView} View a game view (protocol.d.ts) */
/** @typedef {import("./protocol").TablePlayer | import("./protocol").SheetPlayer} Player a player of a view */
/** @typedef {import("./sheet.js").CellInfo} CellInfo what a box of the sheet shows and means */
/** @typedef {import("./sheet.js").SheetColumn & {seat: number, col: string}} GameColumn a column of the sheet: a seat's column */
/** Every message a game socket receives (the table's and the kept sheet's: protocol.d.ts).
 * @typedef {import("./protocol").Protocol["table_server"] | import("./protocol").Protocol["sheet_server"]} ServerMessage */
/** @typedef {import("./protocol").ErrorMessage} Refusal a coded refusal */
/** An action's answer: the message that carried its ref back, the refusal, or none (`lost`: the socket closed first).
 * @template {ServerMessage} M
 * @typedef {{ok: true, msg: Extract<M, {type: "event" | "events" | "state" | "ack"}>, error?: undefined, lost?: undefined}
 *   | {ok: false, error: Refusal, lost?: undefined}
 *   | {ok: false, lost: true, error?: undefined}} Answer */
/** What a page hears from its socket, each handler with the messages it is given (M: the page's protocol).
 * @template {ServerMessage} M
 * @typedef {object} SocketHandlers
 * @property {() => object} [hello] what the hello carries besides the version (tokens)
 * @property {(msg: Extract<M, {type: "welcome"}>) => void} [onWelcome]
 * @property {(msg: Extract<M, {type: "event" | "events" | "state"}>) => void} [onView] a view after an event, or missed ones
 * @property {(msg: Refusal) => void} [onRefused] a refusal no request waits for
 * @property {(msg: Exclude<M, {type: "welcome" | "event" | "events" | "state" | "error" | "pong"}>) => void} [onMessage] the rest
 * @property {(up: boolean, code?: number) => void} [onStatus]
 * @property {boolean} [reconnect] whether a lost socket connects again (default: yes) */
/** @param {View} view */
export const nCols = (view) => view.rules.columns.length;
// one-column sheets with up to six players show them side by side; others, one player's sheet at a time
/** @param {View} view */
export const onePerPlayer = (view) => nCols(view) === 1 && view.players.length <= 6;
/** @param {View} view @param {string} box */
export const boxLabel = (view, box) => pageBoxLabel(box, nCols(view));
// A refusal's code as the player reads it (boot.errors: the server's translations of every code).
/** @param {string} code @returns {string} */
export const reason = (code) => (boot.errors && boot.errors[code]) || T("Not available now.");

// --- the socket ------------------------------------------------------------------------------------
// hello (the last version seen) -> welcome and what was missed; then views after every event. An action
// sent with `request` carries a ref; its answer is the event that carries it back, an `ack` (an entry
// applied before), or a coded error with that ref. A lost socket reconnects with backoff.
/** @template {ServerMessage} M the messages of the page's protocol */
export class SessionSocket {
  /**
   * @param {string} path the socket's path (/ws/ID, /ws/keep/ID)
   * @param {SocketHandlers<M>} [handlers]
   */
  constructor(path, { hello = () => ({}), onWelcome = () => {}, onView = () => {}, onRefused = () => {}, onMessage = () => {}, onStatus = () => {}, reconnect = true } = {}) {
    this.path = path; this.hello = hello; this.reconnect = reconnect;
    this.onWelcome = onWelcome; this.onView = onView; this.onRefused = onRefused; this.onMessage = onMessage; this.onStatus = onStatus;
    /** @type {WebSocket | null} */ this.ws = null;
    /** @type {number | null} */ this.version = null;
    this.ready = false; this.stopped = false; this.retry = 500;
    /** @type {ReturnType<typeof setTimeout> | undefined} */ this.timer = undefined;
    /** @type {Map<string | number, (answer: Answer<M>) => void>} */ this.waiting = new Map();
    /** @type {Set<(ok: boolean) => void>} */ this.openers = new Set();
  }

  connect() {
    if (this.ws || this.stopped) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    try { this.ws = new WebSocket(`${proto}://${location.host}${this.path}`); } catch { this.later(); return; }
    this.ws.onopen = () => { this.retry = 500; this.send({ type: "hello", since: this.version, ...this.hello() }); };
    this.ws.onmessage = (m) => { let msg; try { msg = JSON.parse(m.data); } catch { return; } this.receive(/** @type {ServerMessage} */ (msg)); };
    this.ws.onclose = (e) => {
      this.ws = null; this.ready = false;
      for (const done of this.waiting.values()) done({ ok: false, lost: true });
      this.waiting.clear();
      this.settleOpeners(false);
      this.onStatus(false, e.code);
      if (this.stopped || !this.reconnect || e.code === 4404 || e.code === 4400) return;
      if (e.code === 4409) this.retry = 8000;  // too many sockets from this network: ask again, slowly
      this.later();
    };
  }

  later() { clearTimeout(this.timer); this.timer = setTimeout(() => this.connect(), this.retry); this.retry = Math.min(this.retry * 2, 8000); }

  // Closed by the page (a reconnect makes a new one): every request still waiting is answered `lost` (the
  // keeper's sender awaits it; unanswered, its queue stayed "Sending…" for good), every opener told no.
  close() {
    this.stopped = true; clearTimeout(this.timer);
    if (this.ws) { this.ws.onclose = null; this.ws.close(); this.ws = null; }
    this.ready = false;
    for (const done of this.waiting.values()) done({ ok: false, lost: true });
    this.waiting.clear();
    this.settleOpeners(false);
  }

  /** @param {object} msg */
  send(msg) { if (this.ws && this.ws.readyState === 1) { this.ws.send(JSON.stringify(msg)); return true; } return false; }

  // Send an action and wait for its answer: {ok: true, msg} or {ok: false, error} ({ok: false, lost: true}: no answer).
  /** @param {object} msg @param {string | number} ref @returns {Promise<Answer<M>>} */
  request(msg, ref) {
    if (!this.ready || !this.send({ ...msg, ref })) return Promise.resolve({ ok: false, lost: true });
    return new Promise((resolve) => this.waiting.set(ref, resolve));
  }

  // Resolves true once welcomed, false when the socket closes first or `ms` pass.
  /** @returns {Promise<boolean>} */
  opened(ms = 5000) {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.openers.delete(done); resolve(false); }, ms);
      const done = (/** @type {boolean} */ ok) => { clearTimeout(timer); resolve(ok); };
      this.openers.add(done);
    });
  }

  /** @param {boolean} ok */
  settleOpeners(ok) { for (const done of this.openers) done(ok); this.openers.clear(); }

  /** @param {string | number} ref @param {Answer<M>} result */
  answer(ref, result) { const done = this.waiting.get(ref); if (done) { this.waiting.delete(ref); done(result); } }

  // The one place a message meets its handler: the switch on its type narrows it; the page's protocol
  // (M) is the page's to say, so each handler takes it as given.
  /** @param {ServerMessage} msg */
  receive(msg) {
    const given = /** @type {any} */ (msg);
    switch (msg.type) {
      case "welcome": this.ready = true; this.onWelcome(given); this.onStatus(true); this.settleOpeners(true); break;
      case "event": case "events": case "state":
        this.version = msg.v;
        if (!msg.view) break;  // `events` without a view: nothing was missed, the view shown is current
        this.onView(given);
        if ("ref" in msg && msg.ref != null) this.answer(msg.ref, { ok: true, msg: given });
        for (const e of "events" in msg ? msg.events : []) if (e.ref != null) this.answer(e.ref, { ok: true, msg: given });
        break;
      case "ack": this.answer(msg.ref, { ok: true, msg: given }); this.onMessage(given); break;
      case "error": if (msg.ref != null && this.waiting.has(msg.ref)) this.answer(msg.ref, { ok: false, error: msg }); else this.onRefused(msg); break;
      case "pong": break;
      default: this.onMessage(given);
    }
  }
}

/** How a page draws its sheet: the seat shown (one sheet at a time), its open boxes, its classes and headers.
 * (Callbacks as methods: a page's own may take its own kind of player.)
 * @typedef {{tab: number | null, openCell(c: GameColumn, box: string, name: string, p: Player): CellInfo,
 *   columnClass?(c: GameColumn, perPlayer: boolean): string, headText?(column: string): string,
 *   cellClass?(c: GameColumn, box: string, cell: import("./protocol").Cell | undefined): string, winnerRow?: boolean,
 *   grand?: HTMLElement, legendHost?: HTMLElement}} RenderOptions */

// --- the players strip -------------------------------------------------------------------------------
// One chip per player: name, total, match points; the player to act marked; winners at the end. Side by
// side sheets make it a list; one sheet at a time makes it tabs (arrows move between them).
// `about(p)` adds what a page knows besides: {me, away, bot, clock, state} (state: "to play", "away", ...).
export class PlayerStrip {
  /** @param {HTMLElement} host @param {{onTab: (seat: number) => void, roleHost?: HTMLElement}} options */
  constructor(host, { onTab, roleHost = host }) { this.host = host; this.roleHost = roleHost; this.onTab = onTab; this.tabs = false; this.count = 0; }

  /** @param {View} view @param {{tab: number | null, toAct(p: Player): boolean, about?(p: Player): {me?: boolean, away?: boolean, clock?: string, state?: string}}} opts */
  render(view, { tab, toAct, about = () => ({}) }) {
    const asTabs = !onePerPlayer(view);
    this.tabs = asTabs; this.count = view.players.length;
    setAttr(this.roleHost, "role", asTabs ? "tablist" : "list");
    const winners = view.finished ? view.winners || [] : [];
    const chips = this.host;
    while (chips.children.length > view.players.length) chips.lastChild?.remove();
    view.players.forEach((p, i) => {
      let chip = /** @type {HTMLElement} */ (chips.children[i]);
      if (!chip) {
        chip = el("button", { type: "button", class: "chip", id: `chip-${i}`, "data-seat": String(i) });
        // its name is its text (what it shows, then what only a screen reader needs: bot, to play, away)
        chip.append(el("span", { class: "presence", "aria-hidden": "true" }), el("span", { class: "name" }), el("span", { class: "bot sr-only" }),
          el("span", { class: "me" }), el("span", { class: "total" }), el("span", { class: "pts" }), el("span", { class: "clock" }),
          el("span", { class: "state sr-only" }));
        chip.onclick = () => { if (this.tabs) this.onTab(i); };
        chip.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
          const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
          if (!step || !this.tabs) return;
          e.preventDefault();
          const next = (i + step + this.count) % this.count;
          this.onTab(next);
          $(`chip-${next}`).focus();
        });
        chips.append(chip);
      }
      const more = about(p);
      const acting = !view.finished && toAct(p);
      // match points at the end; Balut's category points as they stand while the game runs (the engine's)
      const running = p.match_points ?? (p.category_points ? p.category_points.points : null);
      const pts = running != null ? N("{n} pt", "{n} pts", running) : "";
      const part = (/** @type {string} */ name) => /** @type {Element} */ (chip.querySelector(name));
      setText(part(".name"), playerName(p));
      setText(part(".me"), more.me ? T("you") : "");
      setText(part(".total"), p.total == null ? "–" : String(p.total));
      setText(part(".pts"), pts);
      setText(part(".clock"), more.clock || "");
      chip.classList.toggle("to-act", acting);
      chip.classList.toggle("winner", winners.includes(p.seat));
      chip.classList.toggle("away", !!more.away);
      const bot = "kind" in p && p.kind === "bot";
      chip.classList.toggle("is-bot", bot);
      setAttr(chip, "role", asTabs ? "tab" : "listitem");
      setAttr(chip, "aria-selected", asTabs ? String(i === tab) : null);
      setAttr(chip, "aria-controls", asTabs ? "sheet-panel" : null);
      setAttr(chip, "tabindex", asTabs ? (i === tab ? "0" : "-1") : null);
      const state = more.state ?? (acting ? T("to play") : "");
      setText(part(".bot"), bot ? ` (${T("bot")})` : "");
      setText(part(".state"), state ? ` (${state})` : "");
    });
    chips.dataset.n = String(view.players.length);
  }
}

// --- the sheet -----------------------------------------------------------------------------------------
// The shared Sheet component fed from a view: one column per player on side-by-side sheets, else the
// chosen player's columns. Filled boxes, sums, Yamb's minimax line and the column winners are drawn the
// same everywhere; an open box is the page's (`openCell`: the table's outlook of the dice rolled, the kept
// sheet's preview of the dice typed). A tap on a box the page made playable calls `onAction`; any other
// tap says why not.
export class GameSheet {
  /** @param {HTMLElement} host @param {{onAction(action: any, info: CellInfo): void}} options */
  constructor(host, { onAction }) {
    /** @type {View | null} */
    this.view = null;
    // a header's tap: what the column is (or whose, on side-by-side sheets)
    this.sheet = new Sheet(host, { onActivate: (info) => this.tap(info), onHeader: (full, key) => toast((this.view && columnHelp(this.view, key)) || full, 6000) });
    this.onAction = onAction;
  }

  /** @param {CellInfo | undefined} info */
  tap(info) {
    if (!info) return;
    if (info.action) { this.onAction(info.action, info); return; }
    if (info.why) toast(info.why);
  }

  get shape() { return this.sheet.shape; }

  /** @param {View} view
   * @param {RenderOptions} opts */
  render(view, opts) {
    this.view = view;
    const rules = view.rules;
    const perPlayer = onePerPlayer(view);
    const tab = opts.tab ?? 0;
    const seats = perPlayer ? view.players.map((p) => p.seat) : [tab];
    /** @type {GameColumn[]} */
    const columns = [];
    for (const s of seats) for (const c of rules.columns) {
      const p = view.players[s];
      const name = playerName(p);
      /** @type {GameColumn} */
      const col = { key: perPlayer ? `p${s}` : c.id, seat: s, col: c.id, short: "", full: "" };
      col.short = perPlayer ? name : (opts.headText ? opts.headText(c.id) : colShort(c.id));
      col.full = perPlayer ? name : colLabel(c.id);
      col.cls = (opts.columnClass && opts.columnClass(col, perPlayer)) || null;
      columns.push(col);
    }
    const rows = sheetRows(view, perPlayer);
    if (opts.winnerRow && rules.match === "column_points" && view.players.length > 1 && !perPlayer) {
      rows.push({ key: "#winner", label: view.finished ? T("Column winner") : T("Leading"), sum: true, cls: "winner-row" });
    }
    const byKey = Object.fromEntries(columns.map((c) => [c.key, c]));
    const label = perPlayer ? T("Score sheet") : T("Sheet of {name}", { name: view.players[tab].name });
    this.sheet.render({
      label, columns, rows,
      corner: perPlayer || view.players.length < 2 ? "" : view.players[tab].name,
      cell: (colKey, rowKey) => this.cell(view, byKey[colKey], rowKey, perPlayer, opts),
    });
    const table = this.sheet.table;  // the component names the grid when it builds it only
    if (table) setAttr(table, "aria-label", label);
    const g = opts.grand;
    if (g) {
      const p = view.players[tab];
      const parts = [];
      if (!perPlayer) {
        parts.push(colon(T("Total"), p.total ?? "–"));
        if (p.match_points != null) parts.push(colon(T("Match points"), p.match_points));
        else if (p.category_points) parts.push(colon(T("Points so far"), p.category_points.points));
      }
      setText(g, parts.join(" · "));
      g.hidden = !parts.length;
    }
    if (opts.legendHost) {
      const keyText = perPlayer ? "" : legend(columns);
      setText(opts.legendHost, keyText);
      opts.legendHost.hidden = !keyText;
    }
    return { perPlayer, columns };
  }

  /** @param {View} view @param {GameColumn} c @param {string} rowKey @param {boolean} perPlayer @param {RenderOptions} opts @returns {CellInfo} */
  cell(view, c, rowKey, perPlayer, opts) {
    const p = view.players[c.seat];
    const col = p.columns[c.col];
    if (rowKey === "#minimax") {
      if (col.minimax == null) return { text: "" };
      const [hi, lo, f] = col.minimax_of || [];
      return { text: String(col.minimax), sub: col.minimax_of ? `(${hi}−${lo})×${f}` : "",
        label: col.minimax_of ? T("(Max − Min) × Ones") + `: (${hi} − ${lo}) × ${f} = ${col.minimax}` : String(col.minimax) };
    }
    if (rowKey === "#winner") {
      const won = (view.column_winners || {})[c.col] || [];
      const names = won.map((/** @type {number} */ s) => view.players[s].name);
      const due = "rolloff_due" in view && view.rolloff_due && view.rolloff_due[c.col];
      return { text: due ? "⚄?" : names.length === 1 ? names[0] : names.length ? "=" : "", tdCls: won.includes(c.seat) ? "win" : "",
        label: due ? T("Roll-off for {column}", { column: colLabel(c.col) }) : names.join(", ") };
    }
    if (rowKey.startsWith("#")) return sumCell(view, rowKey, p, col, perPlayer);
    const box = `${c.col}.${rowKey}`;
    const name = `${perPlayer && view.players.length > 1 ? p.name + ", " : ""}${boxLabel(view, box)}`;
    const cell = col.boxes[rowKey];
    const info = cell && cell.score != null || cell && cell.hidden ? filledCell(view, box, name, cell) : opts.openCell(c, box, name, p);
    const extra = opts.cellClass && opts.cellClass(c, box, cell);
    if (extra) info.cls = `${info.cls || ""} ${extra}`.trim();
    if (cell && cell.score != null && (p.stand_in || []).includes(box)) {  // filled by the stand-in: shown to all
      const by = T("played by the bot");
      info.cls = `${info.cls || ""} stand-in`.trim();
      info.label = `${info.label || name} · ${by}`;
      info.why = colon(boxLabel(view, box), by);
    }
    info.data = { seat: String(c.seat), ...(info.data || {}) };
    return info;
  }
}

// What a column header says on a tap: the column's full name, how it fills and when (the rule describer's
// notes in the layout), and what winning it is worth; where the sheet has one column per player, the player.
/** @param {View} view @param {string} key @returns {string} */
export function columnHelp(view, key) {
  const c = view.rules.columns.find((x) => x.id === key);
  if (!c) {
    const p = view.players[Number(String(key).slice(1))];
    return p ? colon(p.name, p.total ?? "–") : "";
  }
  const parts = (c.notes || []).map((note) => phrase(note, (named) => ("row" in named ? rowLabel(named.row) : colLabel(named.column || ""))));
  if (view.rules.match === "column_points" && c.points) parts.push(`${N("{n} match point", "{n} match points", c.points)}.`);
  return colon(colLabel(c.id), parts.join(" "));
}

// A box already filled (or hidden from this viewer), in the sheet's one vocabulary (yambak/gameview.py).
/** @param {View} view @param {string} box @param {string} name @param {import("./protocol").Cell} cell @returns {CellInfo} */
export function filledCell(view, box, name, cell) {
  const filled = T("{box} is already filled.", { box: boxLabel(view, box) });
  if (cell.hidden) return { text: "▒", cls: "hidden", disabled: true, label: colon(name, T("hidden until you finish this round")), box, why: T("Hidden until you finish this round.") };
  if (cell.why === "struck") return { text: "×", cls: "filled struck", disabled: true, label: T("{box}: struck", { box: name }), box, why: filled };
  if (cell.why === "minimax") {  // Yamb's min and max: their sums count through (max − min) × ones
    return { text: String(cell.written), cls: "filled folded", disabled: true, box, why: filled,
      label: T("{box}: {written}, counted in (Max − Min) × Ones", { box: name, written: cell.written }) };
  }
  if (cell.why === "zeroed") {
    return { text: String(cell.score), sub: String(cell.written), cls: "filled", disabled: true, box, why: filled,
      label: T("{box}: {score} (written {written})", { box: name, score: cell.score, written: cell.written }) };
  }
  if (cell.roll != null) {  // points by roll: written after an early roll that pays more (Generala's served straight)
    const rule = T("the points of roll {n}", { n: cell.roll });
    return { text: String(cell.score), sub: T("roll {n}", { n: cell.roll }), cls: "filled by-roll", disabled: true, box,
      why: `${filled} ${colon(boxLabel(view, box), rule)}`, label: `${colon(name, cell.score)} (${rule})` };
  }
  return { text: String(cell.score), cls: "filled", disabled: true, label: colon(name, cell.score), box, why: filled };
}

// An open box the dice could fill, as both pages offer it: the value it would write, what it does to the
// total, and a warning where it zeroes a pair or voids the entry (the engine's outlook or preview `o`).
/** @param {string} box @param {string} name @param {import("./protocol").BoxOutlook} o
 * @param {{action: any, cls?: string, data?: Record<string, string>}} options @returns {CellInfo} */
export function playableCell(box, name, o, { action, cls = "", data = {} }) {
  const warn = o.zeroes_pair || o.voids_entry;
  const classes = ["legal", o.written === 0 ? "zero" : "", warn ? "warn" : "", cls].filter(Boolean).join(" ");
  let label = T("Score {value} in {box}", { value: o.written, box: name });
  if (o.gain != null && o.gain !== o.written) label += ` (${T("total {sign}{n}", { sign: o.gain >= 0 ? "+" : "−", n: Math.abs(o.gain) })})`;
  if (warn) label += `. ${o.zeroes_pair ? T("Zeroes the pair.") : T("Scores 0: min must stay below max.")}`;
  return { text: String(o.written), cls: classes, label, box, action, data };
}
