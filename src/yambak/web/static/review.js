// @ts-check
// The review of a finished game: each player's decisions that had a choice, what they lost
// against the best, the biggest mistakes marked on the final sheet. All computed by the server's coach.
import { boot, T, colon, N, $, el, boxLabel as pageBoxLabel, colLabel, rowLabel, colShort, setAttr, setText, target, wireSettings, num } from "./page.js";
import { miniDice } from "./dice.js";
import { Sheet, sheetRows, sumCell } from "./sheet.js";

// The same viewer serves a table's review (/t/{id}/review) and a game of a player's history
// (/replay/{id}, its review fetched after the page shows: it may take the coach a moment).
/** @typedef {{kind: string, keep?: number[], box?: string, strike?: boolean, points?: number, wins?: boolean}} Choice a choice, as the coach names it */
/** @typedef {{turn: number, round: number, roll: number, dice?: number[], chosen: Choice, best: Choice, loss: number, box?: string}} Decision */
/** @typedef {{turn: {player: number, box: string, strike?: boolean, written: number, rolls: number[][], held?: number[][]} | null,
 *   turns: number, n: number, round: number, rounds: number, players: any[], seats?: number[],
 *   outright?: {seats: number[], turn: number, box: string, by_roll: number}}} Frame the game after a turn (the server's) */
/** @type {import("./protocol").TableView} */
const view = boot.view;
/** @type {{measure: string, exact: boolean, graded_keeps: boolean, at_stake?: number, win_points?: number, players: {decisions: Decision[], mistakes: Decision[], accuracy: number | null, lost: number, costliest?: number}[]}} */
let review = boot.review || { measure: "score", exact: true, graded_keeps: true, players: view.players.map(() => ({ decisions: [], mistakes: [], accuracy: null, lost: 0 })) };
const nCols = view.rules.columns.length;
/** @param {string} box */
const boxLabel = (box) => pageBoxLabel(box, nCols);
let seat = boot.seats.length ? boot.seats[0] : 0;
/** The losses' unit: the coach's measure (match points, category points, else points). @param {string} measure */
const unitOf = (measure) => measure === "match_points" ? T("match points") : measure === "category_points" ? T("category points") : T("points");
let unit = unitOf(review.measure);
const sheet = new Sheet($("sheet"), { onActivate: (/** @type {any} */ info) => { if (info && info.action) go(info.action.turn); } });

/** @param {Choice} o */
function choiceText(o) {
  if (o.kind === "keep") return o.keep && o.keep.length ? T("keep {dice}", { dice: o.keep.join(" ") }) : T("reroll all");
  const box = boxLabel(o.box || "");
  // the row alone where one column takes announcements: not "announce Announce · Straight"
  const announcing = view.rules.columns.filter((c) => c.announce).length;
  if (o.kind === "announce") return T("announce {box}", { box: announcing > 1 ? box : rowLabel((o.box || "").split(".")[1] || "") });
  const text = o.strike ? T("strike {box}", { box }) : T("{box} for {points}", { box, points: o.points });
  return o.wins ? `${text} (${T("wins outright")})` : text;  // docs/rules.md §7: a win, not its points
}

/** What a decision lost, in the review's unit; a missed outright win is said as such (its loss counts the win
 * as the ruleset's win_points, a figure on no sheet). @param {Decision} d @param {number} digits */
function lossText(d, digits) {
  if (d.best.wins && !d.chosen.wins) return T("missed an outright win");
  return `−${num(d.loss, digits)} ${unit}`;
}

/** @param {Decision} d @param {boolean} top */
function decisionItem(d, top) {
  const li = el("li", { class: top ? "top" : "" });
  const jump = el("button", { type: "button", class: "link jump" }, T("Show this turn"));
  jump.onclick = () => { go(d.turn); $("turn").scrollIntoView({ block: "nearest" }); };
  const head = el("span", {}, `${T("Turn {n}, after roll {roll}", { n: d.round, roll: d.roll })} `);
  if (d.dice && d.dice.length) head.append(miniDice(d.dice));
  li.append(head);
  const chosen = el("span", {}, colon(T("Played"), ""));  // French puts a space before the colon
  if (d.chosen.kind === "keep" && d.chosen.keep && d.chosen.keep.length) chosen.append(miniDice(d.chosen.keep), " ");
  chosen.append(choiceText(d.chosen));
  const best = el("span", {}, colon(T("Best"), ""));
  if (d.best.kind === "keep" && d.best.keep && d.best.keep.length) best.append(miniDice(d.best.keep), " ");
  best.append(choiceText(d.best));
  li.append(chosen, best, el("span", { class: "loss" }, d.loss > 0 ? lossText(d, 2) : T("best choice")), jump);
  return li;
}

