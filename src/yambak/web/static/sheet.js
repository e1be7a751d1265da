// @ts-check
// The score sheet, shared by the table and the score-keeper: a grid that fits the width, with a
// sticky header, short column headers (the full name on focus or long-press), one persistent
// 44 px button per box (so focus survives every update), and arrow keys along rows and columns.
// It draws what the page hands it; it knows no rule.
import { T, el, rowLabel, rowShort, setAttr, setText, target } from "./page.js";

/** @typedef {{key: string, short: string, full: string, cls?: string | null, seat?: number, col?: string}} SheetColumn a column (the game's: its seat and column id) */
/** @typedef {{key: string, label: string, short?: string, sum?: boolean, cls?: string}} SheetRow a row: sum rows show text; other rows are boxes */
/** What a cell shows and means (box; action: what a tap means, the page's own: a box, a table action; why: why it
 * cannot be played). @typedef {{text?: string, sub?: string, cls?: string, tdCls?: string, label?: string, disabled?: boolean,
 *   box?: string, action?: any, why?: string, data?: Record<string, string | null>}} CellInfo */
/** @typedef {{label: string, corner?: string, columns: SheetColumn[], rows: SheetRow[], cell: (colKey: string, rowKey: string) => CellInfo}} SheetModel */
/** @typedef {{td: HTMLElement, node: HTMLElement, info?: CellInfo, dataKeys?: string[]}} CellNodes */
export class Sheet {
  /** @param {HTMLElement} host @param {{onActivate: (info: any, button: HTMLElement) => void, onHeader?: (full: string, key: string, shown: string) => void}} handlers */
  constructor(host, { onActivate, onHeader = () => {} }) {
    this.host = host; this.onActivate = onActivate; this.onHeader = onHeader;
    this.shape = ""; /** @type {HTMLElement | null} */ this.table = null;
    /** @type {Map<string, CellNodes>} */ this.cells = new Map();
    /** @type {HTMLElement[][]} */ this.grid = [];
    /** @type {string | null} */ this.focusKey = null;
    /** @type {string[]} */ this.colKeys = [];
    /** @type {HTMLElement[]} */ this.heads = [];
    /** @type {HTMLElement[]} */ this.rowHeads = [];
    /** @type {HTMLElement | null} */ this.corner = null;
  }

  /** @param {SheetModel} model */
  render(model) {
    const shape = model.columns.map((c) => c.key).join("|") + "#" + model.rows.map((r) => r.key + (r.sum ? "+" : "")).join("|");
    if (shape !== this.shape) this.build(model, shape);
    if (this.table) setAttr(this.table, "aria-label", model.label);
    if (this.corner) setText(this.corner, model.corner || "");  // whose sheet this is, when the sheet shows one player
    model.columns.forEach((c, ci) => {
      const th = this.heads[ci];
      setAttr(th, "class", c.cls || null);
      setText(/** @type {Node} */ (th.firstChild), c.short);
      setText(th.children[1], c.full);
      setText(/** @type {Node} */ (th.lastChild), c.full);
      setAttr(th, "aria-label", c.full);
    });
    model.rows.forEach((r, ri) => {
      const th = this.rowHeads[ri];
      setText(/** @type {Element} */ (th.querySelector(".long")), r.label);
      setText(/** @type {Element} */ (th.querySelector(".short")), r.short || r.label);
      setAttr(th, "title", r.label);
      model.columns.forEach((c, ci) => this.updateCell(ri, ci, r, model.cell(c.key, r.key) || {}));
    });
    this.rove();
  }

