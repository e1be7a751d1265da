// @ts-check
// Dice drawn with pips (SVG), a tray of them that keeps its buttons across updates, and a short
// roll animation (none under prefers-reduced-motion). Nothing here knows a rule.
import { svg, setAttr } from "./page.js";

// Pip positions on a 3 x 3 grid (column, row), per face.
/** @type {Record<number, number[][]>} */
const PIPS = {
  1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [2, 0], [0, 2], [2, 2]],
  5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], 6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]],
};
const TUMBLE_MS = 5 * 75;  // the faces change five times, then show the roll (style.css: the tumble's 0.42 s)
const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// One die face as an SVG element (value 0: an empty place in the tray); `colours`: the pips' colour of
// each face 1 to 6 where the ruleset gives them (Kismet), drawn by the stylesheet's `c-NAME` classes.
/** @param {number} value @param {string[]} [colours] @returns {SVGElement} */
export function dieSvg(value, colours = []) {
  const s = svg("svg", { viewBox: "0 0 60 60", "aria-hidden": "true", focusable: "false" });
  s.append(svg("rect", { class: "face", x: 3, y: 3, width: 54, height: 54, rx: 11 }));
  drawPips(s, value, colours);
  return s;
}

/** @param {Element} s @param {number} value @param {string[]} [colours] */
function drawPips(s, value, colours = []) {
  for (const old of [...s.querySelectorAll(".pip")]) old.remove();
  const colour = colours[value - 1];
  const cls = colour ? `pip c-${String(colour).replace(/[^a-z]/gi, "")}` : "pip";
  for (const [c, r] of PIPS[value] || []) s.append(svg("circle", { class: cls, cx: 15 + c * 15, cy: 15 + r * 15, r: 5.6 }));
}

// A row of small dice (the coach's keeps, the review's rolls).
/** @param {number[]} values */
export function miniDice(values) {
  const span = document.createElement("span");
  span.className = "mini-dice";
  span.setAttribute("role", "img");  // the faces are drawn: their values, for screen readers
  span.setAttribute("aria-label", values.join(" "));
  for (const v of values) span.append(dieSvg(v));
  return span;
}

export class DiceTray {
  /** @param {HTMLElement} host the element to fill
   * @param {{labels: (i: number, value: number, held: boolean) => string, onToggle: (i: number) => void}} handlers
   *   labels: a die's accessible name; onToggle: a tap on die i */
  constructor(host, { labels, onToggle }) {
    this.host = host; this.labels = labels; this.onToggle = onToggle;
    /** @type {HTMLButtonElement[]} */ this.buttons = [];
    /** @type {number[]} */ this.values = [];
    /** @type {string[]} the pips' colours of faces 1 to 6 (none: the usual black) */
    this.colours = [];
  }

  // dice: values (empty: nothing rolled yet); held: positions; active: this device may hold now
  /** @param {number} n @param {number[]} dice @param {number[]} held @param {boolean} active */
  render(n, dice, held, active) {
    while (this.buttons.length < n) {
      const i = this.buttons.length;
      const b = document.createElement("button");
      b.type = "button"; b.className = "die"; b.dataset.pos = String(i);
      b.append(dieSvg(0));
      b.addEventListener("click", () => this.onToggle(i));
      this.host.append(b); this.buttons.push(b); this.values.push(0);
    }
    while (this.buttons.length > n) { this.buttons.pop()?.remove(); this.values.pop(); }
    this.buttons.forEach((b, i) => {
      const value = dice.length ? dice[i] : 0;
      const isHeld = dice.length > 0 && held.includes(i);
      if (this.values[i] !== value) { drawPips(/** @type {Element} */ (b.firstChild), value, this.colours); this.values[i] = value; }
      b.classList.toggle("blank", !value);
      b.classList.toggle("held", isHeld);
      setAttr(b, "data-value", value || null);
      setAttr(b, "aria-pressed", value ? String(isHeld) : null);
      setAttr(b, "aria-disabled", active && value ? null : "true");
      setAttr(b, "aria-label", this.labels(i, value, isHeld));
    });
  }

  // A short tumble of the dice that were rolled (positions), faces flickering until the real ones.
  // Tumble these dice; returns how long it lasts (ms; 0 under reduced motion).
  /** @param {number[]} positions */
  animate(positions) {
    if (reducedMotion() || !positions.length) return 0;
    for (const i of positions) {
      const b = this.buttons[i]; if (!b) continue;
      b.classList.remove("rolling"); void b.offsetWidth; b.classList.add("rolling");
      let ticks = 0;
      const timer = setInterval(() => {
        ticks += 1;
        // the faces the tray shows now (a later update may have cleared them)
        if (ticks >= 5) { clearInterval(timer); drawPips(/** @type {Element} */ (b.firstChild), this.values[i], this.colours); b.classList.remove("rolling"); return; }
        drawPips(/** @type {Element} */ (b.firstChild), 1 + Math.floor(Math.random() * 6), this.colours);
      }, 75);
    }
    return TUMBLE_MS;
  }
}
