// @ts-check
// The strategy-and-odds page: the calculator (kept dice and rolls left, answered by the server's
// /api/.../odds from the exact brain) and the openings' filter (type dice, see the rolls holding them).
// The page's figures are written by the server; this script only asks and filters.
import { boot, T, $, $$, el, pct, num, rowLabel, wireSettings, target } from "./page.js";

wireSettings();

const form = $("calc-form");
if (form) {
  form.addEventListener("submit", async (/** @type {SubmitEvent} */ e) => {
    e.preventDefault();
    const kept = String($("calc-kept").value || "").replace(/\s+/g, "");
    const q = new URLSearchParams({ kept, rolls: String($("calc-rolls").value) });
    const error = $("calc-error"), out = $("calc-out"), body = $("calc-body");
    let r = null;
    try { r = await fetch(`${boot.api}?${q}`, { headers: { accept: "application/json" } }); } catch { r = null; }
    const data = r ? await r.json().catch(() => null) : null;
    if (!r || !r.ok || !data) {
      error.textContent = (data && (data.message || (data.error && data.error.message))) || T("Not connected: try again.");
      error.hidden = false; out.hidden = true;
      return;
    }
    error.hidden = true;
    const rows = [];
    for (const [row, v] of Object.entries(data.chances)) {
      const tr = el("tr", { "data-row": row });
      tr.append(el("th", { scope: "row" }, rowLabel(row)), el("td", { class: "num", "data-value": String(v) }, pct(v, 2)));
      rows.push(tr);
    }
    for (const [row, v] of Object.entries(data.expected_sums)) {
      const tr = el("tr", { "data-row": row });
      tr.append(el("th", { scope: "row" }, (boot.sums || {})[row] || rowLabel(row)), el("td", { class: "num", "data-value": String(v) }, num(v, 2)));
      rows.push(tr);
    }
    body.replaceChildren(...rows);
    out.hidden = false;
  });
}

// The openings' filter: a roll shows when it holds every typed die (66 shows every roll with two sixes).
const filter = $("openings-filter");
if (filter) {
  $("openings-filter-label").hidden = false;
  const rows = $$("#openings-table tbody tr");
  const count = $("openings-count");
  /** @type {(roll: string, typed: string) => boolean} */
  const holds = (roll, typed) => {
    const left = [...roll];
    for (const d of typed) { const i = left.indexOf(d); if (i < 0) return false; left.splice(i, 1); }
    return true;
  };
  filter.addEventListener("input", (/** @type {Event} */ e) => {
    const typed = String(target(e).value).replace(/[^1-6]/g, "");
    let shown = 0;
    for (const tr of rows) { const on = holds(tr.dataset.roll, typed); tr.hidden = !on; if (on) shown++; }
    count.textContent = typed ? T("{shown} of {all} rolls", { shown, all: rows.length }) : "";
  });
}

// Figures computed on the server for these rules: follow their progress, and load the page again when
// they are ready (the server writes every figure; the words come with each answer, in the page's language).
if (boot.figures && $("figures-progress")) {
  const bar = /** @type {HTMLProgressElement} */ ($("figures-progress"));
  const said = $("figures-status");
  const poll = async () => {
    /** @type {{state: string, done: number, total: number, text: string} | null} */
    let data = null;
    try {
      const r = await fetch(boot.figures, { headers: { accept: "application/json" } });
      data = r.ok ? await r.json() : null;
    } catch { data = null; }
    if (data) {
      if (data.total) { bar.max = data.total; bar.value = data.done; }
      said.textContent = data.text;
      if (data.state === "ready") { location.reload(); return; }
      if (data.state === "failed") return;
    }
    setTimeout(poll, 3000);
  };
  setTimeout(poll, 3000);
}
