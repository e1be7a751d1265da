// @ts-check
// A kept sheet drawn: the players strip, the notes (refusals, entries to file again), the sheet with what
// the typed dice would do in each open box, the sync badge.
import { boot, T, colon, C, N, colLabel, colShort, $, el, setText, setAttr } from "./page.js";
import { playableCell, reason } from "./game.js";
import { removeEntry, storage } from "./keeper-store.js";
/** @typedef {import("./keeper-store.js").Entry} Entry */
import { filledOf, isTurn, nDice, named, nextSeat, online, readOnly, refusalText, reload, state, useLabels } from "./keeper-state.js";
import { clearPad, padMoved, refreshHints, renderPad, startFix } from "./keeper-pad.js";
import { joinWith } from "./keeper-sync.js";
import { historyList, renderDrawer, renderEnd } from "./keeper-share.js";

// --- drawing ---------------------------------------------------------------------------------------
export function draw() {
  if (!state.sheet) return;
  const b = document.body.dataset;
  b.pending = String(state.sheet.queue.length);
  b.refile = String(state.sheet.refile.length);
  b.sheet = state.sheet.id;
  if (!state.shown) { delete b.v; setText($("status"), T("Loading the sheet…")); return; }  // no version of the sheet before
  useLabels(state.shown.rules);
  b.v = String(state.shown.v);
  b.entries = String(state.shown.history.length);
  b.finished = state.shown.finished ? "1" : "0";
  b.local = state.engine.ready && state.sheet.queue.length ? "1" : "0";
  b.trusted = state.trusted ? "1" : "0";
  b.readonly = readOnly() ? "1" : "0";
  b.current = String(nextSeat());
  setText($("head-title"), state.sheet.name);
  document.title = `yambak — ${state.sheet.name}`;
  const next = nextSeat();
  padMoved(next);
  if (!state.fixing && next !== state.followed) state.tab = next;  // the sheet follows the player to enter
  state.followed = next;
  if (state.tab == null || state.tab >= state.shown.players.length) state.tab = next;
  const due = rolloffDue();
  if (due && !state.rolloff) state.rolloff = { target: due[0], seats: due[1], dice: {} };
  if (!due) state.rolloff = null;
  drawStrip(); renderNotes(); drawSheet(); renderPad(); renderEnd(); renderStatus(); renderSide();
  if (state.drawer) renderDrawer();
  b.ready = "1";
}



function rolloffDue() {
  if (!state.shown || !state.shown.finished || !state.shown.rolloff_due) return null;
  const first = Object.entries(state.shown.rolloff_due)[0];
  return first || null;
}

function drawStrip() {
  const next = nextSeat();
  state.strip?.render(state.shown, { tab: state.tab, toAct: (p) => p.seat === next });
}

export function renderStatus() {
  if (!state.sheet) return;
  const badge = $("sync");
  const waiting = state.sheet.queue.length;
  let text, cls;
  if (state.sheet.orphan) { text = T("Kept on this phone only"); cls = "warn"; }
  else if (!online()) { text = waiting ? T("Offline · not sent yet: {n}", { n: waiting }) : T("Offline"); cls = "off"; }
  else if (readOnly() && state.sheet.synced) { text = state.live ? T("Watching") : T("Connecting…"); cls = state.live ? "ok" : "busy"; }
  else if (waiting || !state.sheet.synced) { text = T("Sending…"); cls = "busy"; }
  else { text = state.live ? T("Live") : T("Connecting…"); cls = state.live ? "ok" : "busy"; }
  setText(badge, text);
  setAttr(badge, "class", `sync ${cls}`);
  setAttr(badge, "title", state.engine.ready ? T("Scores computed on this phone") : state.engine.failed ? T("Scores computed by the server") : T("Preparing this phone's engine…"));
}

function renderNotes() {
  const box = $("notes");
  const parts = [];
  if (state.notice) parts.push(el("p", { class: "note error", role: "alert", "data-code": state.notice.code }, state.notice.text));
  if (storage.pruned) {
    parts.push(el("p", { class: "note warn", "data-code": "storage/pruned" },
      N("This phone's storage was full: {n} sheet kept on the server was removed from this phone.", "This phone's storage was full: {n} sheets kept on the server were removed from this phone.", storage.pruned)));
  }
  state.sheet.refile.forEach((x, i) => {
    const e = x.entry;
    const player = state.shown.players[e.seat ?? -1];
    const who = player ? player.name : "";
    const what = e.kind === "dice" ? `${who} · ${named(e.box || "")} · ${(e.dice || []).join(" ")}` : e.kind === "scratch" ? `${who} · ${named(e.box || "")} · 0`
      : e.kind === "fix" ? T("Correction of entry {n}", { n: e.turn }) : e.kind === "undo" ? T("Undo") : T("Roll-off");
    const line = el("div", { class: "note refile", "data-refile": String(i), "data-id": e.id });
    line.append(el("p", {}, `${T("Not filed")}: ${what}. ${refusalText(x.error)}`));
    const actions = el("div", { class: "actions" });
    const again = readOnly() ? null : againOption(e);
    if (again === "again") actions.append(el("button", { type: "button", class: "primary again", onclick: () => fileAgain(i) }, T("File it again")));
    else if (again) {
      actions.append(el("button", { type: "button", class: "primary correct", onclick: () => fileAgain(i, again) },
        T("Put it in entry {n} of {name}", { n: again, name: who })));
    }
    actions.append(el("button", { type: "button", class: "discard", onclick: () => discard(i) }, T("Discard")));
    line.append(actions);
    parts.push(line);
  });
  if (readOnly() && state.sheet.synced) parts.push(watchNote());
  if (state.sheet.orphan && state.sheet.orphan !== "sheet/taken") parts.push(el("p", { class: "note warn" }, T("The server does not know this sheet: it is kept on this phone.")));
  const key = JSON.stringify([state.notice, state.sheet.refile.map((x) => x.entry.id), state.sheet.orphan, state.shown.v, state.shown.history.length, readOnly(), storage.pruned, nextSeat()]);
  if (box.dataset.key !== key) { box.dataset.key = key; box.replaceChildren(...parts); }
  box.hidden = !parts.length;
}

