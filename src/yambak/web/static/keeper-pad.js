// @ts-check
// A kept sheet's dice pad: the dice typed, the box chosen, a 0 or a strike, a correction of an earlier
// entry, a roll-off; each entry checked by the phone's engine, queued on the phone and sent (keeper-sync.js).
import { T, colLabel, $, el, setText, setAttr, say, target } from "./page.js";
import { dieSvg } from "./dice.js";
import { reason } from "./game.js";
import { newId, addEntry, removeEntry, whileSending } from "./keeper-store.js";
/** @typedef {import("./keeper-store.js").NewEntry} NewEntry */
import { filledOf, nDice, named, nextSeat, online, readOnly, refusalText, reload, sheetRef, state } from "./keeper-state.js";
import { recompute } from "./keeper-sheet.js";
import { flush } from "./keeper-sync.js";
import { draw, drawSheet } from "./keeper-draw.js";
import { closeDrawer, openDrawer } from "./keeper-share.js";

// --- entries -------------------------------------------------------------------------------------
/** @param {NewEntry} entry @returns {Promise<boolean>} */
async function submit(entry) {
  state.notice = null; state.invalid = {};
  if (readOnly()) { refuse({ code: "auth/sheet-token" }); return false; }
  if (state.engine.ready) {  // checked by the phone's engine first: a refusal keeps the typed dice
    const r = await state.engine.call("view", { sheet: sheetRef(), queue: state.sheet.queue, entry });
    if (!r.ok) { refuse(r.error); return false; }
  }
  const id = entry.id = newId(12);
  // stored after every entry any tab queued before it; null: no room, and nothing lost (the dice stay)
  if (!(await addEntry(state.sheet.id, { ...entry, id }, state.sheet.base.v))) { refuse({ code: "storage/full" }); return false; }
  await reload();
  await recompute();
  flush();
  return true;
}

/** @param {Record<string, any>} err a coded refusal and its fields */
function refuse(err) {
  if (err.code === "keeper/breaks-later") { state.invalid = {}; for (const x of err.invalid || []) state.invalid[x.turn] = reason(x.code); }
  const notice = state.notice = { ...err, code: String(err.code), text: refusalText(err) };
  say(notice.text);
  draw();
}

// The entry of the typed dice: for the player they were typed for (never for whoever plays now).
/** @param {string} box @returns {NewEntry | null} */
function entryFor(box) {
  const seat = state.padFor ? state.padFor.seat : nextSeat();
  const filled = state.padFor ? state.padFor.filled : filledOf(seat);
  if (state.zeroMode && !state.pad.length) return { kind: "scratch", seat, filled, box };
  if (state.pad.length !== nDice()) { refuse({ code: "input/dice", n: nDice() }); return null; }
  /** @type {NewEntry} */
  const e = { kind: "dice", seat, filled, dice: state.pad.slice(), roll: state.shown.rules.roll_matters ? state.roll : 1, box };
  if (state.zeroMode) e.strike = true;
  return e;
}

/** @param {string} box */
export async function chooseBox(box) {
  const entry = entryFor(box);
  if (!entry) return;
  const keep = { pad: state.pad.slice(), roll: state.roll, zeroMode: state.zeroMode, padFor: state.padFor };
  clearPad();
  const ok = await submit(entry);
  if (!ok) { Object.assign(state, keep); refreshHints(); draw(); }
  else {
    const w = state.engine.ready && state.shown && state.shown.history.length ? state.shown.history[state.shown.history.length - 1] : null;
    if (w) say(T("{name} scored {value} in {box}", { name: state.shown.players[w.player].name, value: w.written, box: named(w.box) }));
  }
}

// What undo takes back, named first (the engine's `last`: the last thing done on the sheet, whoever did it,
// yambak/keeper/edits.py), and what the history says once it is undone.
/** @param {import("./protocol").SheetAction | null | undefined} a @param {boolean} [done] */
export function actionText(a, done = false) {
  if (!a) return T("Undo");
  if (a.kind === "rolloff") {
    const column = a.target === "total" ? T("Total") : colLabel(a.target || "");
    return done ? T("Undone: the roll-off for {column}", { column }) : T("Undo the roll-off for {column}", { column });
  }
  const p = state.shown.players[a.player ?? -1];
  const args = { name: p ? p.name : "", turn: a.turn ?? "" };
  if (a.kind === "correction") return done ? T("Undone: {name}'s correction of turn {turn}", args) : T("Undo {name}'s correction of turn {turn}", args);
  return done ? T("Undone: {name}'s turn {turn}", args) : T("Undo {name}'s turn {turn}", args);
}

