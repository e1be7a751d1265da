// What every page module shares: the boot data the server embeds, translation, labels, DOM helpers.
// Strings arrive translated from the server (boot.strings); user text is only ever set as textContent.
export const boot = JSON.parse(document.getElementById("boot").textContent);
export const T = (s, args = {}) => (boot.strings[s] || s).replace(/\{(\w+)\}/g, (_, k) => String(args[k] ?? ""));
export const rowLabel = (id) => boot.labels.rows[id] || id;
export const colLabel = (id) => boot.labels.columns[id] || id;
// "free.sixes" as players read it; the bare row where the sheet has one column.
export const boxLabel = (box, columns) => { const [c, r] = box.split("."); return columns > 1 ? `${colLabel(c)} · ${rowLabel(r)}` : rowLabel(r); };
export const $ = (id) => document.getElementById(id);
export const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : v);
  }
  if (text != null) e.textContent = text;
  return e;
};