// A watcher's note: this phone follows the sheet; with the sheet's code it keeps score on it too.
function watchNote() {
  const form = el("form", { class: "note watch", id: "watch" });
  form.append(el("p", {}, T("You are watching this sheet. To keep score on this phone too, type its code.")));
  const input = el("input", { name: "code", maxlength: "12", autocomplete: "off", autocapitalize: "characters", placeholder: "ABC234", "aria-label": T("Code") });
  form.append(input, el("button", { type: "submit", class: "primary" }, T("Join")));
  form.addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); state.notice = null; joinWith(input.value.replace(/\s|-/g, "").slice(0, 12)); });
  return form;
}

// What a refused entry may become: "again" when the very turn it was typed for is still open (the same
// player, the same number of boxes filled), else the number of the entry that filed that player's turn
// meanwhile (the dice can correct it); null: nothing but discarding it.
/** @param {Entry} e @returns {"again" | number | null} */
function againOption(e) {
  if (e.kind === "fix") return state.shown.history[(e.turn ?? 0) - 1] ? "again" : null;
  const seat = /** @type {number} */ (e.seat);  // a turn's entry names its player
  if (!isTurn(e)) return null;
  if (!state.shown.finished && seat === nextSeat() && (e.filled == null || e.filled === filledOf(seat))) return "again";
  if (e.filled == null) return null;
  const h = state.shown.history.filter((x) => x.player === seat)[e.filled];
  return h ? h.n : null;
}

/** @param {number} i */
async function discard(i) {
  const x = state.sheet.refile[i];
  if (!x) return;
  await removeEntry(state.sheet.id, x.entry.id);
  await reload();
  draw();
}

// A refused entry back on the pad: for its own player's open turn, or as the correction of the entry
// that filed that turn; never for whoever plays now.
/** @param {number} i @param {number | null} [n] */
async function fileAgain(i, n = null) {
  const x = state.sheet.refile[i];
  if (!x) return;
  const e = x.entry;
  const h = e.kind === "fix" ? state.shown.history[(e.turn ?? 0) - 1] : n ? state.shown.history[n - 1] : null;
  await removeEntry(state.sheet.id, e.id);
  await reload();
  if (h) { startFix(h); state.pad = (e.dice || []).slice(); state.roll = e.roll || 1; state.zeroMode = !e.dice; refreshHints(); draw(); return; }
  clearPad();
  state.pad = (e.dice || []).slice(); state.roll = e.roll || 1; state.zeroMode = !e.dice || !!e.strike;
  const seat = /** @type {number} */ (e.seat);  // not a correction: a turn's entry, which names its player
  state.padFor = { seat, filled: filledOf(seat) };
  state.notice = { code: "refile", text: T("The dice are back on the pad: tap the box for {name}.", { name: state.shown.players[seat].name }) };
  refreshHints(); draw();
}

// The sheet: the shared component (one column per player on one-column sheets, six players at most,
// else the chosen player's columns); an open box is what the engine says of the dice typed.
export function drawSheet() {
  if (!state.shown || !state.sheetUI) return;
  const rules = state.shown.rules;
  const next = nextSeat();
  const pending = new Set(state.sheet.queue.filter(isTurn).map((e) => `${e.seat}|${e.box}`));
  const enterable = !state.shown.finished && !state.fixing && !state.rolloff;
  const complete = state.pad.length === nDice();
  state.sheetUI.render(state.shown, {
    tab: state.tab, grand: $("grand"), legendHost: $("legend"), winnerRow: true,
    headText: (id) => headText(id, rules.columns.length),
    columnClass: (c, perPlayer) => {
      const won = state.shown.finished && state.shown.column_winners && !perPlayer && (state.shown.column_winners[c.col] || []).includes(c.seat) && rules.match === "column_points";
      return [perPlayer && c.seat === next && !state.shown.finished ? "me-col" : "", won ? "win" : ""].filter(Boolean).join(" ");
    },
    cellClass: (c, box, cell) => (cell && cell.score != null && pending.has(`${c.seat}|${box}`) ? "pending" : ""),
    openCell: (c, box, name, /** @type {import("./protocol").SheetPlayer} */ p) => typedCell(c, box, name, p, { next, enterable, complete }),
  });
  fitLabels();
  if (state.headPending) { state.headPending = false; requestAnimationFrame(() => drawSheet()); }  // measured once drawn
}

