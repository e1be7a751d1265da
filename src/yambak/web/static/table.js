// The table page: one WebSocket, the view and events the server sends, nothing computed here but
// layout. What a box would score, why it cannot be filled, what an entry would do: the engine's
// outlook, as the server sends it. Strings come translated (boot.strings); names via textContent.
import { boot, T, rowLabel, colLabel, rowShort, colShort, boxLabel as pageBoxLabel, $, el, setText, setAttr,
  settings, wireSettings, say, toast } from "./page.js";
import { DiceTray, miniDice } from "./dice.js";
import { Sheet, sheetRows, sumCell } from "./sheet.js";

let view = boot.view;
let mine = boot.seats;
let version = view.v;
let ws = null, retry = 500, closedForGood = false, connected = false;
let tab = null, lastActor = null;
let strikeMode = false;
let pending = null;            // { ref, at }: an action on its way; further clicks wait
let nextRef = 1;
let advice = null, adviceKey = null, adviceLoading = false;
let confirmAction = null;
let receivedAt = Date.now();
const reason = (code) => (boot.errors && boot.errors[code]) || T("Not available now.");
const nCols = () => view.rules.columns.length;
const boxLabel = (box) => pageBoxLabel(box, nCols());
const onePerPlayer = () => nCols() === 1 && view.players.length <= 6;  // players side by side

const tray = new DiceTray($("dice"), {
  heldText: T("held"),
  labels: (i, value, held) => value ? `${T("Die {n}: {value}", { n: i + 1, value })}, ${held ? T("held") : T("not held")}` : T("Die {n}", { n: i + 1 }),
  onToggle: (i) => toggle(i),
});
const sheet = new Sheet($("sheet"), { onActivate: (info, button) => activate(info, button) });

