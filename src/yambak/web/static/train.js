// @ts-check
// The trainer's page: a position where the obvious choice loses points. The player picks a keep, a box or
// an announcement and sees at once what it loses and the three best choices (the server's grade: the
// coach's values). Without a profile this device keeps its puzzle rating and streak (localStorage) and
// sends them with each answer; the server answers with the update.
import { boot, T, $, el, num, pct, boxLabel, rowLabel, api, say, colon } from "./page.js";
import { miniDice } from "./dice.js";

const preset = boot.preset;
const KEY = `yambak.train.${preset}`;
const SKIPPED = 40;  // positions this device saw lately, not offered again (the server takes up to 50)

/** @typedef {{mu?: number, sigma?: number, streak: number, best_streak: number, seen: string[]}} Device */
/** @typedef {{kind: string, keep: number[], box?: string, strike?: boolean, points?: number, loss: number, odds?: Odds | null}} Choice */
/** @typedef {{row: string, chance?: number, expected_sum?: number}} OddsRow */
/** @typedef {{rows: OddsRow[]}} Odds */
/** @typedef {{mu: number, sigma: number, rating: number}} Rating */
/** @typedef {{id: string, dice: number[], roll: number, exact: boolean, choices: Choice[], filled: [string, number][], score: number}} Position */
/** @typedef {{chosen: Choice, best: Choice[], loss: number, solved: boolean, measure: string, rating: {after: Rating}, streak: number, best_streak: number}} Answer */

/** @returns {Device} */
function device() {
  const empty = { streak: 0, best_streak: 0, seen: [] };
  try { return { ...empty, ...JSON.parse(localStorage.getItem(KEY) || "{}") }; } catch { return empty; }
}
/** @param {Partial<Device>} patch */
function store(patch) {
  try { localStorage.setItem(KEY, JSON.stringify({ ...device(), ...patch })); } catch { /* private mode */ }
}

/** @type {Position} */
let position;

/** @param {{message?: string}} data */
function showError(data) {
  const e = $("error");
  e.textContent = data.message || T("Not connected: try again.");
  e.hidden = false;
}

/** @param {Rating | undefined} rating @param {number | undefined} streak */
function showRating(rating, streak) {
  if (rating) $("rating").textContent = num(rating.rating, 1);
  if (streak !== undefined) $("streak").textContent = String(streak);
}

// A choice as the player reads it, in the page's language.
/** @param {Choice} c */
function label(c) {
  const box = c.box ? boxLabel(c.box, boot.columns) : "";
  if (c.kind === "keep") return c.keep.length ? T("Keep {dice}", { dice: c.keep.join(" ") }) : T("Roll all the dice again");
  if (c.kind === "announce") return `${T("Announce")} · ${box}`;
  return c.strike ? T("Strike {box} for 0", { box }) : T("Score {value} in {box}", { value: c.points, box });
}

const SHOWN_ROWS = 4;  // the likeliest rows of a keep's odds, to stay compact on a phone

// A keep's odds in one line: its likeliest boxes by the end of the turn, then a sum row's expected total.
/** @param {Odds} odds */
function oddsLine(odds) {
  const chances = odds.rows.filter((r) => r.chance !== undefined && r.chance > 0).sort((a, b) => (b.chance ?? 0) - (a.chance ?? 0)).slice(0, SHOWN_ROWS);
  const sums = odds.rows.filter((r) => r.expected_sum !== undefined).slice(0, 1);
  return [...chances.map((r) => `${rowLabel(r.row)} ${pct(r.chance ?? 0, 1)}`), ...sums.map((r) => `${rowLabel(r.row)} ≈ ${num(r.expected_sum ?? 0, 1)}`)].join(" · ");
}

/** @param {Answer} data */
function showOdds(data) {
  const shown = [data.chosen, ...data.best.filter((o) => !same(o, data.chosen))].filter((o) => o.odds);
  $("odds").replaceChildren(...shown.map((o) => el("li", {}, colon(label(o), o.odds ? oddsLine(o.odds) : ""))));
  $("odds-card").hidden = !shown.length;
}

/** @type {(a: Choice, b: Choice) => boolean} */
const same = (a, b) => a.kind === b.kind && (a.kind === "keep" ? a.keep.join() === b.keep.join() : a.box === b.box && !!a.strike === !!b.strike);