/** The undo button's words: the last thing done as the engine (the phone's, or the server's) names it; an entry
 * queued on this phone while its engine is not ready yet is the last thing done, named from the entry itself. */
export function undoText() {
  const last = state.sheet.queue[state.sheet.queue.length - 1];
  if (last && !state.engine.ready) {
    if (last.kind === "dice" || last.kind === "scratch") return actionText({ kind: "entry", player: last.seat, turn: (last.filled ?? 0) + 1 });
    return T("Undo last entry");
  }
  return actionText(state.shown.last);
}

export async function undo() {
  state.notice = null; state.invalid = {};
  if (readOnly()) { refuse({ code: "auth/sheet-token" }); return; }
  // what the button named when it was tapped (another phone's entry may come in while this one reads its
  // queue): the undo takes back only that, or is refused (stale/undo); named only where the phone's engine
  // counted this phone's queue in it
  const seen = state.shown && state.shown.last && (state.engine.ready || !state.sheet.queue.length) ? state.shown.last : null;
  const named = seen ? { kind: seen.kind, n: seen.n ?? null, player: seen.player ?? null, turn: seen.turn ?? null, target: seen.target ?? null } : null;
  clearPad();
  await reload();  // what every tab queued
  const last = state.sheet.queue[state.sheet.queue.length - 1];
  const what = state.engine.ready && state.shown && state.shown.last ? actionText(state.shown.last, true) : "";
  // not sent yet (and no tab is sending it): just forget it; a queued undo stays (forgetting it would redo)
  if (last && last.kind !== "undo") {
    const forgot = await whileSending(state.sheet.id, async () => { await removeEntry(state.sheet.id, last.id); return true; });
    if (forgot === true) { await reload(); await recompute(); if (what) say(what); return; }
  }
  if (!state.shown || !state.shown.last) return;
  if (await submit(named ? { kind: "undo", count: 1, last: named } : { kind: "undo", count: 1 })) say(what || actionText(state.shown.last, true));  // after whatever is queued
}

export function clearPad() { state.pad = []; state.roll = 1; state.zeroMode = false; state.padFor = null; state.preview = null; state.zeros = null; }

/** @param {import("./protocol").HistoryEntry} h */
export function startFix(h) {
  if (readOnly()) { refuse({ code: "auth/sheet-token" }); return; }
  state.fixing = { ...h, choice: null }; state.fixOptions = null; state.rolloff = null; state.padFor = null;
  state.pad = (h.dice || []).slice(); state.roll = h.roll; state.zeroMode = !h.dice;
  state.tab = h.player; state.notice = null;
  closeDrawer();
  refreshHints(); draw();
  $("fix-box") && $("fix-box").focus();
}

function cancelFix() { state.fixing = null; state.fixOptions = null; state.pad = []; state.roll = 1; state.zeroMode = false; state.tab = nextSeat(); refreshHints(); draw(); }

async function saveFix() {
  if (!state.fixing) return;
  const box = $("fix-box") && $("fix-box").value;
  if (!box) { if (state.pad.length !== nDice() && !state.zeroMode) refuse({ code: "input/dice", n: nDice() }); return; }
  /** @type {NewEntry} */
  const entry = { kind: "fix", turn: state.fixing.n, box };
  if (!(state.zeroMode && !state.pad.length)) {
    if (state.pad.length !== nDice()) { refuse({ code: "input/dice", n: nDice() }); return; }
    entry.dice = state.pad.slice(); entry.roll = state.shown.rules.roll_matters ? state.roll : 1;
  }
  const ok = await submit(entry);  // refused: the correction stays open with the typed dice
  if (ok) { state.fixing = null; state.fixOptions = null; state.pad = []; state.roll = 1; state.zeroMode = false; state.tab = nextSeat(); state.followed = state.tab; refreshHints(); draw(); }
}

async function addRolloffDice() {
  if (!state.rolloff || state.pad.length !== state.shown.rules.rolloff_dice) return;
  const seat = state.rolloff.seats[Object.keys(state.rolloff.dice).length];
  state.rolloff.dice[String(seat)] = state.pad.slice(); state.pad = [];
  if (Object.keys(state.rolloff.dice).length < state.rolloff.seats.length) { draw(); return; }
  /** @type {NewEntry} */
  const entry = { kind: "rolloff", target: state.rolloff.target, rolloff: state.rolloff.dice };
  const kept = state.rolloff; state.rolloff = null;
  if (!(await submit(entry))) { state.rolloff = { ...kept, dice: {} }; draw(); }
}

