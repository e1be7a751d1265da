// @ts-check
// A game on screen, shared by the live table and the kept sheet: the socket to its session (the one
// protocol of server/session/protocol.py), the players strip, and the sheet drawn from the view the
// engine made. Each page adds what it has alone (the table: dice, coach, clocks; the kept sheet: the
// pad, corrections, roll-offs) through a few callbacks; nothing here knows a rule.
import { boot, T, colon, N, colLabel, colShort, rowLabel, phrase, playerName, boxLabel as pageBoxLabel, $, el, setText, setAttr, toast } from "./page.js";
import { Sheet, sheetRows, sumCell, legend } from "./sheet.js";

/** @typedef {import("./protocol").TableView | import("./protocol").SheetView} View a game view (protocol.d.ts) */
/** @param {View} view */
export const nCols = (view) => view.rules.columns.length;
// one-column sheets with up to six players show them side by side; others, one player's sheet at a time
/** @param {View} view */
export const onePerPlayer = (view) => nCols(view) === 1 && view.players.length <= 6;
/** @param {View} view @param {string} box */
export const boxLabel = (view, box) => pageBoxLabel(box, nCols(view));
// A refusal's code as the player reads it (boot.errors: the server's translations of every code).
export const reason = (code) => (boot.errors && boot.errors[code]) || T("Not available now.");

// --- the socket ------------------------------------------------------------------------------------
// hello (the last version seen) -> welcome and what was missed; then views after every event. An action
// sent with `request` carries a ref; its answer is the event that carries it back, an `ack` (an entry
// applied before), or a coded error with that ref. A lost socket reconnects with backoff.
export class SessionSocket {
  /**
   * @param {string} path the socket's path (/ws/ID, /ws/keep/ID)
   * @param {{hello?: () => object, onWelcome?: (msg: any) => void, onView?: (msg: any) => void, onRefused?: (msg: any) => void,
   *   onMessage?: (msg: any) => void, onStatus?: (up: boolean, code?: number) => void, reconnect?: boolean}} [handlers]
   */
  constructor(path, { hello = () => ({}), onWelcome = () => {}, onView = () => {}, onRefused = () => {}, onMessage = () => {}, onStatus = () => {}, reconnect = true } = {}) {
    this.path = path; this.hello = hello; this.reconnect = reconnect;
    this.onWelcome = onWelcome; this.onView = onView; this.onRefused = onRefused; this.onMessage = onMessage; this.onStatus = onStatus;
    this.ws = null; this.version = null; this.ready = false; this.stopped = false;
    this.retry = 500; this.timer = null; this.waiting = new Map(); this.openers = new Set();
  }

  connect() {
    if (this.ws || this.stopped) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    try { this.ws = new WebSocket(`${proto}://${location.host}${this.path}`); } catch { this.later(); return; }
    this.ws.onopen = () => { this.retry = 500; this.send({ type: "hello", since: this.version, ...this.hello() }); };
    this.ws.onmessage = (m) => { let msg; try { msg = JSON.parse(m.data); } catch { return; } this.receive(msg); };
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

  close() { this.stopped = true; clearTimeout(this.timer); if (this.ws) { this.ws.onclose = null; this.ws.close(); this.ws = null; } this.ready = false; }

  send(msg) { if (this.ws && this.ws.readyState === 1) { this.ws.send(JSON.stringify(msg)); return true; } return false; }

  // Send an action and wait for its answer: {ok: true, msg} or {ok: false, error} ({ok: false, lost: true}: no answer).
  request(msg, ref) {
    if (!this.ready || !this.send({ ...msg, ref })) return Promise.resolve({ ok: false, lost: true });
    return new Promise((resolve) => this.waiting.set(ref, resolve));
  }

  // Resolves true once welcomed, false when the socket closes first or `ms` pass.
  opened(ms = 5000) {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.openers.delete(done); resolve(false); }, ms);
      const done = (ok) => { clearTimeout(timer); resolve(ok); };
      this.openers.add(done);
    });
  }

  settleOpeners(ok) { for (const done of this.openers) done(ok); this.openers.clear(); }

  answer(ref, result) { const done = this.waiting.get(ref); if (done) { this.waiting.delete(ref); done(result); } }

  receive(msg) {
    switch (msg.type) {
      case "welcome": this.ready = true; this.onWelcome(msg); this.onStatus(true); this.settleOpeners(true); break;
      case "event": case "events": case "state":
        this.version = msg.v;
        if (!msg.view) break;  // `events` without a view: nothing was missed, the view shown is current
        this.onView(msg);
        if (msg.ref != null) this.answer(msg.ref, { ok: true, msg });
        for (const e of msg.events || []) if (e.ref != null) this.answer(e.ref, { ok: true, msg });
        break;
      case "ack": this.answer(msg.ref, { ok: true, msg }); this.onMessage(msg); break;
      case "error": if (msg.ref != null && this.waiting.has(msg.ref)) this.answer(msg.ref, { ok: false, error: msg }); else this.onRefused(msg); break;
      case "pong": break;
      default: this.onMessage(msg);
    }
  }
}

// --- the players strip -------------------------------------------------------------------------------
// One chip per player: name, total, match points; the player to act marked; winners at the end. Side by
// side sheets make it a list; one sheet at a time makes it tabs (arrows move between them).
// `about(p)` adds what a page knows besides: {me, away, bot, clock, state} (state: "to play", "away", ...).
export class PlayerStrip {
  constructor(host, { onTab, roleHost = host }) { this.host = host; this.roleHost = roleHost; this.onTab = onTab; this.tabs = false; this.count = 0; }

