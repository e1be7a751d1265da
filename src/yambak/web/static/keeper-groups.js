// @ts-check
// Groups of kept sheets (a club, a family) on this phone: the groups it joined or made, each with the token
// its code handed out (that token files this phone's own sheets in the group), and the start page's card
// to join one by its code or make one. The season itself is the group's page (/keep/group/ID), drawn by
// the server from the sheets' records.
import { T, $, el, boot } from "./page.js";

const KEY = "yambak.keep.groups";
/** @typedef {{id: string, name: string, token: string, code: string}} Group */

/** @returns {Group[]} */
export function myGroups() { try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch { return []; } }

/** @param {Group} g */
export function rememberGroup(g) {
  const all = myGroups().filter((x) => x.id !== g.id);
  all.unshift({ id: g.id, name: g.name, token: g.token, code: g.code });
  try { localStorage.setItem(KEY, JSON.stringify(all.slice(0, 50))); } catch { /* full: the group page still reads */ }
}

/** This phone no longer files in the group: it left, or its code was renewed. @param {string} id */
export function forgetGroup(id) {
  try { localStorage.setItem(KEY, JSON.stringify(myGroups().filter((x) => x.id !== id))); } catch { /* the page still reads */ }
}

/** @param {Record<string, any> | null} err */
export function groupError(err) {
  if (!err) return T("Groups need the network.");
  return (boot.errors && boot.errors[err.code]) || err.message || err.code;
}

/** POST JSON; resolves {ok, data}. @param {string} url @param {any} body @param {string | null} token */
export async function post(url, body, token = null) {
  /** @type {Record<string, string>} */
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    return { ok: r.ok, data: await r.json().catch(() => null) };
  } catch { return { ok: false, data: null }; }
}

/** Join a group by its code: remembered here, with this phone's token. @param {string} code */
export async function joinGroup(code) {
  const { ok, data } = await post("/api/keep/groups/join", { code: code.replace(/\s|-/g, "").slice(0, 12) });
  if (ok && data) rememberGroup(data);
  return { ok, data };
}

// --- the start page's card ----------------------------------------------------------------------------
/** @param {string} text */
function showError(text) { const e = $("groups-error"); e.textContent = text; e.hidden = !text; }

function renderMine() {
  const list = $("my-groups");
  list.replaceChildren(...myGroups().map((g) => { const li = el("li"); li.append(el("a", { href: `/keep/group/${g.id}` }, g.name)); return li; }));
  list.hidden = !list.children.length;
}

export function wireHome() {
  const card = $("groups-card");
  if (!card) return;
  $("group-new").hidden = false;
  renderMine();
  $("group-join").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault(); showError("");
    const { ok, data } = await joinGroup(/** @type {HTMLInputElement} */ ($("group-join").querySelector("input[name=code]")).value);
    if (ok) location.assign(data.url); else showError(groupError(data));
  });
  $("group-new").addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault(); showError("");
    const name = /** @type {HTMLInputElement} */ ($("group-new").querySelector("input[name=name]")).value;
    const { ok, data } = await post("/api/keep/groups", { name: name.slice(0, 200) });
    if (ok && data) { rememberGroup(data); location.assign(data.url); } else showError(groupError(data));
  });
}