function render() {
  const tabs = $("review-players");
  tabs.replaceChildren(...view.players.map((p) => {
    const b = el("button", { type: "button", role: "tab", class: "tab", "aria-selected": String(p.seat === seat), id: `rtab-${p.seat}` }, p.name);
    b.onclick = () => { seat = p.seat; render(); };
    return b;
  }));
  tabs.hidden = view.players.length < 2;  // a game alone: nobody else to pick
  setAttr($("review-summary"), "aria-labelledby", `rtab-${seat}`);
  /** @type {{decisions: Decision[], mistakes: Decision[], accuracy: number | null, lost: number, costliest?: number, stand_in?: number[]}} */
  const r = review.players[seat];
  const parts = [];
  if (r.accuracy == null) parts.push(el("p", {}, T("No decision with a choice.")));
  else {
    const line = el("p", { class: "accuracy-line" });
    if (review.at_stake != null) {  // match points: each loss is of that game's expected match points; their sum is not
      line.append(el("span", { class: "accuracy" }, num(r.accuracy, 2)), " ", N("{unit} given away per decision on average ({n} decision). 0 is perfect play.", "{unit} given away per decision on average ({n} decisions). 0 is perfect play.", r.decisions.length, { unit }));
      parts.push(line, el("p", { class: "costliest" }, T("The costliest decision gave away {lost} of the {stake} match points at stake.", { lost: num(r.costliest ?? 0, 1), stake: num(review.at_stake, 0) })));
    } else {
      line.append(el("span", { class: "accuracy" }, num(r.accuracy, 2)), " ", N("{unit} lost per decision on average ({n} decision, {lost} in all). 0 is perfect play.", "{unit} lost per decision on average ({n} decisions, {lost} in all). 0 is perfect play.", r.decisions.length, { unit, lost: num(r.lost, 1) }));
      parts.push(line);
    }
  }
  parts.push(el("p", { class: "muted small" }, review.exact ? T("Exact: measured against perfect play.") : T("Estimate: measured against the strong bot's evaluation.")));
  if (review.win_points != null) parts.push(el("p", { class: "muted small win-points" }, T("These values count an outright win as {n} points; the sheet does not.", { n: review.win_points })));
  if (!review.graded_keeps) parts.push(el("p", { class: "muted small" }, T("This record does not say which dice were kept: boxes only.")));
  const stood = r.stand_in || [];  // turns the bot played for this player (marked on the sheet): not graded
  if (stood.length) parts.push(el("p", { class: "muted small stand-in-note" }, N("The bot played {n} turn for this player (marked on the sheet): not graded.", "The bot played {n} turns for this player (marked on the sheet): not graded.", stood.length)));
  $("review-summary").replaceChildren(...parts);
  // on a phone the list of mistakes is far down the page: a chip for each, to jump straight to its turn
  const chips = $("mistake-chips");
  chips.hidden = !r.mistakes.length;
  chips.replaceChildren(...r.mistakes.map((d) => {
    const b = el("button", { type: "button", class: "chip" }, `${T("Turn {n}", { n: d.round })} ${lossText(d, 1)}`);
    b.onclick = () => { go(d.turn); $("turn").scrollIntoView({ block: "nearest" }); };
    return b;
  }));
  $("mistakes").replaceChildren(...(r.mistakes.length ? r.mistakes.map((d) => decisionItem(d, true)) : [el("li", {}, T("No mistakes: every decision was the best."))]));
  const lost = r.decisions.filter((d) => d.loss > 1e-9);
  const right = r.decisions.length - lost.length;
  $("decisions").replaceChildren(
    ...(right ? [el("li", { class: "muted" }, N("{n} decision was the best choice.", "{n} decisions were the best choice.", right))] : []),
    ...lost.map((d) => decisionItem(d, false)),
  );
  drawSheet();
}

// --- the replay: the game after turn n, from the server; the coach's word on that turn ---------
let n = 0;
let total = Number.MAX_SAFE_INTEGER;  // the server clamps to the game's last turn and says how many
/** @type {Frame | null} */
let shown = null;

/** @param {number} to */
async function go(to, follow = true) {
  n = Math.max(0, Math.min(total, to));
  const r = await fetch(`${boot.frames}${n}`);
  if (!r.ok) return;
  const frame = shown = /** @type {Frame} */ (await r.json());
  total = frame.turns;
  n = frame.n;  // the server's clamp: "the end" is asked for as a number larger than any game
  if (follow && frame.turn && frame.turn.player !== seat && view.players.length > 1) seat = frame.turn.player;
  render(); drawTurn();
}