  /** @param {SheetModel} model @param {string} shape */
  build(model, shape) {
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const prev = active && this.host.contains(active) ? active.dataset.key : null;
    this.shape = shape; this.cells.clear(); this.grid = []; this.colKeys = model.columns.map((c) => c.key);
    const table = el("table", { class: "sheet", "data-cols": String(model.columns.length), "aria-label": model.label });
    const colgroup = el("colgroup"); colgroup.append(el("col", { class: "label" }));
    for (let i = 0; i < model.columns.length; i++) colgroup.append(el("col"));
    const head = el("tr"); this.corner = el("th", { scope: "col", class: "corner" }, ""); head.append(this.corner);
    this.heads = model.columns.map((c) => {
      const th = el("th", { scope: "col", tabindex: "0" });
      th.append(el("span", { class: "abbr", "aria-hidden": "true" }), el("span", { class: "wide", "aria-hidden": "true" }),
        el("span", { class: "full", "aria-hidden": "true" }));
      // a header says more on a tap (phones have no hover): the page decides what (its key, the text shown)
      th.addEventListener("click", () => { const full = th.getAttribute("aria-label"); if (full) this.onHeader(full, c.key, th.firstChild.textContent || ""); });
      head.append(th); return th;
    });
    const thead = el("thead"); thead.append(head);
    const body = el("tbody");
    this.rowHeads = [];
    model.rows.forEach((r, ri) => {
      const tr = el("tr", { class: r.sum ? `sum ${r.cls || ""}` : r.cls || "" });
      const th = el("th", { scope: "row" });
      th.append(el("span", { class: "long" }), el("span", { class: "short", "aria-hidden": "true" }));
      tr.append(th); this.rowHeads.push(th);
      /** @type {HTMLElement[]} */
      const line = [];
      model.columns.forEach((c, ci) => {
        const td = el("td");
        let node = td;
        if (!r.sum) {
          const key = `${c.key}|${r.key}`;
          const b = el("button", { type: "button", class: "cell", tabindex: "-1", "data-key": key, "data-r": String(ri), "data-c": String(ci) });
          b.append(el("span", { class: "v" }), el("span", { class: "w" }));
          b.addEventListener("click", () => this.onActivate(this.cells.get(key)?.info, b));
          b.addEventListener("focus", () => { this.focusKey = key; this.rove(); });
          td.append(b); node = b; line.push(b);
          this.cells.set(key, { td, node: b, info: {} });
        }
        tr.append(td);
        this.cells.set(`${c.key}|${r.key}#td`, { td, node });
      });
      this.grid.push(line);
      body.append(tr);
    });
    table.append(colgroup, thead, body);
    table.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => this.key(e));
    this.host.replaceChildren(table);
    this.table = table;
    this.cells.get(prev || "")?.node.focus();
  }

  /** @param {number} ri @param {number} ci @param {SheetRow} row @param {CellInfo} info */
  updateCell(ri, ci, row, info) {
    const c = this.cells.get(`${this.colKey(ci)}|${row.key}#td`);
    if (!c) return;
    setAttr(c.td, "class", info.tdCls || null);
    if (row.sum) {
      const text = info.text ?? "", sub = info.sub ?? "";
      if (c.td.dataset.text !== text || c.td.dataset.sub !== sub) {
        c.td.replaceChildren(document.createTextNode(text));
        if (sub) c.td.append(el("span", { class: "of" }, sub));
        c.td.dataset.text = text; c.td.dataset.sub = sub;
      }
      setAttr(c.td, "title", info.label || null);
      return;
    }
    const b = c.node, cell = this.cells.get(b.dataset.key || "");
    if (!cell) return;
    const data = info.data || {};
    // data-* a previous render set and this one does not: removed, so no stale state stays on a box
    for (const k of cell.dataKeys || []) if (!(k in data)) setAttr(b, `data-${k}`, null);
    cell.info = info; cell.dataKeys = Object.keys(data);
    setAttr(b, "class", "cell" + (info.cls ? " " + info.cls : ""));
    setText(/** @type {Node} */ (b.firstChild), info.text ?? "");
    setText(/** @type {Node} */ (b.lastChild), info.sub ?? "");
    setAttr(b, "aria-label", info.label || null);
    setAttr(b, "aria-disabled", info.disabled ? "true" : null);
    setAttr(b, "data-box", info.box || null);
    for (const [k, v] of Object.entries(data)) setAttr(b, `data-${k}`, v);
  }

  /** @param {number} ci */
  colKey(ci) { return this.colKeys[ci]; }

  // One box in the tab order: the focused one, else the first that may be played, else the first.
  rove() {
    const all = this.grid.flat();
    if (!all.length) return;
    let target = this.focusKey ? this.cells.get(this.focusKey)?.node : null;
    if (!target) target = all.find((b) => b.getAttribute("aria-disabled") !== "true") || all[0];
    for (const b of all) setAttr(b, "tabindex", b === target ? "0" : "-1");
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    const b = /** @type {HTMLElement | null} */ (target(e).closest && target(e).closest("button.cell"));
    if (!b) return;
    /** @type {Record<string, number[]>} */
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -99], End: [0, 99] };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    let r = Number(b.dataset.r), c = Number(b.dataset.c);
    const rows = this.grid.length;
    // step over sum rows (they hold no boxes)
    do { r += m[0]; } while (m[0] && r >= 0 && r < rows && !this.grid[r].length);
    if (r < 0 || r >= rows || !this.grid[r].length) return;
    c = Math.max(0, Math.min(this.grid[r].length - 1, c + m[1]));
    this.grid[r][c].focus();
  }

  /** @param {string} key */
  focusBox(key) { const c = this.cells.get(key); if (c) c.node.focus(); }
}

