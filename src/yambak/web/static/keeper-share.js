// @ts-check
// A kept sheet's drawer and end: the history (tap an entry to correct it), sharing (the code, its QR
// code, a new code, the link to watch), the game record, and the results as text and as a picture.
import { boot, T, colon, N, colLabel, colShort, $, el, setText, setAttr, toast } from "./page.js";
import { miniDice } from "./dice.js";
import { saveSheet } from "./keeper-store.js";
import { auth, named, online, points, readOnly, refusalText, state } from "./keeper-state.js";
import { actionText, startFix, undo, undoText } from "./keeper-pad.js";
import { reconnect } from "./keeper-sync.js";
import { draw } from "./keeper-draw.js";

// After the end: who won and what decided it, each column's winner, undo of the last entry, a new sheet
// with the same players, sharing.
export function renderEnd() {
  const end = $("end");
  const show = state.shown.finished && !state.rolloff && !state.fixing;
  end.hidden = !show;
  if (!show) { delete end.dataset.key; return; }
  const key = `${state.sheet.id}|${state.shown.v}|${state.sheet.queue.length}|${JSON.stringify(state.shown.winners)}|${readOnly()}|${boot.lang}|${undoText()}`;
  if (end.dataset.key === key) return;
  end.dataset.key = key;
  const [head, why] = headline();
  const parts = [el("h2", { id: "end-title" }, T("Game over")), el("p", { class: "winner" }, head)];
  if (why) parts.push(el("p", { class: "why" }, why));
  const actions = el("div", { class: "actions" });
  actions.append(el("button", { type: "button", class: "primary", id: "again", onclick: sameAgain }, T("New sheet, same players")));
  if (!readOnly()) actions.append(el("button", { type: "button", id: "end-undo", onclick: () => undo() }, undoText()));
  actions.append(
    el("button", { type: "button", id: "share-picture", onclick: sharePicture }, T("Share as a picture")),
    el("button", { type: "button", id: "share-text", onclick: shareText }, T("Share as text")),
    el("button", { type: "button", id: "end-history", onclick: () => openDrawer("history") }, T("History")),
    el("button", { type: "button", id: "end-share", onclick: () => openDrawer("share") }, T("Share")),
  );
  parts.push(actions);
  end.replaceChildren(...parts);
}

// The end's headline and what decided it, as the sheet view words it (`yambak.gameview.end_words`, the
// terminal's words too): each sentence translated here, its numbers as the language writes them and a
// box by its name. Never one winner where two are level.
function headline() {
  const said = (state.shown.end || []).map((s) => T(s.text, Object.fromEntries(Object.entries(s.args).map(
    ([k, v]) => [k, k === "box" ? named(String(v)) : typeof v === "number" ? points(v) : v]))));
  return [said[0] || T("Game over"), said[1] || ""];
}


// --- the drawer: history (tap an entry to correct it), sharing -------------------------------------------
/** @param {"history" | "share"} what */
export function openDrawer(what) { state.drawer = what; $("drawer").hidden = false; renderDrawer(); $("drawer-close").focus(); if (what === "share") refreshCode(); }
export function closeDrawer() { state.drawer = null; $("drawer").hidden = true; }

export function renderDrawer() {
  setText($("drawer-title"), state.drawer === "history" ? T("History") : T("Share this sheet"));
  setText($("drawer-close"), "×");
  setAttr($("drawer-close"), "aria-label", T("Close"));
  $("drawer-body").replaceChildren(state.drawer === "history" ? historyList() : sharePanel());
}

/** @param {string} who @param {string} box @param {number[] | null | undefined} dice @param {number} r */
function historyText(who, box, dice, r, announced = false) {
  const rollText = state.shown.rules.roll_matters ? ` · ${T("roll {n}", { n: r })}` : "";
  return `${who} · ${named(box)}${announced ? ` · ${T("announced")}` : ""}${dice ? " · " + dice.join(" ") : ""}${rollText}`;
}