// --- the socket ------------------------------------------------------------------------------
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws/${boot.table}`);
  ws.onopen = () => { retry = 500; send({ type: "hello", since: version }); };
  ws.onmessage = (m) => receive(JSON.parse(m.data));
  ws.onclose = (e) => {
    connected = false; pending = null; render();
    if (closedForGood || e.code === 4404 || e.code === 4400) return;
    toast(T("Connection lost, reconnecting…"));
    setTimeout(connect, retry); retry = Math.min(retry * 2, 8000);
  };
}

function send(msg) { if (ws && ws.readyState === 1) { ws.send(JSON.stringify(msg)); return true; } return false; }

function receive(msg) {
  switch (msg.type) {
    case "welcome": mine = msg.seats; connected = true; break;
    case "event":
      view = msg.view; version = msg.v; settle(); tell(msg.event); render(msg.event); break;
    case "events":
      view = msg.view; version = msg.v; settle();
      if (msg.events.length === 1) tell(msg.events[0].event);
      render(); break;
    case "state": view = msg.view; version = msg.v; settle(); render(); break;
    case "advice": adviceLoading = false; if (msg.v === version) { advice = msg.advice; adviceKey = `${msg.seat}:${msg.v}`; } renderCoach(); renderSheet(); break;
    case "rematch": closedForGood = true; location.href = "/t/" + msg.table; break;
    case "error": refused(msg); break;
  }
}

function settle() { pending = null; receivedAt = Date.now(); }

function refused(msg) {
  if (pending && (msg.ref == null || msg.ref === pending.ref)) pending = null;
  if (msg.code === "advice/unavailable") { adviceLoading = false; renderCoach(); }
  toast(msg.message);
  if (msg.code && msg.code.startsWith("stale")) send({ type: "hello", since: version });
  render();
}

// --- acting ----------------------------------------------------------------------------------
// The seat this device acts for now (hot-seat: whoever's turn it is, if it is one of ours).
function actor() {
  if (view.finished) return null;
  const ours = view.to_act.filter((s) => mine.includes(s));
  if (!ours.length) return null;
  if (!view.duplicate) return ours[0];
  return ours.reduce((a, b) => (view.players[b].turns_done < view.players[a].turns_done ? b : a));
}

function act(type, fields = {}) {
  const seat = actor();
  if (seat == null) { toast(whyNot()); return false; }
  if (!connected) { toast(T("Not connected: the move was not sent.")); return false; }
  if (pending && Date.now() - pending.at < 8000) { toast(T("Wait a moment: your last move is on its way.")); return false; }
  const ref = nextRef++;
  pending = { ref, at: Date.now() };
  return send({ type, seat, v: version, ref, ...fields });
}

function whyNot() {
  if (view.finished) return T("The game is over.");
  if (!mine.length) return T("You are watching this table.");
  const cur = view.players[view.current];
  return T("It is {name}'s turn.", { name: cur.name });
}

function toggle(i) {
  const me = actor();
  const turn = me != null ? view.players[me].turn : null;
  if (!turn || !turn.dice || turn.rolls_left <= 0) { if (me == null) toast(whyNot()); return; }
  act(turn.held.includes(i) ? "release" : "hold", { dice: [i] });
}

function roll() {
  const me = actor();
  const turn = me != null ? view.players[me].turn : null;
  if (turn && !turn.can_roll) { toast(reason(turn.roll_code)); return; }
  act("roll");
}

function activate(info, button) {
  if (!info || !info.action) { if (info && info.why) toast(info.why); return; }
  const { box, strike, written } = info.action;
  const zero = strike || written === 0;
  if (zero && settings().confirmZero) {
    ask(strike ? T("Strike {box} for 0?", { box: boxLabel(box) }) : T("Score 0 in {box}?", { box: boxLabel(box) }),
      () => score(box, strike), button);
    return;
  }
  score(box, strike);
}

function score(box, strike) {
  if (act("score", strike ? { box, strike: true } : { box })) { strikeMode = false; closeConfirm(); }
}

function ask(text, yes, returnFocus) {
  const c = $("confirm");
  setText($("confirm-text"), text);
  confirmAction = { yes, returnFocus };
  c.hidden = false;
  $("confirm-yes").focus();
}
function closeConfirm() {
  const c = $("confirm"); if (c.hidden) return;
  c.hidden = true;
  const back = confirmAction && confirmAction.returnFocus;
  confirmAction = null;
  if (back && document.contains(back)) back.focus();
}
$("confirm-yes").onclick = () => { const a = confirmAction; if (a) a.yes(); closeConfirm(); };
$("confirm-no").onclick = () => closeConfirm();
$("confirm").addEventListener("keydown", (e) => { if (e.key === "Escape") closeConfirm(); });

$("roll").onclick = () => roll();
$("strike-mode").onclick = () => { strikeMode = !strikeMode; render(); };
$("undo").onclick = () => {  // the entry to take back is the last one, whoever of ours wrote it
  const seat = (view.can_undo || []).find((s) => mine.includes(s));
  if (seat == null || !connected) return;
  const ref = nextRef++;
  pending = { ref, at: Date.now() };
  send({ type: "undo", seat, v: version, ref });
};
$("hint-toggle").onclick = () => {
  const on = !(settings().hints);
  import("./page.js").then((m) => { m.saveSetting("hints", on); render(); });
};
$("copy-invite").onclick = async () => {
  const input = $("invite");
  try { await navigator.clipboard.writeText(input.value); toast(T("Invite link copied.")); }
  catch { input.select(); document.execCommand && document.execCommand("copy"); toast(T("Invite link copied.")); }
};
$("invite").value = location.origin + "/t/" + boot.table;

// --- what happened, said once ----------------------------------------------------------------
function tell(event) {
  if (!event || event.dice === undefined && event.type !== "scored") return;
  const who = view.players[event.player] ? view.players[event.player].name : "";
  if (event.type === "rolled") {
    say(T("{name} rolled {dice}", { name: who, dice: event.dice.join(" ") }));
  } else if (event.type === "scored") {
    const text = event.strike ? T("{name} struck {box}", { name: who, box: boxLabel(event.box) })
      : T("{name} scored {value} in {box}", { name: who, value: event.written, box: boxLabel(event.box) });
    say(event.extra_bonus ? `${text}. ${T("Extra bonus: +{n}", { n: event.extra_bonus })}` : text);
  } else if (event.type === "announced") {
    say(T("{name} announced {box}", { name: who, box: boxLabel(event.box) }));
  }
}

// --- drawing -----------------------------------------------------------------------------------
function render(event) {
  const me = actor();
  if (me !== lastActor && me != null) { tab = me; strikeMode = false; }
  lastActor = me;
  document.body.dataset.v = String(version);
  document.body.dataset.ready = connected ? "1" : "0";
  document.body.classList.toggle("finished", !!view.finished);
  if (tab == null || tab >= view.players.length) tab = me ?? (view.duplicate ? (mine[0] ?? 0) : view.current);
  renderStrip(me); renderTray(me, event); renderCoach(); renderSheet(); renderResults(); renderRounds(); renderTableInfo();
}

function renderStrip(me) {
  const strip = $("strip");
  const asTabs = !onePerPlayer();
  setAttr(strip, "role", asTabs ? "tablist" : "list");
  const winners = view.finished ? view.winners : [];
  while (strip.children.length > view.players.length) strip.lastChild.remove();
  view.players.forEach((p, i) => {
    let chip = strip.children[i];
    if (!chip) {
      chip = el("button", { type: "button", class: "chip", id: `chip-${i}` });
      chip.append(el("span", { class: "name" }), el("span", { class: "me" }), el("span", { class: "total" }), el("span", { class: "pts" }), el("span", { class: "clock" }));
      chip.onclick = () => { if (!onePerPlayer()) { tab = i; render(); } };
      chip.addEventListener("keydown", (e) => stripKeys(e, i));
      strip.append(chip);
    }
    const toAct = !view.finished && view.to_act.includes(p.seat);
    setText(chip.querySelector(".name"), p.name);
    setText(chip.querySelector(".me"), mine.includes(p.seat) ? T("you") : p.kind === "bot" ? T("bot") : "");
    setText(chip.querySelector(".total"), p.total == null ? "–" : String(p.total));
    setText(chip.querySelector(".pts"), p.match_points != null ? T("{n} pts", { n: p.match_points }) : "");
    setText(chip.querySelector(".clock"), clockText(p));
    chip.classList.toggle("to-act", toAct);
    chip.classList.toggle("winner", winners.includes(p.seat));
    setAttr(chip, "role", asTabs ? "tab" : "listitem");
    setAttr(chip, "aria-selected", asTabs ? String(i === tab) : null);
    setAttr(chip, "aria-controls", asTabs ? "sheet-panel" : null);
    setAttr(chip, "tabindex", asTabs ? (i === tab ? "0" : "-1") : null);
    const state = toAct ? (p.kind === "bot" ? T("thinking") : T("to play")) : "";
    setAttr(chip, "aria-label", `${p.name}${mine.includes(p.seat) ? ` (${T("you")})` : ""}: ${p.total ?? "–"} ${state}`.trim());
  });
  const panel = $("sheet-panel");
  setAttr(panel, "role", asTabs ? "tabpanel" : null);
  setAttr(panel, "aria-labelledby", asTabs ? `chip-${tab}` : null);
  document.documentElement.style.setProperty("--strip", `${strip.offsetHeight}px`);
}

function stripKeys(e, i) {
  if (onePerPlayer()) return;
  const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
  if (!step) return;
  e.preventDefault();
  tab = (i + step + view.players.length) % view.players.length;
  render();
  $(`chip-${tab}`).focus();
}

function clockText(p) {
  const clock = view.clock;
  if (!clock || clock.seat !== p.seat || view.finished) return "";
  const left = Math.max(0, Math.round(clock.left - (Date.now() - receivedAt) / 1000));
  return `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

