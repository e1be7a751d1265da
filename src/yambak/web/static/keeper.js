// @ts-check
// The score-keeper page: one page for the start page (/keep/) and every sheet (/keep/ID), moving between
// them without reloading (so that the phone's engine, started once, stays), kept by a service worker so
// that it opens, starts sheets and keeps them with no network at all.
import { boot, wireSettings, $ } from "./page.js";
import { Engine } from "./keeper-engine.js";
import * as home from "./keeper-home.js";
import * as sheet from "./keeper-sheet.js";
import * as offline from "./keeper-offline.js";
import { wireHome as wireGroups } from "./keeper-groups.js";

const engine = new Engine(boot.engine);
/** @type {any} */ (window).yambakEngine = engine;  // for the tests and the curious: engine.readyIn, engine.failed

const go = {
  // Show a path of the keeper: the start page, or a sheet (with the server's view when it came with it).
  /** @param {string} path @param {import("./protocol").SheetView | null} view */
  to(path, view, replace = false) {
    if (replace) history.replaceState({}, "", path); else if (location.pathname !== path) history.pushState({}, "", path);
    route(view);
  },
  /** @param {any} args what keeper-home.js newSheet takes */
  newSheet(args) { home.newSheet(args); },
};

function sheetId() {
  const m = location.pathname.match(/^\/keep\/([A-Za-z0-9_-]{8,40})\/?$/);
  return m && m[1] !== "join" ? m[1] : null;
}

/** @param {import("./protocol").SheetView | null} view */
async function route(view) {
  const id = sheetId();
  if (id) {
    if (await sheet.open(id, view && view.id === id ? view : null)) return;
    if (navigator.onLine !== false && !view && sheetId() === id) {  // not on this phone: ask the server (a link, a code)
      const v = await fetch(`/api/keep/${id}`).then((r) => (r.ok ? r.json() : null)).catch(() => null);
      if (v && sheetId() === id) sheet.open(id, v);
    }
    return;
  }
  sheet.close();
  home.show();
}

home.init({ engine, go, syncAll: sheet.syncAll });
$("keep-home").addEventListener("click", (/** @type {Event} */ e) => { e.preventDefault(); go.to("/keep/", null); });
sheet.init({ engine, go });
window.addEventListener("popstate", () => route(null));
wireSettings();
wireGroups();
route(boot.view && boot.sheet === sheetId() ? boot.view : null);

// Offline: the service worker keeps this page, its scripts, Pyodide and the engine; the start page says
// whether this phone is ready (keeper-offline.js).
offline.watch(engine);