export function historyList() {
  const ol = el("ol", { class: "history", reversed: true });
  // with the phone's engine, an undo not sent yet shows as what it took back (its note below), marked unsent
  const unsentUndos = state.engine.ready ? state.sheet.queue.filter((e) => e.kind === "undo").length : 0;
  const queued = state.sheet.queue.map((e, i) => {
    if (e.kind === "undo" && unsentUndos) return null;
    let text;
    if (e.kind === "undo") text = T("Undo last entry");
    else if (e.kind === "fix") text = T("Correction of entry {n}", { n: e.turn }) + ` · ${named(e.box || "")} · ${e.dice ? e.dice.join(" ") : "0"}`;
    else if (e.kind === "rolloff") text = T("Roll-off");
    else text = historyText(state.shown.players[e.seat ?? -1] ? state.shown.players[e.seat ?? -1].name : "", e.box || "", e.kind === "dice" ? e.dice : null, e.roll || 1);
    const refused = state.results[i] && !state.results[i].ok;
    return el("li", { class: "pending" + (refused ? " invalid" : ""), "data-id": e.id }, `${text} · ${T("not sent yet")}`);
  });
  for (const li of queued.reverse()) if (li) ol.append(li);
  // what undo took back, each after the entry it left last (newest first, like the list)
  const undone = state.shown.undone || [];
  const notes = undone.map((u, i) => {
    const unsent = i >= undone.length - unsentUndos;
    const text = unsent ? `${actionText(u, true)} · ${T("not sent yet")}` : actionText(u, true);
    return { at: u.at ?? 0, li: el("li", { class: unsent ? "undone pending" : "undone" }, text) };
  }).reverse();
  const turns = state.shown.history.length;
  for (const x of notes.filter((x) => x.at >= turns)) ol.append(x.li);
  for (const [target, rounds] of Object.entries(state.shown.rolloffs || {}).reverse()) {
    const where = target === "total" ? T("Total") : colLabel(target);
    for (const r of rounds.slice().reverse()) {
      ol.append(el("li", { class: "rolloff" }, colon(T("Roll-off for {column}", { column: where }), Object.entries(r).map(([s, d]) => `${state.shown.players[Number(s)].name} ${d.dice.join("")} (${d.pips})`).join(" · "))));
    }
  }
  for (const h of state.shown.history.slice().reverse()) {
    if (h.n < turns) for (const x of notes.filter((x) => x.at === h.n)) ol.append(x.li);
    const li = el("li", { value: String(h.n), "data-n": String(h.n), class: [state.invalid[h.n] ? "invalid" : "", h.announced ? "was-announced" : ""].filter(Boolean).join(" ") });
    const who = state.shown.players[h.player].name;
    const b = el("button", { type: "button", class: "entry", onclick: () => startFix(h) });
    const what = el("span", { class: "what" });
    what.append(el("b", {}, who), ` ${named(h.box)}`);
    const how = el("span", { class: "how" });
    if (h.dice) how.append(miniDice(h.dice));
    else how.append(el("span", {}, h.strike ? T("struck") : "—"));
    if (state.shown.rules.roll_matters) how.append(el("span", {}, ` ${T("roll {n}", { n: h.roll })}`));
    if (h.announced) how.append(el("span", { class: "announced" }, T("announced")));  // said at the table after roll 1
    b.append(el("span", { class: "n" }, `${h.n}.`), what, el("b", { class: "val" }, `${h.strike ? "✗ " : ""}${h.written}`), how);
    const label = historyText(who, h.box, h.dice, h.roll, h.announced) + ` = ${h.strike ? "✗ " : ""}${h.written}`;
    setAttr(b, "aria-label", T("Correct entry {n}", { n: h.n }) + `: ${label}`);
    li.append(b);
    if (state.invalid[h.n]) li.append(el("span", { class: "why" }, state.invalid[h.n]));
    ol.append(li);
  }
  if (turns) for (const x of notes.filter((x) => x.at === 0)) ol.append(x.li);
  return ol;
}

// Sharing: the code (its QR code and link: each phone that joins with it gets a write token), a new
// code (the old one's tokens stop writing), and the link to watch (the sheet's id: it only reads).
function sharePanel() {
  const box = el("div", { class: "share-panel" });
  if (state.sheet.token && state.sheet.code) {
    box.append(el("p", { class: "code-line" }, T("Code") + ": "), el("p", { class: "code", id: "code" }, state.sheet.code));
    box.append(el("p", { class: "muted" }, T("Other phones open the start page, choose Join and type the code, or scan:")));
    if (online()) {
      const qr = el("div", { id: "qr", class: "qr", role: "img", "aria-label": T("QR code of this sheet") });
      box.append(qr);
      drawQr(qr);
    }
    box.append(el("input", { readonly: true, value: `${location.origin}/k/${state.sheet.code}`, "aria-label": T("Link"), id: "join-link" }));
    if (online()) {
      box.append(el("button", { type: "button", id: "renew-code", onclick: renewCode }, T("New code")),
        el("p", { class: "muted small" }, T("A new code stops every phone that joined with this one from writing; share the new one with those who keep score.")));
    }
  } else if (state.sheet.token) box.append(el("p", { class: "muted" }, T("The code comes when this phone is online again.")));
  if (state.sheet.synced) {
    const watch = el("label", { class: "watch-link" }, T("Link to watch (read only)"));
    watch.append(el("input", { readonly: true, value: `${location.origin}/keep/${state.sheet.id}`, id: "watch-link" }));
    box.append(watch);
  }
  const actions = el("div", { class: "actions" });
  actions.append(el("button", { type: "button", onclick: downloadRecord }, T("Download the game record")));
  if (state.shown.finished) actions.append(el("button", { type: "button", onclick: sharePicture }, T("Share as a picture")), el("button", { type: "button", onclick: shareText }, T("Share as text")));
  box.append(actions);
  return box;
}