function renderTray(me, event) {
  const seat = me ?? (view.duplicate ? (mine[0] ?? tab) : view.current);
  const p = view.players[seat];
  const turn = p && p.turn && !p.turn.hidden ? p.turn : null;
  const mineNow = me != null;
  tray.render(view.rules.dice, turn ? turn.dice : [], turn ? turn.held : [], mineNow && turn && turn.rolls_left > 0);
  if (event && event.type === "rolled" && event.player === seat) {
    const rolled = [...Array(view.rules.dice).keys()].filter((i) => !event.held.includes(i));
    tray.animate(rolled);
  }
  // the status line
  let status;
  if (view.finished) status = T("Game over");
  else if (!mineNow) {
    const cur = view.players[view.current];
    if (view.duplicate) status = mine.length ? T("Waiting for the others to finish the round") : T("Watching: everyone plays the same dice");
    else if (cur.kind === "bot") status = T("{name} (bot) is thinking…", { name: cur.name });
    else status = mine.length ? T("{name} is playing", { name: cur.name }) : T("Watching: {name} is playing", { name: cur.name });
  } else {
    const who = mine.length > 1 ? `${p.name}: ` : "";
    if (!turn) status = who + T("Your turn: roll the dice.");
    else if (turn.can_roll) status = who + T("Hold dice and roll again, or choose a box.");
    else status = who + T("Choose a box.");
  }
  setText($("status"), status);
  // notes from the engine's outlook
  const notes = $("notes"); const texts = [];
  if (mineNow && turn) {
    if (turn.announced) texts.push(["", T("Announced: {box}", { box: boxLabel(turn.announced) })]);
    if (turn.must_announce) texts.push(["warn", T("Only announce boxes are left: announce one before rolling again.")]);
    for (const column of turn.closing) texts.push(["", T("{column} boxes can only be filled right now (after roll {roll}).", { column: colLabel(column), roll: turn.rolls })]);
    for (const [box, o] of Object.entries(turn.boxes || {})) {
      if (o.zeroes_pair) texts.push(["warn", T("{box} would zero both {high} and {low}.", { box: boxLabel(box), high: rowLabel(o.pair[0]), low: rowLabel(o.pair[1]) })]);
      if (o.voids_entry) texts.push(["warn", T("{box} would score 0: min must stay below max.", { box: boxLabel(box) })]);
    }
  }
  const key = JSON.stringify(texts);
  if (notes.dataset.key !== key) {
    notes.dataset.key = key;
    notes.replaceChildren(...texts.map(([cls, text]) => el("p", { class: `note ${cls}` }, text)));
  }
  // the roll button
  const rollBtn = $("roll");
  const left = turn ? turn.rolls_left : view.rules.rolls_per_turn;
  setText(rollBtn, turn ? (left > 0 ? T("Roll · {n} left", { n: left }) : T("No rolls left")) : T("Roll the dice"));
  const canRoll = connected && mineNow && (!turn || turn.can_roll);
  setAttr(rollBtn, "aria-disabled", canRoll ? null : "true");
  rollBtn.disabled = !mineNow || view.finished;
  setAttr(rollBtn, "title", mineNow && turn && !turn.can_roll ? reason(turn.roll_code) : null);
  // strike mode: only where a legal box may be struck
  const strikable = mineNow && turn && Object.values(turn.boxes || {}).some((o) => o.strike);
  if (!strikable) strikeMode = false;
  $("strike-mode").hidden = !strikable;
  setAttr($("strike-mode"), "aria-pressed", String(strikeMode));
  // hints
  $("hint-toggle").hidden = !(view.settings && view.settings.hints) || !mine.length || view.finished;
  setAttr($("hint-toggle"), "aria-pressed", String(!!settings().hints));
  // undo
  $("undo").hidden = !(view.can_undo || []).some((s) => mine.includes(s));
  renderAnnounce(me, turn);
}

