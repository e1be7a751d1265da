// @ts-check
// Quick reactions between players: a fixed set (server/tables/reactions.py), each a picture drawn here as
// SVG (no emoji font needed) and a translated phrase; nobody types anything. Each viewer may mute a
// player's reactions at a table: remembered on this device.
import { T } from "./page.js";

const NS = "http://www.w3.org/2000/svg";

/** @type {Record<string, {text: () => string, draw: string}>} the pictures: SVG markup of a 32 x 32 box */
export const REACTIONS = {
  nice: { text: () => T("Nice one!"), draw:
    '<path d="M9 14h-4v13h4zM11 27h11.5a3 3 0 0 0 2.9-2.3l2-8A3 3 0 0 0 24.5 13H19l1-5a3 3 0 0 0-3-3l-6 9z" fill="#f5b83d" stroke="#8a5a00" stroke-width="1.6" stroke-linejoin="round"/>' },
  wow: { text: () => T("Wow!"), draw:
    '<circle cx="16" cy="17" r="11" fill="#fcd34d" stroke="#8a5a00" stroke-width="1.6"/><circle cx="12" cy="14" r="1.8" fill="#3b2600"/><circle cx="20" cy="14" r="1.8" fill="#3b2600"/><ellipse cx="16" cy="21.5" rx="3" ry="3.6" fill="#3b2600"/><path d="M27 3l1 2.6 2.6 1-2.6 1-1 2.6-1-2.6L23.4 6.6 26 5.6zM4 2l.8 2 2 .8-2 .8L4 7.6l-.8-2-2-.8 2-.8z" fill="#7c3aed"/>' },
  ouch: { text: () => T("Ouch!"), draw:
    '<circle cx="16" cy="16" r="11" fill="#fcd34d" stroke="#8a5a00" stroke-width="1.6"/><path d="M10.5 12.5l3 1.8-3 1.8M21.5 12.5l-3 1.8 3 1.8" fill="none" stroke="#3b2600" stroke-width="1.6" stroke-linecap="round"/><path d="M11 22q2.5-2.4 5 0t5 0" fill="none" stroke="#3b2600" stroke-width="1.6" stroke-linecap="round"/><path d="M25.5 6q2.2 3 0 4.4q-2.2-1.4 0-4.4z" fill="#60a5fa"/>' },
  luck: { text: () => T("Good luck!"), draw:
    '<g fill="#22a05a" stroke="#0f5c33" stroke-width="1.2"><circle cx="12" cy="11" r="5"/><circle cx="20" cy="11" r="5"/><circle cx="12" cy="19" r="5"/><circle cx="20" cy="19" r="5"/></g><path d="M16 15q3 8 7 14" fill="none" stroke="#0f5c33" stroke-width="1.8" stroke-linecap="round"/>' },
  thanks: { text: () => T("Thanks!"), draw:
    '<path d="M16 27S4 19.5 4 11.8A6.2 6.2 0 0 1 16 9a6.2 6.2 0 0 1 12 2.8C28 19.5 16 27 16 27z" fill="#ef4444" stroke="#991b1b" stroke-width="1.6" stroke-linejoin="round"/>' },
  gg: { text: () => T("Good game!"), draw:
    '<path d="M10 5h12v6a6 6 0 0 1-12 0zM10 7H5q0 6 5.5 6.5M22 7h5q0 6-5.5 6.5" fill="#f5b83d" stroke="#8a5a00" stroke-width="1.6" stroke-linejoin="round"/><path d="M16 17v5M11 27h10l-1.5-5h-7z" fill="#f5b83d" stroke="#8a5a00" stroke-width="1.6" stroke-linejoin="round"/>' },
};

/** A reaction's picture, for screen readers a part of its phrase's button or line (aria-hidden).
 * @param {string} id */
export function picture(id) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 32 32");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "reaction-pic");
  // the markup is this file's own constant, never anything a player sent
  svg.innerHTML = REACTIONS[id] ? REACTIONS[id].draw : "";
  return svg;
}

// Muted players, per table and seat, on this device.
const KEY = "yambak.muted";
/** @returns {string[]} */
function muted() { try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch { return []; } }
/** @param {string} table @param {number} seat */
export const isMuted = (table, seat) => muted().includes(`${table}:${seat}`);
/** @param {string} table @param {number} seat @param {boolean} on */
export function setMuted(table, seat, on) {
  const key = `${table}:${seat}`;
  const list = muted().filter((k) => k !== key);
  if (on) list.push(key);
  try { localStorage.setItem(KEY, JSON.stringify(list.slice(-500))); } catch { /* private mode: this page only */ }
}