// The QR code of the join link: asked with the write token (the code is a key) and drawn in place.
/** @param {HTMLElement} host */
async function drawQr(host) {
  try {
    const r = await fetch(`/keep/${state.sheet.id}/qr.svg`, { headers: auth() });
    if (r.status === 403) { await revoked(); return; }
    if (!r.ok) return;
    const doc = new DOMParser().parseFromString(await r.text(), "image/svg+xml");
    const svgEl = doc.documentElement;
    if (svgEl.nodeName.toLowerCase() !== "svg") return;
    svgEl.setAttribute("width", "180"); svgEl.setAttribute("height", "180"); svgEl.setAttribute("aria-hidden", "true");
    host.replaceChildren(document.importNode(svgEl, true));
  } catch { /* offline: the code and the link suffice */ }
}

// This phone's token stopped writing (another phone renewed the code): it watches until it joins again.
async function revoked() {
  if (!state.sheet || !state.sheet.token) return;
  state.sheet.token = null;
  await saveSheet(state.sheet);
  reconnect();
  draw();
}

async function renewCode() {
  if (!confirm(T("Phones that joined with the code {code} will no longer be able to write. Make a new code?", { code: state.sheet.code }))) return;
  try {
    const r = await fetch(`/api/keep/${state.sheet.id}/code`, { method: "POST", headers: auth() });
    const data = await r.json().catch(() => null);
    if (r.status === 403) { await revoked(); return; }
    if (!r.ok || !data) { toast(refusalText(data) || T("Not available now.")); return; }
    state.sheet.code = data.code;
    if (data.token) { state.sheet.token = data.token; reconnect(); }
    await saveSheet(state.sheet);
    toast(T("New code: {code}", { code: data.code }));
    if (state.drawer) renderDrawer();
  } catch { toast(T("Joining a shared sheet needs the network.")); }
}

// The code now (another phone may have renewed it), when the drawer opens on it.
async function refreshCode() {
  if (!state.sheet || !state.sheet.token || !state.sheet.synced || !online()) return;
  try {
    const r = await fetch(`/api/keep/${state.sheet.id}/code`, { headers: auth() });
    if (r.status === 403) { await revoked(); return; }
    const data = r.ok ? await r.json() : null;
    if (data && data.code && data.code !== state.sheet.code) { state.sheet.code = data.code; await saveSheet(state.sheet); if (state.drawer === "share") renderDrawer(); }
  } catch { /* offline */ }
}

function downloadRecord() {
  const blob = new Blob([JSON.stringify(state.shown.record, null, 1)], { type: "application/json" });
  save(blob, `yambak-${state.sheet.name.replace(/[^\p{L}\p{N}]+/gu, "-")}-${state.sheet.id.slice(0, 6)}.json`);
}