/** @param {boolean} daily */
async function load(daily) {
  $("error").hidden = true;
  const mine = device();
  const params = new URLSearchParams();
  if (!boot.profile) {
    if (mine.mu !== undefined) { params.set("mu", String(mine.mu)); params.set("sigma", String(mine.sigma)); }
    for (const id of mine.seen.slice(-SKIPPED)) params.append("skip", id);
  }
  // the first position of a ruleset may take seconds (its pool is made then): the buttons wait with it
  for (const b of [$("next"), $("daily")]) { b.disabled = true; b.setAttribute("aria-busy", "true"); }
  const [ok, data] = await api("GET", daily ? `/api/train/${preset}/daily` : `/api/train/${preset}/next?${params}`);
  for (const b of [$("next"), $("daily")]) { b.disabled = false; b.removeAttribute("aria-busy"); }
  if (!ok) { showError(data); return; }
  position = data.position;
  showRating(data.rating, boot.profile ? data.streak : mine.streak);
  render();
}

function render() {
  const p = position;
  $("dice").replaceChildren(miniDice(p.dice));
  $("roll").textContent = T("roll {n}", { n: p.roll });
  $("exact").textContent = p.exact ? T("Exact: the optimal strategy's expected final score.") : T("Estimate: the strong bot's evaluation of each choice.");
  const buttons = p.choices.map((c) => el("button", { type: "button", class: "train-choice", "data-choice": JSON.stringify(c.kind === "keep" ? { kind: c.kind, keep: c.keep } : { kind: c.kind, box: c.box, ...(c.strike ? { strike: true } : {}) }), onclick: () => answer(c) }, label(c)));
  $("choices").replaceChildren(...buttons);
  $("sheet").replaceChildren(...(p.filled.length ? p.filled.map(([box, value]) => el("li", {}, colon(boxLabel(box, boot.columns), String(value))))
    : [el("li", { class: "muted" }, T("Nothing written yet"))]));
  $("total").textContent = colon(T("Total"), String(p.score));
  $("position").dataset.position = p.id;
  $("position").hidden = false;
  $("sheet-card").hidden = false;
  $("result").hidden = true;
  buttons[0].focus();
}

/** @param {Choice} choice */
async function answer(choice) {
  const mine = device();
  const body = { position: position.id, choice: { kind: choice.kind, ...(choice.kind === "keep" ? { keep: choice.keep } : { box: choice.box }), ...(choice.strike ? { strike: true } : {}) } };
  if (!boot.profile) Object.assign(body, { rating: { mu: mine.mu ?? boot.start.mu, sigma: mine.sigma ?? boot.start.sigma }, streak: mine.streak, best_streak: mine.best_streak });
  const [ok, reply] = await api("POST", `/api/train/${preset}/answer`, body);
  if (!ok) { showError(reply); return; }
  const data = /** @type {Answer} */ (reply);
  for (const b of $("choices").querySelectorAll("button")) b.disabled = true;
  const buttons = [...$("choices").querySelectorAll("button")];
  position.choices.forEach((c, i) => {
    if (same(c, data.chosen)) buttons[i].classList.add("chosen");
    if (same(c, data.best[0])) buttons[i].classList.add("best");
  });
  // Balut's positions are valued in category points (the coach's measure), every other preset's in points
  const verdict = data.solved ? T("Solved")
    : data.measure === "category_points" ? T("This choice loses {value} category points.", { value: num(data.loss, 2) })
    : T("This choice loses {value} points.", { value: num(data.loss, 2) });
  $("result-title").textContent = verdict;
  $("best").replaceChildren(...data.best.map((o) => el("li", {}, o.loss > 0 ? `${label(o)} (−${num(o.loss, 2)})` : label(o))));
  showOdds(data);
  $("result").hidden = false;
  showRating(data.rating.after, data.streak);
  if (!boot.profile) store({ mu: data.rating.after.mu, sigma: data.rating.after.sigma, streak: data.streak, best_streak: data.best_streak, seen: [...mine.seen, position.id].slice(-SKIPPED) });
  say(verdict);
  $("next").focus();  // the verdict shows right under it, above the choices
  $("result").scrollIntoView({ block: "nearest" });
}

$("next").addEventListener("click", () => load(false));
$("daily").addEventListener("click", () => load(true));
load(false);
