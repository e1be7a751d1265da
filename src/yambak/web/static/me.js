// @ts-check
// "My games": times in the reader's zone, and the sheets this device kept that are not in the profile's
// games yet (the keeper's history, game records of docs/rules.md §11), added on request with a progress bar.
import { boot, T, N, $, el, api, localTimes, toast, wireSettings } from "./page.js";
import { listSheets, loadSheet } from "./keeper-store.js";
import { yourTurns } from "./turns.js";

wireSettings();
localTimes();
yourTurns("your-turns");  // the owner's page only: a shared one has no such section

async function pending() {
  if (!boot.me) return [];
  const known = new Set(boot.kept);
  const out = [];
  for (const x of (await listSheets()).filter((x) => x.finished && !known.has(x.id))) {
    const s = await loadSheet(x.id);
    const record = s && (s.final || (s.base && s.base.record));
    if (record) out.push({ id: x.id, name: x.name, synced: !!x.synced, record, updated: x.updated });
  }
  return out;
}

/** @param {{name: string, record: {players: string[]}}} item a game record to import */
function seatPicker(item) {
  const me = boot.me.name.toLocaleLowerCase();
  const select = el("select", { "aria-label": T("Which player were you in {name}?", { name: item.name }) });
  item.record.players.forEach((p, i) => select.append(el("option", { value: String(i) }, p)));
  select.append(el("option", { value: "" }, T("none of them")));
  const mine = item.record.players.findIndex((p) => p.toLocaleLowerCase() === me);
  select.value = mine >= 0 ? String(mine) : "";
  return select;
}

const items = await pending().catch(() => []);
if (items.length && $("import")) {
  $("import").hidden = false;
  $("import-text").textContent = N("{n} finished sheet kept on this device is not in your games yet. Which player were you?", "{n} finished sheets kept on this device are not in your games yet. Which player were you?", items.length);
  const pickers = items.map((item) => {
    const select = seatPicker(item);
    const li = el("li");
    li.append(el("span", { class: "sheet-name" }, item.name), select);
    $("import-list").append(li);
    return select;
  });
  $("import-go").onclick = async () => {
    const bar = $("import-progress");
    bar.hidden = false; bar.max = items.length; bar.value = 0;
    $("import-go").disabled = true;
    let failed = 0;
    for (const [i, item] of items.entries()) {
      const seat = pickers[i].value === "" ? null : Number(pickers[i].value);
      let [ok] = await api("POST", "/api/me/kept", { sheet: item.id, seat });
      if (!ok) [ok] = await api("POST", "/api/me/kept", { sheet: item.id, seat, record: item.record });
      if (!ok) failed += 1;
      bar.value = i + 1;
    }
    if (failed) toast(N("{n} sheet could not be added.", "{n} sheets could not be added.", failed));
    location.reload();
  };
}