/** @param {Blob} blob @param {string} filename */
function save(blob, filename) {
  const a = el("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}

// --- results to share: text, and a picture drawn on a canvas ----------------------------------------------
function resultsText() {
  const rulesName = rulesTitle();
  const lines = [`${state.sheet.name} · ${rulesName}`];
  const standings = state.shown.standings || [], columnWinners = state.shown.column_winners;
  (state.shown.ranking || []).forEach((s) => {  // the engine's standings, best first
    const p = state.shown.players[s];
    lines.push(`${standings[s]}. ${p.name} ${p.total}${p.match_points != null ? ` (${N("{n} pt", "{n} pts", p.match_points)})` : ""}${(state.shown.winners || []).includes(s) ? " ★" : ""}`);
  });
  if (state.shown.rules.columns.length > 1 && columnWinners) {
    for (const c of state.shown.rules.columns) {
      lines.push(colon(colLabel(c.id), (columnWinners[c.id] || []).map((s) => state.shown.players[s].name).join(", ")));
    }
  }
  if (state.shown.decided && state.shown.decided.by === "outright") lines.push(headline()[1]);  // how it was won
  return lines.join("\n");
}

function rulesTitle() {
  const preset = (boot.presets || []).find((/** @type {{id: string, name: string}} */ x) => x.id === state.shown.rules.id);
  return preset ? preset.name : state.shown.rules.name;
}

async function shareText() {
  const text = resultsText();
  try {
    if (navigator.share) { await navigator.share({ title: state.sheet.name, text }); return; }
  } catch { /* cancelled: copy instead */ }
  try { await navigator.clipboard.writeText(text); toast(T("Copied.")); } catch { save(new Blob([text], { type: "text/plain" }), `yambak-${state.sheet.id.slice(0, 6)}.txt`); }
}

function drawResults() {
  const order = state.shown.ranking || [];  // the engine's standings, best first
  const standings = state.shown.standings || [], columnWinners = state.shown.column_winners;
  const w = 1080, line = 84, h = 330 + order.length * line + (state.shown.rules.columns.length > 1 ? 70 : 0);
  const c = el("canvas", { width: String(w), height: String(h) });
  const g = c.getContext("2d");
  g.fillStyle = "#1d6b47"; g.fillRect(0, 0, w, h);
  g.fillStyle = "#ffffff"; g.font = "700 56px system-ui, sans-serif"; g.fillText(state.sheet.name, 60, 110);
  g.font = "400 36px system-ui, sans-serif"; g.fillStyle = "#d6efe0"; g.fillText(rulesTitle(), 60, 165);
  order.forEach((s, i) => {
    const p = state.shown.players[s], y = 250 + i * line;
    const won = (state.shown.winners || []).includes(s);
    g.fillStyle = won ? "#fde68a" : "rgba(255,255,255,.12)";
    g.fillRect(50, y - 58, w - 100, line - 12);
    g.fillStyle = won ? "#1c1e21" : "#ffffff";
    g.font = "700 44px system-ui, sans-serif"; g.fillText(`${standings[s]}. ${p.name}`, 80, y);
    const score = `${p.total}${p.match_points != null ? `  ·  ${N("{n} pt", "{n} pts", p.match_points)}` : ""}`;
    g.textAlign = "right"; g.fillText(score, w - 80, y); g.textAlign = "left";
  });
  if (state.shown.rules.columns.length > 1 && columnWinners) {
    g.font = "400 30px system-ui, sans-serif"; g.fillStyle = "#d6efe0";
    const text = state.shown.rules.columns.map((col) => `${colShort(col.id)} ${(columnWinners[col.id] || []).map((s) => state.shown.players[s].name).join("/")}`).join(" · ");
    g.fillText(text.length > 70 ? text.slice(0, 69) + "…" : text, 60, h - 90);
  }
  if (state.shown.decided && state.shown.decided.by === "outright") {  // one column (Generala): the line is free
    g.font = "400 30px system-ui, sans-serif"; g.fillStyle = "#d6efe0"; g.fillText(headline()[1], 60, h - 90);
  }
  g.font = "600 28px system-ui, sans-serif"; g.fillStyle = "#9fcdb1"; g.fillText("yambak", 60, h - 36);
  return c;
}

async function sharePicture() {
  const canvas = drawResults();
  const blob = await new Promise((res) => canvas.toBlob(res, "image/png"));
  if (!blob) return;
  const file = new File([blob], `yambak-${state.sheet.id.slice(0, 6)}.png`, { type: "image/png" });
  try {
    if (navigator.canShare && navigator.canShare({ files: [file] })) { await navigator.share({ files: [file], title: state.sheet.name, text: resultsText() }); return; }
  } catch { /* cancelled: save it instead */ }
  save(blob, file.name);
}

async function sameAgain() {
  const record = /** @type {any} */ (state.shown.record);  // a game record (docs/rules.md §11)
  const spec = state.sheet.spec || (typeof record.rules === "string" ? { preset: record.rules, options: {} }
    : record.rules.rows ? { rules: record.rules } : { preset: record.rules.preset, options: record.rules.options || {} });
  state.go.newSheet({ name: state.sheet.name, spec, players: record.players });
}