function drawTurn() {
  const box = $("turn");
  // each step is one player's turn, numbered as that player counts their turns (the coach's notes too)
  const who = shown && shown.turn && view.players.length > 1 ? ` · ${view.players[shown.turn.player].name}` : "";
  setText($("where"), n && shown ? T("Turn {n} of {total}", { n: shown.round, total: shown.rounds }) + who
    : T("Before the first turn"));
  $("first").disabled = $("prev").disabled = n === 0;
  $("next").disabled = $("last").disabled = n >= total;
  if (!shown || !shown.turn) { box.replaceChildren(el("p", { class: "muted" }, T("Step through the game turn by turn."))); return; }
  const t = shown.turn;
  const parts = [el("h2", {}, colon(view.players[t.player].name, t.strike ? T("struck {box}", { box: boxLabel(t.box) }) : T("{box} for {points}", { box: boxLabel(t.box), points: t.written })))];
  const rolls = el("ol", { class: "rolls-list" });
  const held = t.held;
  t.rolls.forEach((dice, i) => {
    const li = el("li", {}, `${T("Roll {n}", { n: i + 1 })}: `);
    li.append(miniDice(dice));
    if (held && i < held.length) { li.append(` ${T("kept")} `); li.append(held[i].length ? miniDice(held[i]) : el("span", {}, "–")); }
    rolls.append(li);
  });
  parts.push(rolls);
  const won = shown.outright;  // docs/rules.md §7: the turn that won at once says so, as a win
  if (won && won.seats.includes(t.player) && won.turn === shown.round) {
    const how = { box: boxLabel(won.box), n: won.by_roll };
    parts.push(el("p", { class: "outright" }, won.by_roll === 1 ? T("Won outright: served {box}.", how) : T("Won outright: {box} by roll {n}.", how)));
  }
  const notes = /** @type {Decision[]} */ (review.players[t.player].decisions).filter((d) => d.turn === n);
  for (const d of notes) parts.push(el("p", { class: d.loss > 1e-9 ? "loss-note" : "muted" }, d.loss > 1e-9
    ? `${T("After roll {roll}", { roll: d.roll })}: ${choiceText(d.chosen)} — ${T("best")}: ${choiceText(d.best)} (${lossText(d, 2)})`
    : `${T("After roll {roll}", { roll: d.roll })}: ${choiceText(d.chosen)} — ${T("best choice")}`));
  box.replaceChildren(...parts);
}

function drawSheet() {
  /** @type {{mistakes: Decision[]}} */
  const r = review.players[seat];
  const marks = new Set(r.mistakes.map((d) => d.box));
  const perPlayer = false;
  const p = shown ? { ...view.players[seat], ...shown.players[seat] } : view.players[seat];
  const current = shown && shown.turn ? shown.turn.box : null;
  const columns = view.rules.columns.map((c) => ({ key: c.id, short: nCols > 1 ? colShort(c.id) : p.name, full: nCols > 1 ? colLabel(c.id) : p.name }));
  sheet.render({
    label: T("Sheet of {name}", { name: p.name }),
    columns, rows: sheetRows(view, perPlayer),
    cell: (colKey, rowKey) => {
      const col = p.columns[colKey];
      if (rowKey.startsWith("#")) return sumCell(view, rowKey, p, col, perPlayer);
      const box = `${colKey}.${rowKey}`;
      const cell = col.boxes[rowKey];
      const mistake = marks.has(box);
      const now = current === box && shown?.turn?.player === seat;
      const turnOf = r.mistakes.find((d) => d.box === box);
      const early = cell.roll != null ? T("the points of roll {n}", { n: cell.roll }) : "";  // points by roll, named
      return { text: cell.score == null ? "" : cell.why === "struck" ? "×" : String(cell.score),
        sub: early ? T("roll {n}", { n: cell.roll }) : "",
        cls: `filled${early ? " by-roll" : ""}${mistake ? " mistake" : ""}${now ? " last" : ""}`,
        label: `${boxLabel(box)}: ${cell.score ?? "–"}${early ? ` (${early})` : ""}${mistake ? ` (${T("a mistake")})` : ""}`, box,
        action: turnOf ? { turn: turnOf.turn } : null, disabled: !turnOf };
    },
  });
}

/** @type {[string, () => number][]} */
const steps = [["first", () => 0], ["prev", () => n - 1], ["next", () => n + 1], ["last", () => total]];
for (const [id, step] of steps) $(id).onclick = () => go(step());
document.addEventListener("keydown", (e) => {
  const t = target(e);
  if (t.matches("input, select, textarea")) return;
  if (e.key === "ArrowLeft" && !t.closest("#sheet")) { go(n - 1); e.preventDefault(); }
  if (e.key === "ArrowRight" && !t.closest("#sheet")) { go(n + 1); e.preventDefault(); }
});
wireSettings();
render();
// open on the reader's own last turn, so that the turn shown and the sheet under it are one player's
go(total, false).then(() => {
  if (view.players.length < 2 || !shown || !shown.turn || shown.turn.player === seat) return;
  const last = (shown.seats || []).lastIndexOf(seat);  // the engine's seat of every turn
  if (last >= 0) go(last + 1, false);
});
if (!boot.review && boot.reviewUrl) {
  const wait = $("review-wait");
  wait.hidden = false;
  fetch(boot.reviewUrl).then((r) => r.ok ? r.json() : null).then((data) => {
    wait.hidden = true;
    if (!data) { $("review-summary").replaceChildren(el("p", { class: "muted" }, T("The coach cannot review this game."))); return; }
    review = data;
    unit = unitOf(review.measure);
    document.body.dataset.reviewed = "1";
    render(); drawTurn();
  }).catch(() => { wait.hidden = true; });
} else document.body.dataset.reviewed = "1";