// The rows of a sheet: the rules' rows with the upper sum and bonus after the upper section,
// Yamb's minimax line, the yams bonus (players side by side) and the total.
/** @param {import("./game.js").View} view @param {boolean} perPlayer @returns {SheetRow[]} */
export function sheetRows(view, perPlayer) {
  const rules = view.rules;
  /** @type {SheetRow[]} */
  const rows = [];
  const upperRows = rules.rows.filter((r) => r.upper);
  rules.rows.forEach((r) => {
    rows.push({ key: r.id, label: rowLabel(r.id), short: rowShort(r.id) });
    if (r.upper && r.id === upperRows[upperRows.length - 1].id) {
      rows.push({ key: "#upper", label: T("Upper section"), short: "Σ 1–6", sum: true });
      if (rules.upper_bonus) rows.push({ key: "#bonus", label: T("Bonus"), short: T("Bonus"), sum: true });
    }
  });
  if (rules.minimax) rows.push({ key: "#minimax", label: T("(Max − Min) × Ones"), short: "(M−m)×1", sum: true });
  if (view.players.some((p) => p.extra_bonus != null) && perPlayer) rows.push({ key: "#extra", label: T("Yams bonus"), short: `+${view.rules.joker_bonus ?? ""}`, sum: true });
  rows.push({ key: "#total", label: T("Total"), sum: true, cls: "total" });
  return rows;
}

// A sum row's cell, from the engine's column scores as the server sends them.
/** @param {import("./game.js").View} view @param {string} rowKey @param {import("./game.js").Player} p
 * @param {import("./protocol").Column} col @param {boolean} perPlayer @returns {CellInfo} */
export function sumCell(view, rowKey, p, col, perPlayer) {
  const ub = view.rules.upper_bonus;
  if (rowKey === "#upper") {
    if (col.upper == null) return { text: "▒" };
    const sub = ub ? `/${ub.threshold}` : "";
    const label = ub ? (col.bonus_to_go ? T("upper section {sum}: {n} more for the bonus", { sum: col.upper, n: col.bonus_to_go }) : T("upper section {sum}: bonus reached", { sum: col.upper })) : String(col.upper);
    return { text: String(col.upper), sub, label, tdCls: col.bonus_to_go === 0 ? "reached" : "" };
  }
  if (rowKey === "#bonus") {
    if (col.bonus == null) return { text: "▒" };
    return { text: col.bonus ? `+${col.bonus}` : "–", tdCls: col.bonus ? "reached" : "",
      label: col.bonus ? T("Bonus: +{n}", { n: col.bonus }) : T("{n} more for the bonus", { n: col.bonus_to_go }) };
  }
  if (rowKey === "#minimax") return { text: col.minimax == null ? "" : String(col.minimax) };
  if (rowKey === "#extra") return { text: p.extra_bonus ? `+${p.extra_bonus}` : "0" };
  if (perPlayer) return { text: p.total == null ? "▒" : String(p.total) };
  return { text: col.total == null ? "▒" : String(col.total) };
}

// "↓ Down · ↑ Up · …": the short headers spelled out, for a line under the sheet (empty where none is short).
/** @param {SheetColumn[]} columns */
export function legend(columns) {
  return columns.filter((c) => c.short !== c.full).map((c) => `${c.short} ${c.full}`).join(" · ");
}
