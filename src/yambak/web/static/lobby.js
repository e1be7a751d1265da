// @ts-check
// The lobby: one click starts a game (solo against a bot, pass and play, invite a friend); the full
// form shows the chosen ruleset's options as controls. The player's name and last choices are
// remembered on this device.
import { boot, T, $, $$, el, api, remembered, remember, toast, wireSettings, recentTables, noteTable, playerName } from "./page.js";
import { yourTurns } from "./turns.js";

const memory = remembered();
const nameInput = $("you-name"), levelSelect = $("you-level");
if (memory.name) nameInput.value = memory.name;
if (boot.me) nameInput.value = boot.me.name;  // a profile's name is the player's name
if (memory.level) levelSelect.value = memory.level;
nameInput.addEventListener("change", async () => {
  remember({ name: nameInput.value.trim() });
  if (!boot.me || !nameInput.value.trim()) return;
  const [ok, data] = await api("PATCH", "/api/me", { name: nameInput.value });
  if (ok) { boot.me.name = data.profile.name; nameInput.value = data.profile.name; }
  else toast(data.message || T("Not saved: try again."));
});
levelSelect.addEventListener("change", () => remember({ level: levelSelect.value }));
const me = () => nameInput.value.trim() || T("Player");

let starting = false;  // a double tap on a quick start makes one table, not two
/** @param {string} preset @param {{kind: string, name?: string, bot?: string}[]} seats */
async function start(preset, seats, extra = {}) {
  if (starting) return;
  starting = true;
  document.body.classList.add("starting");
  remember({ name: me(), level: levelSelect.value, preset });
  const body = { preset, seats, listed: false, ...extra };  // no name: its pages say whose table it is
  try {
    const r = await fetch("/api/tables", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    if (r.ok) { location.href = data.url; return; }  // still starting while the table page loads
    toast(data.message || T("The table could not be created."));
  } catch { toast(T("Not connected: try again.")); }
  starting = false;
  document.body.classList.remove("starting");
}

for (const card of $$(".game-card")) {
  const preset = card.dataset.preset;
  card.querySelector("[data-start=solo]").onclick = () => start(preset, [{ kind: "human", name: me() }, { kind: "bot", bot: levelSelect.value, name: T("Bot") }]);
  card.querySelector("[data-start=invite]").onclick = () => start(preset, [{ kind: "human", name: me() }, { kind: "open" }]);
  card.querySelector("[data-start=pass]").onclick = () => openPass(preset);
  if (memory.preset === preset) card.classList.add("last");
}

// Pass and play: the names of everyone at this device.
const dialog = $("pass-dialog");
/** @type {string | null} */
let passPreset = null;
/** @param {number} i @param {string} value */
function nameField(i, value) {
  const row = el("div", { class: "pass-name" });
  const label = el("label", {}, T("Player {n}", { n: i + 1 }));
  label.append(el("input", { maxlength: "24", value, required: true, autocomplete: "off" }));
  const drop = el("button", { type: "button", class: "ghost drop", "aria-label": T("Remove player {n}", { n: i + 1 }) }, "×");
  drop.onclick = () => { row.remove(); renumber(); };
  row.append(label, drop);
  return row;
}
// Player 1, 2, ... again after a removal; a table needs two at least, so the last two stay
function renumber() {
  const rows = [...$("pass-names").children];
  rows.forEach((row, i) => {
    row.querySelector("label").firstChild.textContent = T("Player {n}", { n: i + 1 });
    const drop = row.querySelector(".drop");
    drop.setAttribute("aria-label", T("Remove player {n}", { n: i + 1 }));
    drop.hidden = rows.length <= 2;
  });
}
/** @param {string} preset */
function openPass(preset) {
  passPreset = preset;
  const names = (memory.pass && memory.pass.length >= 2) ? memory.pass : [me(), T("Player {n}", { n: 2 })];
  names[0] = me();
  $("pass-names").replaceChildren(...names.map((/** @type {string} */ n, /** @type {number} */ i) => nameField(i, n)));
  renumber();
  if (dialog.showModal) dialog.showModal(); else dialog.setAttribute("open", "");
  $("pass-names").querySelector("input").focus();
}
$("pass-more").onclick = () => {
  const box = $("pass-names");
  if (box.children.length >= 8) return;
  const f = nameField(box.children.length, T("Player {n}", { n: box.children.length + 1 }));
  box.append(f); renumber(); f.querySelector("input").select();
};
$("pass-cancel").onclick = () => dialog.close();
$("pass-form").addEventListener("submit", (/** @type {Event} */ e) => {
  e.preventDefault();
  const names = [...$("pass-names").querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean);
  if (names.length < 1) return;
  remember({ pass: names });
  dialog.close();
  start(/** @type {string} */ (passPreset), names.map((name) => ({ kind: "human", name })));
});

// The full form: the chosen preset's options; its last choices remembered.
const select = $("preset");
function showOptions() {
  for (const fs of $$("fieldset.options")) fs.hidden = fs.dataset.preset !== select.value;
}
if (select) {
  if (memory.preset && [...select.options].some((o) => o.value === memory.preset)) select.value = memory.preset;
  select.addEventListener("change", () => { showOptions(); remember({ preset: select.value }); });
  showOptions();
  const [first] = $$("#create input[name=seat0_name]");
  if (first && memory.name) first.value = memory.name;
}
const addSeat = $("add-seat");
if (addSeat) addSeat.onclick = () => {
  const [next] = $$("#create .seat-row[hidden]");
  if (!next) return;
  next.hidden = false;
  next.querySelector("select").value = "human";
  next.querySelector("input").focus();
  if (!document.querySelector("#create .seat-row[hidden]")) addSeat.hidden = true;
};
// The games this device was playing and did not see finish: one tap back to each (those where it is the
// profile's turn are in the list above it already).
const turns = boot.me ? yourTurns("your-turns") : Promise.resolve([]);
async function showResume() {
  const cards = [];
  const listed = new Set(await turns);
  for (const t of recentTables()) {
    if (listed.has(t.id)) continue;
    const [ok, v] = await api("GET", `/api/tables/${encodeURIComponent(t.id)}`);
    if (!ok || v.finished) { if (ok || v.code === "table/unknown") noteTable(t.id, [], false); continue; }
    const yours = v.to_act.some((/** @type {number} */ s) => t.seats.includes(s));
    const who = v.players.map(playerName).join(" · ");
    const card = el("a", { class: "resume-card" + (yours ? " yours" : ""), href: `/t/${encodeURIComponent(t.id)}` });
    const what = el("span", { class: "what" });
    const host = v.players.find((/** @type {import("./protocol").TablePlayer} */ p) => p.kind === "human");
    what.append(el("strong", {}, v.name || T("{name}'s table", { name: host ? host.name : T("Player") })), el("span", { class: "who" }, who));
    card.append(what, el("span", { class: "go" }, yours ? T("Your turn") : T("Continue")));
    cards.push(card);
  }
  const box = $("resume");
  if (!box || !cards.length) return;
  box.replaceChildren(el("h2", {}, T("Continue a game")), ...cards);
  box.hidden = false;
}
showResume();
document.querySelector("#form-error")?.scrollIntoView({ block: "center" });
wireSettings();