// Whether the typed dice may be struck for 0 somewhere (the engine's preview says where).
function canStrike() { return state.pad.length === nDice() && !!state.preview && Object.values(state.preview).some((o) => o.strike); }

/** @param {number} v */
function addDie(v) {
  if (!state.shown || readOnly() || (state.shown.finished && !state.rolloff && !state.fixing)) return;
  const n = state.rolloff ? state.shown.rules.rolloff_dice : nDice();
  if (state.pad.length >= n) return;
  if (!state.fixing && !state.rolloff && !state.padFor) state.padFor = { seat: nextSeat(), filled: filledOf(nextSeat()) };  // the dice are this turn's
  state.pad.push(v); state.notice = null;
  const padFor = state.padFor;
  if (!state.fixing && !state.rolloff && padFor && state.tab !== padFor.seat) state.tab = padFor.seat;  // the dice are this turn's player's
  if (state.rolloff && state.pad.length === n) { addRolloffDice(); return; }
  if (state.zeroMode && !state.fixing) state.zeroMode = false;  // dice typed: their scores; "0" again strikes where the engine allows
  refreshHints(); draw();
}
/** @param {number} i */
function removeDie(i) { state.pad.splice(i, 1); if (!state.pad.length && !state.zeroMode) state.padFor = null; refreshHints(); draw(); }