  /** @param {View} view @param {{tab: number, toAct: (p: any) => boolean, about?: (p: any) => {me?: boolean, away?: boolean, clock?: string, state?: string}}} opts */
  render(view, { tab, toAct, about = () => ({}) }) {
    const asTabs = !onePerPlayer(view);
    this.tabs = asTabs; this.count = view.players.length;
    setAttr(this.roleHost, "role", asTabs ? "tablist" : "list");
    const winners = view.finished ? view.winners || [] : [];
    const chips = this.host;
    while (chips.children.length > view.players.length) chips.lastChild.remove();
    view.players.forEach((p, i) => {
      let chip = chips.children[i];
      if (!chip) {
        chip = el("button", { type: "button", class: "chip", id: `chip-${i}`, "data-seat": String(i) });
        // its name is its text (what it shows, then what only a screen reader needs: bot, to play, away)
        chip.append(el("span", { class: "presence", "aria-hidden": "true" }), el("span", { class: "name" }), el("span", { class: "bot sr-only" }),
          el("span", { class: "me" }), el("span", { class: "total" }), el("span", { class: "pts" }), el("span", { class: "clock" }),
          el("span", { class: "state sr-only" }));
        chip.onclick = () => { if (this.tabs) this.onTab(i); };
        chip.addEventListener("keydown", (e) => {
          const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
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
      const pts = p.match_points != null ? N("{n} pt", "{n} pts", p.match_points) : "";
      setText(chip.querySelector(".name"), playerName(p));
      setText(chip.querySelector(".me"), more.me ? T("you") : "");
      setText(chip.querySelector(".total"), p.total == null ? "–" : String(p.total));
      setText(chip.querySelector(".pts"), pts);
      setText(chip.querySelector(".clock"), more.clock || "");
      chip.classList.toggle("to-act", acting);
      chip.classList.toggle("winner", winners.includes(p.seat));
      chip.classList.toggle("away", !!more.away);
      chip.classList.toggle("is-bot", p.kind === "bot");
      setAttr(chip, "role", asTabs ? "tab" : "listitem");
      setAttr(chip, "aria-selected", asTabs ? String(i === tab) : null);
      setAttr(chip, "aria-controls", asTabs ? "sheet-panel" : null);
      setAttr(chip, "tabindex", asTabs ? (i === tab ? "0" : "-1") : null);
      const state = more.state ?? (acting ? T("to play") : "");
      setText(chip.querySelector(".bot"), p.kind === "bot" ? ` (${T("bot")})` : "");
      setText(chip.querySelector(".state"), state ? ` (${state})` : "");
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
  constructor(host, { onAction }) {
    /** @type {View | null} */
    this.view = null;
    // a header's tap: what the column is (or whose, on side-by-side sheets)
    this.sheet = new Sheet(host, { onActivate: (info) => this.tap(info), onHeader: (full, key) => toast((this.view && columnHelp(this.view, key)) || full, 6000) });
    this.onAction = onAction;
  }

  tap(info) {
    if (!info) return;
    if (info.action) { this.onAction(info.action, info); return; }
    if (info.why) toast(info.why);
  }

  get shape() { return this.sheet.shape; }

  /** @param {View} view
   * @param {{tab: number, openCell: (c: any, box: string, name: string, p: any) => any, columnClass?: (c: any, perPlayer: boolean) => string,
   *   headText?: (column: string) => string, cellClass?: (c: any, box: string, cell: any) => string, winnerRow?: boolean,
   *   grand?: HTMLElement, legendHost?: HTMLElement}} opts */
  render(view, opts) {
    this.view = view;
    const rules = view.rules;
    const perPlayer = onePerPlayer(view);
    const seats = perPlayer ? view.players.map((p) => p.seat) : [opts.tab];
    const columns = [];
    for (const s of seats) for (const c of rules.columns) {
      const p = view.players[s];
      const name = playerName(p);
      const col = { key: perPlayer ? `p${s}` : c.id, seat: s, col: c.id };
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
    const label = perPlayer ? T("Score sheet") : T("Sheet of {name}", { name: view.players[opts.tab].name });
    this.sheet.render({
      label, columns, rows,
      corner: perPlayer || view.players.length < 2 ? "" : view.players[opts.tab].name,
      cell: (colKey, rowKey) => this.cell(view, byKey[colKey], rowKey, perPlayer, opts),
    });
    const table = this.sheet.table;  // the component names the grid when it builds it only
    if (table) setAttr(table, "aria-label", label);
    const g = opts.grand;
    if (g) {
      const p = view.players[opts.tab];
      const parts = [];
      if (!perPlayer) {
        parts.push(colon(T("Total"), p.total ?? "–"));
        if (p.match_points != null) parts.push(colon(T("Match points"), p.match_points));
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
      const names = won.map((s) => view.players[s].name);
      const due = view.rolloff_due && view.rolloff_due[c.col];
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
  return { text: String(cell.score), cls: "filled", disabled: true, label: colon(name, cell.score), box, why: filled };
}

// An open box the dice could fill, as both pages offer it: the value it would write, what it does to the
// total, and a warning where it zeroes a pair or voids the entry (the engine's outlook or preview `o`).
export function playableCell(box, name, o, { action, cls = "", data = {} }) {
  const warn = o.zeroes_pair || o.voids_entry;
  const classes = ["legal", o.written === 0 ? "zero" : "", warn ? "warn" : "", cls].filter(Boolean).join(" ");
  let label = T("Score {value} in {box}", { value: o.written, box: name });
  if (o.gain !== o.written) label += ` (${T("total {sign}{n}", { sign: o.gain >= 0 ? "+" : "−", n: Math.abs(o.gain) })})`;
  if (warn) label += `. ${o.zeroes_pair ? T("Zeroes the pair.") : T("Scores 0: min must stay below max.")}`;
  return { text: String(o.written), cls: classes, label, box, action, data };
}