// An open box: what the typed dice (or a 0) would do there, as the engine's preview says.
/** @param {import("./game.js").GameColumn} c @param {string} box @param {string} name @param {import("./protocol").SheetPlayer} p
 * @param {{next: number, enterable: boolean, complete: boolean}} now @returns {import("./game.js").CellInfo} */
function typedCell(c, box, name, p, { next, enterable, complete }) {
  const data = { action: null };
  if (readOnly()) return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why: refusalText({ code: "auth/sheet-token" }), data };
  if (!enterable || c.seat !== next) {
    const why = state.fixing ? T("Choose the box of the correction below the dice.") : T("It is {name}'s turn now.", { name: state.shown.players[next].name });
    return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why, data };
  }
  if (state.zeroMode && !state.pad.length) {
    const o = state.zeros && state.zeros[box];
    if (o && o.legal) return { text: o.strike ? "✗" : "0", cls: o.strike ? "strike" : "legal zero", label: T("Score 0 in {box}", { box: name }), box, action: box, data: { action: "zero" } };
    return { text: "", cls: "blocked", disabled: true, label: colon(name, o ? reason(o.code || "") : C("box", "open")), box, why: o ? reason(o.code || "") : T("Not available now."), data };
  }
  if (complete) {
    const o = state.preview && state.preview[box];
    if (o && o.legal) {
      if (state.zeroMode && o.strike) return { text: "✗", cls: "strike", label: T("Strike {box} for 0", { box: name }), box, action: box, data: { action: "strike" } };
      return playableCell(box, name, o, { action: box, data: { action: "score" } });
    }
    if (o) return { text: "", cls: "blocked", disabled: true, label: colon(name, reason(o.code || "")), box, why: reason(o.code || ""), data };
    if (!state.engine.ready && !state.engine.failed) return { text: "…", cls: "blocked", disabled: true, label: name, box, why: T("Preparing this phone's engine…"), data };
    // no preview (the engine is not running and the server cannot be asked): any box the rules allow now
  }
  const fillable = new Set((p.fillable || {})[String(state.shown.rules.roll_matters ? state.roll : 1)] || []);
  if (fillable.has(box)) {
    return complete && !state.preview ? { text: "+", cls: "legal", label: `${name}`, box, action: box, data: { action: "score" } }
      : { text: "", cls: "open", label: colon(name, C("box", "open")), box, why: T("Type the dice first, then tap the box."), data: { action: "open" } };
  }
  return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why: T("That box cannot be filled after this roll."), data };
}

// Column names: the full name where it fits the column's width, else the short form.
const headFits = new Map();
/** @param {string} id @param {number} n */
function headText(id, n) {
  const key = `${id}|${n}|${innerWidth}`;
  if (!headFits.has(key)) {
    const th = $("sheet").querySelector("thead th[tabindex]");
    if (!th || !th.clientWidth) { state.headPending = true; return colShort(id); }
    const measure = state.measure = state.measure || /** @type {CanvasRenderingContext2D} */ (document.createElement("canvas").getContext("2d"));
    const style = getComputedStyle(th);
    measure.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = th.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2;
    headFits.set(key, measure.measureText(colLabel(id)).width <= room);
  }
  return headFits.get(key) ? colLabel(id) : colShort(id);
}

// Row names: the full name where it fits on two lines, else the short form (per language and width).
function fitLabels() {
  const heads = [...$("sheet").querySelectorAll("tbody th")];
  const key = `${state.sheetUI?.shape}|${innerWidth}|${boot.lang}`;
  if (key === state.labelsKey || !heads.length || !heads[0].offsetWidth) return;
  state.labelsKey = key;
  for (const th of heads) {
    th.classList.remove("use-short");
    const long = th.querySelector(".long");
    if (!long || !long.textContent) continue;
    if (th.scrollWidth > th.clientWidth + 1 || long.getClientRects().length > 2) th.classList.add("use-short");
  }
}
// the side's history is drawn only while it shows: a phone turned or a window widened draws it now
window.addEventListener("resize", () => { if (state.sheet && state.shown) { state.labelsKey = ""; fitLabels(); renderSide(); } });

function renderSide() {
  const side = $("side");
  if (getComputedStyle(side).display === "none") return;
  const key = `${state.shown.v}|${state.sheet.queue.length}|${JSON.stringify(state.invalid)}`;
  if (side.dataset.key === key) return;
  side.dataset.key = key;
  side.replaceChildren(el("h2", {}, T("History")), historyList());
}