// --- what the engine says about the typed dice (preview, zeros, correction targets) -----------------------
/** @param {string} op @param {{turn?: number, dice?: number[] | null, roll?: number}} payload @returns {Promise<import("./keeper-engine.js").Reply | null>} */
async function ask(op, payload) {
  if (state.engine.ready) return state.engine.call(op, { sheet: sheetRef(), queue: state.sheet.queue, ...payload });
  if (!state.sheet.synced || state.sheet.queue.length || !online()) return null;  // the server knows another sheet than this phone shows
  const body = op === "fix_options" ? { turn: payload.turn, dice: payload.dice, roll: payload.roll }
    : op === "preview" ? { dice: payload.dice, roll: payload.roll } : { dice: null };
  try {
    const r = await fetch(`/api/keep/${state.sheet.id}/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    return r.ok ? { ok: true, ...data } : { ok: false, error: data };
  } catch { return null; }
}

export async function refreshHints() {
  if (!state.shown || !state.sheet) return;
  const complete = state.pad.length === nDice();
  const base = `${state.sheet.base.v}|${state.sheet.queue.length}|${state.sheet.queue.length ? state.sheet.queue[state.sheet.queue.length - 1].id : ""}`;
  if (state.fixing) {
    const key = `fix|${base}|${state.fixing.n}|${state.zeroMode && !state.pad.length ? "0" : complete ? state.pad.join("") + state.roll : ""}`;
    if (key === state.previewKey) return;
    state.previewKey = key; state.fixOptions = null; renderFix();
    if (!(state.zeroMode && !state.pad.length) && !complete) return;
    const r = await ask("fix_options", { turn: state.fixing.n, dice: state.zeroMode && !state.pad.length ? null : state.pad.slice(), roll: state.shown.rules.roll_matters ? state.roll : 1 });
    if (state.previewKey !== key) return;
    state.fixOptions = r && r.ok ? r.boxes : null;
    renderFix();
    return;
  }
  if (complete && !state.rolloff) {
    const key = `p|${base}|${state.pad.join("")}|${state.roll}`;
    if (key !== state.previewKey) {
      state.previewKey = key; state.preview = null;
      const r = await ask("preview", { dice: state.pad.slice(), roll: state.shown.rules.roll_matters ? state.roll : 1 });
      if (state.previewKey !== key) return;
      state.preview = r && r.ok ? r.boxes : null;
      draw();
    }
  } else { state.previewKey = ""; state.preview = null; }
  if (state.zeroMode && !state.pad.length) {
    const key = `z|${base}`;
    if (key !== state.zerosKey) {
      state.zerosKey = key; state.zeros = null;
      const r = await ask("zero", {});
      if (state.zerosKey !== key) return;
      state.zeros = r && r.ok ? r.boxes : null;
      drawSheet();
    }
  }
}

// Dice typed for a player whose turn was entered meanwhile on another phone (or tab): never filed for
// whoever plays now. They are cleared, and the message says whose they were.
/** @param {number} next */
export function padMoved(next) {
  if (!state.padFor || state.fixing || state.rolloff || !(state.pad.length || state.zeroMode)) return;
  if (next === state.padFor.seat && filledOf(state.padFor.seat) === state.padFor.filled) return;
  const p = state.shown.players[state.padFor.seat];
  const args = { name: p ? p.name : "", dice: state.pad.join(" ") };
  const text = state.pad.length ? T("{name}'s turn was entered on another phone: the dice typed for {name} ({dice}) were cleared.", args)
    : T("{name}'s turn was entered on another phone.", args);
  state.notice = { code: "pad/moved", text };
  say(text);
  clearPad();
}

export function renderPad() {
  const finished = state.shown.finished && !state.rolloff && !state.fixing;
  $("pad").hidden = finished || readOnly();
  if (finished || readOnly()) return;
  const n = state.rolloff ? state.shown.rules.rolloff_dice : nDice();
  const next = nextSeat();
  let status;
  if (state.rolloff) {
    const seat = state.rolloff.seats[Object.keys(state.rolloff.dice).length];
    const where = state.rolloff.target === "total" ? T("Total") : colLabel(state.rolloff.target);
    status = T("Roll-off for {column}: {name} rolls {n} dice", { column: where, name: state.shown.players[seat].name, n });
  } else if (state.fixing) status = T("Correcting entry {n} of {name}", { n: state.fixing.n, name: state.shown.players[state.fixing.player].name });
  else if (state.zeroMode && !state.pad.length) status = T("{name}: tap the box to write 0", { name: state.shown.players[next].name });
  else if (state.pad.length === nDice()) status = T("{name}: tap a box", { name: state.shown.players[next].name });
  else status = T("{name}: type the dice, then tap a box", { name: state.shown.players[next].name });
  setText($("status"), status);
  $("pad").classList.toggle("fixing", !!state.fixing);
  $("pad").classList.toggle("rolloff", !!state.rolloff);
  // the typed dice
  const slots = $("slots");
  while (slots.children.length < n) {
    const i = slots.children.length;
    const b = el("button", { type: "button", class: "die slot blank", "data-pos": String(i) });
    b.append(dieSvg(0));
    b.onclick = () => { if (state.pad[i]) removeDie(i); };
    slots.append(b);
  }
  while (slots.children.length > n) slots.lastChild.remove();
  [...slots.children].forEach((b, i) => {
    const v = state.pad[i] || 0;
    if (b.dataset.value !== String(v)) { b.replaceChildren(dieSvg(v)); b.dataset.value = String(v); }
    b.classList.toggle("blank", !v);
    setAttr(b, "aria-label", v ? T("Die {n}: {value}", { n: i + 1, value: v }) + ` · ${T("tap to take it back")}` : T("Die {n}", { n: i + 1 }));
  });
  const back = $("backspace");
  back.disabled = !state.pad.length;
  setText(back, "⌫");
  setAttr(back, "aria-label", T("Take back the last die"));
  const faces = $("faces");
  if (!faces.childElementCount) {
    for (let v = 1; v <= 6; v++) {
      const b = el("button", { type: "button", class: "face-btn", "data-face": String(v), "aria-label": String(v) });
      b.append(dieSvg(v));
      b.onclick = () => addDie(v);
      faces.append(b);
    }
  }
  const full = state.pad.length >= n;
  for (const b of faces.children) b.disabled = full;
  // the roll number, where the rules care
  const rolls = $("rolls");
  const showRolls = state.shown.rules.roll_matters && !state.rolloff;
  rolls.hidden = !showRolls;
  if (showRolls) {
    // saved rolls (Maxi Yatzy): the player to enter may have rolled more often than a turn's rolls
    const seatNow = state.shown.players[nextSeat()];
    const most = state.shown.rules.rolls_per_turn + ((seatNow && seatNow.saved_rolls) || 0);
    if (state.roll > most) state.roll = most;
    if (rolls.childElementCount !== most + 1) {
      rolls.replaceChildren(el("span", { class: "muted lbl" }, T("Roll")));
      for (let r = 1; r <= most; r++) {
        rolls.append(el("button", { type: "button", role: "radio", class: "roll-n", "data-roll": String(r), "aria-label": T("Roll number") + ` ${r}`,
          onclick: () => { state.roll = r; refreshHints(); draw(); } }, String(r)));
      }
    }
    for (const b of rolls.querySelectorAll("button")) {
      const on = Number(b.dataset.roll) === state.roll;
      b.classList.toggle("on", on); setAttr(b, "aria-checked", String(on));
    }
  }
  // tools
  const undoBtn = $("undo");
  setText(undoBtn, undoText());  // named first: "Undo Bram's correction of turn 7"
  undoBtn.disabled = !state.sheet.queue.length && !state.shown.last || !!state.fixing || readOnly();
  const zero = $("zero");
  setText(zero, canStrike() ? `${T("Zero")} / ✗` : T("Zero"));  // a word: a lone "0" reads like a count
  setAttr(zero, "title", T("Just the score (0)"));  // its name is the word it shows; this describes it
  setAttr(zero, "aria-pressed", String(state.zeroMode));
  zero.hidden = !!state.rolloff;
  setText($("open-history"), T("History"));
  setText($("open-share"), T("Share"));
  renderFix();
}

function renderFix() {
  const box = $("fix");
  box.hidden = !state.fixing;
  if (!state.fixing) { box.replaceChildren(); delete box.dataset.key; return; }
  const complete = state.pad.length === nDice() || (state.zeroMode && !state.pad.length);
  const options = state.fixOptions ? Object.entries(state.fixOptions).filter(([, o]) => o.legal) : [];
  const key = JSON.stringify([state.fixing.n, complete, options]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const fixing = state.fixing;
  const previous = fixing.choice || fixing.box;  // the entry's own box until another is chosen
  const sel = el("select", { id: "fix-box", "aria-label": T("Box"), onchange: () => { fixing.choice = sel.value; } });
  if (!complete) sel.append(el("option", { value: "" }, T("Type the dice first, then tap the box.")));
  else if (!state.fixOptions) sel.append(el("option", { value: "" }, state.engine.failed && !online() ? T("Not available now.") : "…"));
  else if (!options.length) sel.append(el("option", { value: "" }, T("No box can take this entry.")));
  for (const [b, o] of options) sel.append(el("option", { value: b, selected: b === previous }, `${named(b)} — ${o.written}`));
  sel.disabled = !options.length;
  const label = el("label", { class: "fix-label" }, T("Box") + " ");
  label.append(sel);
  box.replaceChildren(label,
    el("button", { type: "button", id: "save-fix", class: "primary", disabled: !options.length, onclick: saveFix }, T("Save correction")),
    el("button", { type: "button", id: "cancel-fix", class: "ghost", onclick: cancelFix }, T("Cancel")));
}

// --- keys and wiring --------------------------------------------------------------------------------
export function wire() {
  if (state.wired) return;
  state.wired = true;
  $("backspace").onclick = () => { if (state.pad.length) removeDie(state.pad.length - 1); };
  $("undo").onclick = () => undo();
  $("zero").onclick = () => {  // a 0 for the player whose turn it is, whichever sheet is shown
    state.zeroMode = !state.zeroMode;
    if (!state.fixing && !state.rolloff) {
      if (!state.padFor) state.padFor = { seat: nextSeat(), filled: filledOf(nextSeat()) };
      if (!state.zeroMode && !state.pad.length) state.padFor = null;
      state.tab = nextSeat();
    }
    if (state.zeroMode && !state.fixing && !canStrike()) state.pad = [];
    refreshHints(); draw();
  };
  $("open-history").onclick = () => openDrawer("history");
  $("open-share").onclick = () => openDrawer("share");
  $("drawer-close").onclick = () => closeDrawer();
  $("drawer").addEventListener("click", (/** @type {Event} */ e) => { if (e.target === $("drawer")) closeDrawer(); });
  document.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (!state.sheet || $("ks").hidden) return;
    if (e.key === "Escape") { if (state.drawer) closeDrawer(); else if (state.fixing) cancelFix(); else if (state.zeroMode) { state.zeroMode = false; draw(); } return; }
    if (state.drawer || e.ctrlKey || e.metaKey || e.altKey) return;
    if (target(e).closest && target(e).closest("input, select, textarea")) return;
    if (e.key >= "1" && e.key <= "6") { addDie(Number(e.key)); e.preventDefault(); }
    else if (e.key === "Backspace" && state.pad.length) { removeDie(state.pad.length - 1); e.preventDefault(); }
    else if (e.key === "0") { $("zero").click(); e.preventDefault(); }
  });
}