function renderAnnounce(me, turn) {
  const box = $("announce");
  const options = me != null && turn ? turn.announce : [];
  const withdraw = me != null && turn && turn.can_withdraw;
  box.hidden = !options.length && !withdraw;
  const key = JSON.stringify([options, withdraw]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren();
  if (options.length) {
    const sel = el("select", { id: "announce-select", "aria-label": T("Box to announce") });
    for (const b of options) sel.append(el("option", { value: b }, boxLabel(b)));
    box.append(sel, el("button", { type: "button", id: "announce-btn", onclick: () => act("announce", { box: sel.value }) }, T("Announce")));
  }
  if (withdraw) box.append(el("button", { type: "button", id: "withdraw", class: "ghost", onclick: () => act("withdraw") }, T("Withdraw the announcement")));
}

// The sheet model: one column per player on one-column sheets, else the columns of the chosen player.
function renderSheet() {
  const me = actor();
  const rules = view.rules;
  const perPlayer = onePerPlayer();
  const seats = perPlayer ? view.players.map((p) => p.seat) : [tab];
  const columns = [];
  for (const s of seats) for (const c of rules.columns) {
    const p = view.players[s];
    const key = perPlayer ? `p${s}` : c.id;
    const cls = (perPlayer ? s === (me ?? view.current) : false) ? "me-col" : "";
    columns.push({ key, seat: s, col: c.id, short: perPlayer ? p.name : colShort(c.id), full: perPlayer ? p.name : colLabel(c.id), cls });
  }
  const rows = sheetRows(view, perPlayer);
  const colByKey = Object.fromEntries(columns.map((c) => [c.key, c]));
  const bestBox = hintsOn() && advice && advice.boxes && advice.boxes.length ? advice.boxes[0].box : null;
  const mistakes = new Set(view.review_marks || []);
  sheet.render({
    label: perPlayer ? T("Score sheet") : T("Sheet of {name}", { name: view.players[tab].name }),
    columns, rows,
    cell: (colKey, rowKey) => {
      const c = colByKey[colKey];
      const p = view.players[c.seat];
      const col = p.columns[c.col];
      if (rowKey.startsWith("#")) return sumCell(view, rowKey, p, col, perPlayer);
      const box = `${c.col}.${rowKey}`;
      const cell = col.boxes[rowKey];
      const name = `${perPlayer && view.players.length > 1 ? p.name + ", " : ""}${boxLabel(box)}`;
      if (!cell || cell.hidden) return { text: "▒", cls: "hidden", disabled: true, label: `${name}: ${T("hidden until you finish this round")}`, box, why: T("Hidden until you finish this round.") };
      if (cell.score != null) {
        const last = p.last_box === box;
        const sub = cell.written != null && cell.written !== cell.score ? String(cell.written) : "";
        const label = sub ? T("{box}: {score} (written {written})", { box: name, score: cell.score, written: cell.written }) : `${name}: ${cell.score}`;
        return { text: String(cell.score), sub, cls: `filled${last ? " last" : ""}${mistakes.has(box) && c.seat === tab ? " mistake" : ""}`, disabled: true, label, box, why: T("{box} is already filled.", { box: boxLabel(box) }) };
      }
      const turn = p.turn && !p.turn.hidden ? p.turn : null;
      const o = turn && turn.boxes ? turn.boxes[box] : null;
      const acting = me != null && c.seat === me;
      if (acting && o && o.legal) {
        if (strikeMode && o.strike) {
          return { text: "×", cls: "strike", label: T("Strike {box} for 0", { box: name }), box, action: { box, strike: true, written: 0 }, data: { action: "strike" } };
        }
        const warn = o.zeroes_pair || o.voids_entry;
        const cls = ["legal", o.written === 0 ? "zero" : "", warn ? "warn" : "", bestBox === box ? "best" : ""].filter(Boolean).join(" ");
        let label = T("Score {value} in {box}", { value: o.written, box: name });
        if (o.gain !== o.written) label += ` (${T("total {sign}{n}", { sign: o.gain >= 0 ? "+" : "−", n: Math.abs(o.gain) })})`;
        if (warn) label += `. ${o.zeroes_pair ? T("Zeroes the pair.") : T("Scores 0: min must stay below max.")}`;
        return { text: String(o.written), cls, label, box, action: { box, strike: false, written: o.written }, data: { action: "score" } };
      }
      if (acting && o && o.code) return { text: "", cls: "blocked", disabled: true, label: `${name}: ${reason(o.code)}`, box, why: reason(o.code) };
      const announced = turn && turn.announced === box;
      return { text: "", cls: announced ? "blocked announced" : "blocked", disabled: true, label: `${name}: ${T("open")}`, box,
        why: me == null ? whyNot() : T("Roll the dice before choosing a box.") };
    },
  });
  // the grand total under multi-column sheets
  const g = $("grand");
  const p = view.players[tab];
  const parts = [];
  if (!perPlayer) {
    parts.push(`${T("Total")}: ${p.total ?? "–"}`);
    if (p.match_points != null) parts.push(`${T("Match points")}: ${p.match_points}`);
  }
  setText(g, parts.join(" · "));
  g.hidden = !parts.length;
}

// --- the coach ---------------------------------------------------------------------------------
function hintsOn() { return !!(view.settings && view.settings.hints && settings().hints && actor() != null); }

function renderCoach() {
  const box = $("coach");
  const me = actor();
  if (!hintsOn()) { box.hidden = true; return; }
  box.hidden = false;
  const turn = view.players[me].turn;
  const key = `${me}:${version}`;
  if (!turn || !turn.dice || !turn.dice.length) { box.replaceChildren(el("h2", {}, T("Hints")), el("p", { class: "muted" }, T("Roll the dice: the coach answers after each roll."))); return; }
  if (adviceKey !== key) {
    if (!adviceLoading || adviceKey !== key) { adviceLoading = true; adviceKey = key; advice = null; send({ type: "advise", seat: me, v: version }); }
    box.replaceChildren(el("h2", {}, T("Hints")), el("p", { class: "muted" }, T("Thinking…")));
    return;
  }
  if (!advice) { box.replaceChildren(el("h2", {}, T("Hints")), el("p", { class: "muted" }, T("No advice for this position."))); return; }
  const unit = advice.measure === "match_points" ? T("match points") : T("points");
  const parts = [el("h2", {}, T("Hints"))];
  parts.push(el("p", { class: "estimate" }, advice.exact ? T("Exact: the optimal strategy's expected final score.") : T("Estimate: the strong bot's evaluation of each choice.")));
  if (advice.keeps && advice.keeps.length) {
    parts.push(el("h3", {}, T("Best keeps")));
    const list = el("div", { class: "keeps" });
    advice.keeps.slice(0, 3).forEach((k, i) => {
      const b = el("button", { type: "button", class: "choice" + (i === 0 ? " best" : ""), "data-keep": k.keep.join("") });
      const dice = k.keep.length ? miniDice(k.keep) : el("span", {}, T("Reroll all"));
      b.append(dice, el("span", { class: "loss" }, i === 0 ? formatValue(k.value) : `−${k.loss.toFixed(2)}`));
      setAttr(b, "aria-label", `${k.keep.length ? T("Keep {dice}", { dice: k.keep.join(" ") }) : T("Reroll all")}: ${i === 0 ? T("best") : T("{n} {unit} less", { n: k.loss.toFixed(2), unit })}`);
      b.onclick = () => holdKeep(k.keep);
      list.append(b);
    });
    parts.push(list);
  }
  if (advice.boxes && advice.boxes.length) {
    parts.push(el("h3", {}, T("Boxes, best first")));
    const ol = el("ol");
    for (const c of advice.boxes) {
      ol.append(el("li", {}, `${boxLabel(c.box)} (${c.points}) ${c.loss > 0 ? `−${c.loss.toFixed(2)}` : "★"}`));
    }
    parts.push(ol);
  }
  box.replaceChildren(...parts);
}
function formatValue(v) { return v.toFixed(2); }

// Hold exactly the dice of a suggested keep (one message per change, through the same actions).
function holdKeep(keep) {
  const me = actor(); if (me == null) return;
  const turn = view.players[me].turn; if (!turn) return;
  const want = []; const rest = [...keep];
  turn.dice.forEach((d, i) => { const j = rest.indexOf(d); if (j >= 0) { want.push(i); rest.splice(j, 1); } });
  const release = turn.held.filter((i) => !want.includes(i));
  const hold = want.filter((i) => !turn.held.includes(i));
  if (release.length) send({ type: "release", seat: me, v: version, dice: release });
  if (hold.length) send({ type: "hold", seat: me, v: version + (release.length ? 1 : 0), dice: hold });
}

// --- the end of the game ---------------------------------------------------------------------
function renderResults() {
  const r = $("results");
  if (!view.finished) { r.hidden = true; return; }
  if (r.dataset.v === String(version)) return;
  r.dataset.v = String(version);
  r.hidden = false;
  const names = view.winners.map((s) => view.players[s].name);
  const top = view.players[view.winners[0]];
  const title = el("h2", { id: "results-title" }, T("Game over"));
  const winner = el("p", { class: "winner" }, names.length > 1 ? T("{names} share the win", { names: names.join(", ") })
    : (view.players.length > 1 ? T("{name} wins with {total}", { name: names[0], total: top.total }) : T("Final score: {total}", { total: top.total })));
  const parts = [title, winner];
  // one row per column (several columns), its winner, then the totals and match points
  const t = el("table");
  const head = el("tr"); head.append(el("th", { scope: "col" }, ""));
  for (const p of view.players) head.append(el("th", { scope: "col" }, p.name));
  t.append(head);
  const multi = nCols() > 1;
  const addRow = (label, values, winners) => {
    const tr = el("tr"); tr.append(el("th", { scope: "row" }, label));
    view.players.forEach((p, i) => tr.append(el("td", { class: winners && winners.includes(p.seat) ? "win" : "" }, values[i])));
    t.append(tr);
  };
  if (multi) for (const c of view.rules.columns) {
    const pts = c.points && view.rules.match === "column_points" ? ` (${T("{n} pts", { n: c.points })})` : "";
    addRow(colLabel(c.id) + pts, view.players.map((p) => String(p.columns[c.id].total)), view.column_winners[c.id]);
  }
  for (const p of view.players) if (p.extra_bonus) { addRow(T("Yams bonus"), view.players.map((q) => `+${q.extra_bonus || 0}`)); break; }
  addRow(T("Total"), view.players.map((p) => String(p.total)), view.column_winners.total);
  if (view.players.some((p) => p.match_points != null)) addRow(T("Match points"), view.players.map((p) => String(p.match_points)), view.winners);
  parts.push(t);
  // what each number means
  const ex = [];
  const ub = view.rules.upper_bonus;
  if (ub) {
    const got = view.players.map((p) => Object.values(p.columns).filter((c) => c.bonus > 0).length);
    ex.push(T("Upper bonus: +{points} for every column whose upper section reaches {threshold}.", { points: ub.points, threshold: ub.threshold })
      + " " + view.players.map((p, i) => `${p.name}: ${got[i]}×`).join(", "));
  }
  if (view.players.some((p) => p.extra_bonus)) ex.push(T("Yams bonus: +100 for every further yam while the yam box holds 50."));
  if (view.rules.match === "column_points") ex.push(T("Column points: each column's best total wins its points, the best grand total wins {n}; ties rolled off or shared.", { n: view.rules.total_points ?? "" }));
  for (const [target, rounds] of Object.entries(view.rolloffs || {})) {
    const where = target === "total" ? T("Total") : colLabel(target);
    ex.push(T("Roll-off for {column}: {rounds}", { column: where, rounds: rounds.map((r) => Object.entries(r).map(([s, d]) => `${view.players[s].name} ${d.dice.join("")} (${d.pips})`).join(" / ")).join("; ") }));
  }
  for (const text of ex) parts.push(el("p", { class: "explain" }, text));
  const actions = el("div", { class: "actions" });
  if (mine.length) {
    const f = el("form", { method: "post", action: `/t/${boot.table}/rematch` });
    f.append(el("button", { type: "submit", class: "primary", id: "rematch" }, T("Rematch")));
    actions.append(f);
  }
  actions.append(el("a", { class: "button", href: `/t/${boot.table}/review`, id: "review-link" }, T("Review the game")));
  actions.append(el("a", { class: "button", href: `/t/${boot.table}/record.json`, download: "" }, T("Download the game record")));
  actions.append(el("a", { class: "button", href: "/" }, T("New game")));
  parts.push(actions);
  r.replaceChildren(...parts);
}

function renderRounds() {
  const box = $("rounds");
  if (!view.duplicate || !view.rounds || !view.rounds.length) { box.hidden = true; return; }
  box.hidden = false;
  const round = view.rounds[0];
  const ul = el("ul");
  for (const e of round.players) ul.append(el("li", {}, `${view.players[e.seat].name}: ${e.rolls.map((r) => r.join("")).join(" → ")} ⇒ ${boxLabel(e.box)} ${e.written}`));
  box.replaceChildren(el("h3", {}, T("Round {n}: the same dice", { n: round.round })), ul);
}

function renderTableInfo() {
  const s = view.settings || {};
  const parts = [];
  if (view.duplicate) parts.push(T("Duplicate: everyone gets the same dice."));
  parts.push(s.hints ? T("Hints allowed") : T("No hints at this table"));
  if (s.clock) parts.push(T("Turn clock: {n} s", { n: s.clock }));
  setText($("table-settings"), parts.join(" · "));
  $("invite-row").hidden = !(view.open_seats && view.open_seats.length);
}

// --- keys --------------------------------------------------------------------------------------
document.addEventListener("keydown", (e) => {
  if (!settings().shortcuts) return;
  if (e.target.matches("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.closest && e.target.closest("#confirm, details.menu")) return;
  const n = view.rules.dice;
  if (/^[1-6]$/.test(e.key) && Number(e.key) <= n) { toggle(Number(e.key) - 1); e.preventDefault(); return; }
  if (e.key === "r" || e.key === "R") { roll(); e.preventDefault(); return; }
  if ((e.key === "s" || e.key === "S") && !$("strike-mode").hidden) { strikeMode = !strikeMode; render(); e.preventDefault(); return; }
  if ((e.key === "h" || e.key === "H") && !$("hint-toggle").hidden) { $("hint-toggle").click(); e.preventDefault(); }
});

setInterval(() => { if (view.clock && !view.finished) renderStrip(actor()); }, 1000);
wireSettings(() => render());
render();
connect();
