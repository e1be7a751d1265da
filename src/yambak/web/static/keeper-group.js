// @ts-check
// A group's page (/keep/group/ID): the season is the server's (drawn from the sheets' records by the
// engine); this script only joins with a code the address brings (#join=, kept out of history at once)
// and lets a phone that joined file its own sheets: each with the sheet's write token, kept on this phone.
import { boot, T, $, el, wireSettings } from "./page.js";
import { listSheets, loadSheet } from "./keeper-store.js";
import { myGroups, joinGroup, groupError, post } from "./keeper-groups.js";

const group = boot.group;
const filed = new Set(boot.sheets || []);

/** @param {string} text */
function showError(text) { const e = $("group-error"); e.textContent = text; e.hidden = !text; }

async function fromAddress() {
  const code = new URLSearchParams(location.hash.slice(1)).get("join");
  if (location.hash) history.replaceState(history.state, "", location.pathname + location.search);
  if (!code || myGroups().some((g) => g.id === group.id)) return;
  const { ok, data } = await joinGroup(code);
  if (!ok) showError(groupError(data));
}

async function renderMine() {
  const me = myGroups().find((g) => g.id === group.id);
  if (!me) return;
  $("member-card").hidden = false;
  $("group-code").textContent = T("Code to join this group: {code}", { code: me.code });
  const list = $("mine");
  const items = [];
  for (const line of await listSheets()) {
    const sheet = await loadSheet(line.id);
    if (!sheet || !sheet.token || !line.synced) continue;  // only a sheet this phone writes on, known to the server
    const li = el("li");
    li.append(el("a", { href: `/keep/${line.id}` }, line.name));
    if (filed.has(line.id)) li.append(" ", el("span", { class: "muted small" }, T("In this group")));
    else {
      const add = /** @type {HTMLButtonElement} */ (el("button", { type: "button", class: "ghost", "data-sheet": line.id }, T("Add to this group")));
      add.addEventListener("click", async () => {
        add.disabled = true; showError("");
        const { ok, data } = await post(`/api/keep/groups/${group.id}/sheets`, { sheet: line.id, token: sheet.token }, me.token);
        if (ok) location.reload(); else { add.disabled = false; showError(groupError(data)); }
      });
      li.append(" ", add);
    }
    items.push(li);
  }
  list.replaceChildren(...(items.length ? items : [el("li", { class: "muted" }, T("No sheet kept on this phone yet."))]));
}

wireSettings();
fromAddress().then(renderMine);
