// @ts-check
// A group's page (/keep/group/ID): the season is the server's (drawn from the sheets' records by the
// engine); this script only joins with a code the address brings (#join=, kept out of history at once)
// and lets a phone that joined file its own sheets: each with the sheet's write token, kept on this phone;
// a member may make a new code (every other phone then joins again with it) or leave.
import { boot, T, $, el, wireSettings, toast } from "./page.js";
import { listSheets, loadSheet } from "./keeper-store.js";
import { myGroups, joinGroup, groupError, post, rememberGroup, forgetGroup } from "./keeper-groups.js";

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

/** This phone's token files no more (the code was renewed elsewhere): it says so and forgets the group. */
function revoked() {
  forgetGroup(group.id);
  $("member-card").hidden = true;
  showError(T("This group's code was renewed: this phone adds sheets again once it joins with the new code."));
}

/** @param {{id: string, name: string, token: string, code: string}} me */
async function renewCode(me) {
  if (!confirm(T("Phones that joined with the code {code} will no longer be able to add sheets. Make a new code?", { code: me.code }))) return;
  const { ok, data } = await post(`/api/keep/groups/${group.id}/code`, {}, me.token);
  if (!ok) { if (data && data.code === "auth/group-token") revoked(); else showError(groupError(data)); return; }
  rememberGroup({ ...me, code: data.code });
  $("group-code").textContent = T("Code to join this group: {code}", { code: data.code });
  toast(T("New code: {code}", { code: data.code }));
}

/** @param {{id: string, name: string, token: string, code: string}} me */
async function leave(me) {
  if (!confirm(T("Leave this group? The sheets this phone added stay in its season."))) return;
  const { ok, data } = await post(`/api/keep/groups/${group.id}/leave`, {}, me.token);
  if (!ok && !(data && data.code === "auth/group-token")) { showError(groupError(data)); return; }
  forgetGroup(group.id);
  $("member-card").hidden = true;
}

/** The code now, from the server (another phone may have renewed it); false: this phone's token files no more.
 * @param {{id: string, name: string, token: string, code: string}} me */
async function current(me) {
  try {
    const r = await fetch(`/api/keep/groups/${group.id}`, { headers: { authorization: `Bearer ${me.token}` } });
    if (!r.ok) return true;  // the server cannot say now: the code kept here stands
    const data = await r.json();
    if (!data.code) return false;
    if (data.code !== me.code) rememberGroup({ ...me, code: data.code });
    me.code = data.code;
  } catch { /* offline: the code kept here */ }
  return true;
}

async function renderMine() {
  const me = myGroups().find((g) => g.id === group.id);
  if (!me) return;
  if (!(await current(me))) { revoked(); return; }
  $("member-card").hidden = false;
  $("group-code").textContent = T("Code to join this group: {code}", { code: me.code });
  $("renew-group-code").onclick = () => renewCode(me);
  $("leave-group").onclick = () => leave(me);
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
        if (ok) location.reload();
        else if (data && data.code === "auth/group-token") revoked();
        else { add.disabled = false; showError(groupError(data)); }
      });
      li.append(" ", add);
    }
    items.push(li);
  }
  list.replaceChildren(...(items.length ? items : [el("li", { class: "muted" }, T("No sheet kept on this phone yet."))]));
}

wireSettings();
fromAddress().then(renderMine);
