// The table page: one WebSocket, the view the server sends, nothing computed here but layout.
// Every string comes translated from the server (boot.strings); names are set with textContent only.
import { boot, T, rowLabel, colLabel, boxLabel as pageBoxLabel, $, el } from "./page.js";
const boxLabel = (box) => pageBoxLabel(box, view ? view.rules.columns.length : 1);

let view = boot.view;
let mine = boot.seats;
let version = view.v;
let ws = null;
let tab = null;          // the seat whose sheet is shown
let lastActor = null;
let retry = 500;
let closedForGood = false;
let connected = false;


$("invite").textContent = location.origin + "/t/" + boot.table;

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws/${boot.table}`);
  ws.onopen = () => { retry = 500; $("conn").textContent = T("Connected"); send({ type: "hello", since: version }); };
  ws.onmessage = (m) => receive(JSON.parse(m.data));
  ws.onclose = (e) => {
    connected = false; render();
    if (closedForGood || e.code === 4404 || e.code === 4400) return;
    $("conn").textContent = T("Connection lost, reconnecting…");
    setTimeout(connect, retry); retry = Math.min(retry * 2, 8000);
  };
}

function send(msg) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg)); }

function receive(msg) {
  switch (msg.type) {
    case "welcome": mine = msg.seats; connected = true; break;
    case "event": case "events": case "state": view = msg.view; version = msg.v; render(); break;
    case "rematch": closedForGood = true; location.href = "/t/" + msg.table; break;
    case "error": showError(msg); break;
  }
}

function showError(msg) {
  const s = $("status");
  s.textContent = `${T("Error")}: ${msg.message}`;
  s.dataset.code = msg.code;
  if (msg.code.startsWith("stale")) send({ type: "hello", since: version });
}

// The seat this device acts for now (hot-seat: whoever's turn it is, if it is one of ours).
function actor() {
  if (view.finished) return null;
  const mineToAct = view.to_act.filter((s) => mine.includes(s));
  if (!mineToAct.length) return null;
  if (!view.duplicate) return mineToAct[0];
  // duplicate: the seat of ours furthest behind
  return mineToAct.reduce((a, b) => (view.players[b].turns_done < view.players[a].turns_done ? b : a));
}

function act(type, fields = {}) { const seat = actor(); if (seat == null || !connected) return; send({ type, seat, v: version, ...fields }); }

function render() {
  const me = actor();
  if (me !== lastActor && me != null) tab = me;
  lastActor = me;
  document.body.dataset.v = String(version);
  document.body.dataset.ready = connected ? "1" : "0";
  if (tab == null) tab = me ?? (view.duplicate ? (mine[0] ?? 0) : view.current);
  renderStatus(me); renderDice(me); renderTabs(); renderSheet(me); renderResults(); renderRounds();
}

function renderStatus(me) {
  const s = $("status"); delete s.dataset.code;
  const w = $("warnings"); w.replaceChildren();
  if (view.finished) { s.textContent = T("Game over"); return; }
  if (me == null) {
    const cur = view.players[view.current];
    if (view.duplicate) s.textContent = mine.length ? T("Playing all at once: duplicate table") : T("Spectating");
    else if (cur.kind === "bot") s.textContent = T("{name} (bot) is thinking…", { name: cur.name });
    else s.textContent = T("Waiting for {name}", { name: cur.name });
    return;
  }
  const p = view.players[me];
  const turn = p.turn;
  const who = mine.length > 1 ? T("{name}'s turn", { name: p.name }) : T("Your turn");
  const next = !turn ? T("Roll the dice to start your turn.")
    : (turn.rolls_left > 0 && turn.can_roll ? T("Roll again or choose a box.") : T("Choose a box."));
  s.textContent = `${who} — ${next}`;
  if (!turn) return;
  // The engine's outlook says it all: nothing about the rules is worked out here.
  const texts = [];
  if (turn.must_announce) texts.push(T("Only announce boxes are left: announce one before rolling again."));
  for (const column of turn.closing) texts.push(T("{column} boxes can only be filled right now (after roll {roll}).", { column: colLabel(column), roll: turn.rolls }));
  for (const [box, o] of Object.entries(turn.boxes)) {
    if (o.zeroes_pair) texts.push(T("{box} would zero both {high} and {low}.", { box: boxLabel(box), high: rowLabel(o.pair[0]), low: rowLabel(o.pair[1]) }));
    if (o.voids_entry) texts.push(T("{box} would score 0: min must stay below max.", { box: boxLabel(box) }));
  }
  for (const text of texts) w.append(el("p", { class: "warning" }, text));
}

function renderDice(me) {
  const box = $("dice"); box.replaceChildren();
  const seat = me ?? tab;
  const p = view.players[seat];
  const turn = p && p.turn && !p.turn.hidden ? p.turn : null;
  const n = view.rules.dice;
  for (let i = 0; i < n; i++) {
    const value = turn ? turn.dice[i] : null;
    const held = turn ? turn.held.includes(i) : false;
    const b = el("button", {
      type: "button", class: "die" + (held ? " held" : "") + (value ? "" : " blank"), "data-pos": i,
      "aria-pressed": held ? "true" : "false", disabled: !(turn && me != null && turn.rolls_left > 0),
      "aria-label": value ? `${T("Die {n}: {value}", { n: i + 1, value })}, ${held ? T("held") : T("not held")}` : `${i + 1}`,
      onclick: () => toggle(i),
    }, value ? String(value) : "·");
    box.append(b);
  }
  const roll = $("roll");
  const rollsLeft = turn ? turn.rolls_left : view.rules.rolls_per_turn;
  roll.textContent = `${T("Roll")} (${T("Rolls left: {n}", { n: rollsLeft })})`;
  roll.disabled = !connected || me == null || (turn ? !turn.can_roll : false);
  roll.onclick = () => act("roll");
  const ann = $("announce-box"); ann.replaceChildren();
  if (me != null && turn) {
    if (turn.announced) ann.append(el("span", { class: "announced" }, T("Announced: {box}", { box: boxLabel(turn.announced) })));
    if (turn.announce.length) {
      const sel = el("select", { id: "announce-select", "aria-label": T("Announce") });
      for (const b of turn.announce) sel.append(el("option", { value: b }, boxLabel(b)));
      ann.append(sel, el("button", { type: "button", id: "announce", onclick: () => act("announce", { box: sel.value }) }, T("Announce")));
    }
    if (turn.can_withdraw) ann.append(el("button", { type: "button", id: "withdraw", onclick: () => act("withdraw") }, T("Withdraw")));
  }
}

function toggle(i) {
  const me = actor(); if (me == null) return;
  const turn = view.players[me].turn; if (!turn || turn.rolls_left <= 0) return;
  act(turn.held.includes(i) ? "release" : "hold", { dice: [i] });
}

function renderTabs() {
  const nav = $("tabs"); nav.replaceChildren();
  for (const p of view.players) {
    const label = `${p.name}${mine.includes(p.seat) ? " ★" : ""}${p.kind === "bot" ? ` (${T("Bot")})` : ""} · ${p.total ?? "?"}`;
    nav.append(el("button", {
      type: "button", role: "tab", "aria-selected": p.seat === tab ? "true" : "false", class: "tab" + (p.seat === view.current && !view.duplicate && !view.finished ? " current" : ""),
      onclick: () => { tab = p.seat; render(); },
    }, label));
  }
}

function cellText(cell) {
  if (!cell || cell.hidden) return "▒";
  if (cell.score == null) return "";
  return String(cell.score);
}

function renderSheet(me) {
  const wrap = $("sheet"); wrap.replaceChildren();
  const p = view.players[tab];
  const table = el("table", { class: "sheet", "aria-label": T("Sheet of {name}", { name: p.name }) });
  const head = el("tr"); head.append(el("th", {}, ""));
  for (const c of view.rules.columns) head.append(el("th", { scope: "col" }, colLabel(c.id)));
  table.append(el("thead", {}, null)); table.tHead.append(head);
  const body = el("tbody");
  const active = me != null && me === tab && p.turn && !p.turn.hidden;
  const boxes = active ? p.turn.boxes : {};
  const addSums = () => {
    const ub = view.rules.upper_bonus;
    const tr1 = el("tr", { class: "sum" }); tr1.append(el("th", { scope: "row" }, T("Upper")));
    const tr2 = el("tr", { class: "sum" }); tr2.append(el("th", { scope: "row" }, T("Bonus")));
    for (const c of view.rules.columns) {
      const col = p.columns[c.id];
      const td = el("td", {}, col.upper == null ? "▒" : (ub ? `${col.upper}/${ub.threshold}` : String(col.upper)));
      if (ub && col.upper != null) td.title = T("upper bonus: {sum} of {threshold}", { sum: col.upper, threshold: ub.threshold });
      if (col.bonus_to_go === 0) td.className = "reached";
      tr1.append(td); tr2.append(el("td", {}, col.bonus == null ? "▒" : String(col.bonus)));
    }
    body.append(tr1); if (view.rules.upper_bonus) body.append(tr2);
  };
  let upperDone = false;
  for (const r of view.rules.rows) {
    if (!r.upper && !upperDone) { addSums(); upperDone = true; }
    const tr = el("tr"); tr.append(el("th", { scope: "row" }, rowLabel(r.id)));
    for (const c of view.rules.columns) {
      const box = `${c.id}.${r.id}`;
      const cell = p.columns[c.id].boxes[r.id];
      const td = el("td", { "data-box": box });
      const o = boxes[box];
      if (o && o.legal) {
        td.append(el("button", { type: "button", class: "preview", "data-box": box,
          "aria-label": T("Score {value} in {box}", { value: o.written, box: boxLabel(box) }),
          onclick: () => act("score", { box }) }, String(o.written)));
        if (o.strike) {
          td.append(el("button", { type: "button", class: "strike", "aria-label": T("Strike {box} for 0", { box: boxLabel(box) }),
            onclick: () => act("score", { box, strike: true }) }, "✕"));
        }
      } else {
        td.textContent = cellText(cell);
        if (cell && cell.written != null) { td.append(" "); td.append(el("s", { class: "written" }, String(cell.written))); }
        if (p.turn && p.turn.announced === box) td.classList.add("announced");
      }
      tr.append(td);
    }
    body.append(tr);
  }
  if (!upperDone) addSums();
  const total = el("tr", { class: "sum total" }); total.append(el("th", { scope: "row" }, T("Total")));
  for (const c of view.rules.columns) { const col = p.columns[c.id]; total.append(el("td", {}, col.total == null ? "▒" : String(col.total))); }
  body.append(total);
  table.append(body);
  wrap.append(table);
  const grand = el("p", { class: "grand" }, `${T("Total")}: ${p.total ?? "▒"}`);
  if (p.extra_bonus) grand.append(` · ${T("Extra bonus")}: ${p.extra_bonus}`);
  if (p.match_points != null) grand.append(` · ${T("Match points")}: ${p.match_points}`);
  wrap.append(grand);
}

function renderResults() {
  const r = $("results");
  if (!view.finished) { r.hidden = true; return; }
  r.hidden = false; r.replaceChildren();
  r.append(el("h2", {}, T("Game over")));
  const names = view.winners.map((s) => view.players[s].name).join(", ");
  r.append(el("p", { class: "winner" }, `${view.winners.length > 1 ? T("Winners") : T("Winner")}: ${names}`));
  const t = el("table", { class: "results-table" });
  const h = el("tr"); h.append(el("th", {}, ""));
  for (const p of view.players) h.append(el("th", { scope: "col" }, p.name));
  t.append(h);
  const colRows = view.rules.columns.map((c) => c.id).concat(["total"]);
  for (const c of colRows) {
    const tr = el("tr"); tr.append(el("th", { scope: "row" }, c === "total" ? T("Total") : colLabel(c)));
    for (const p of view.players) {
      const v = c === "total" ? p.total : p.columns[c].total;
      const win = (view.column_winners[c] || []).includes(p.seat);
      tr.append(el("td", { class: win ? "win" : "" }, `${v}${win && view.rules.columns.length > 1 ? " ★" : ""}`));
    }
    t.append(tr);
  }
  if (view.players.some((p) => p.match_points != null)) {
    const tr = el("tr"); tr.append(el("th", { scope: "row" }, T("Match points")));
    for (const p of view.players) tr.append(el("td", {}, String(p.match_points)));
    t.append(tr);
  }
  r.append(t);
  if (mine.length) {
    const f = el("form", { method: "post", action: `/t/${boot.table}/rematch` });
    f.append(el("button", { type: "submit", class: "primary", id: "rematch" }, T("Rematch")));
    r.append(f);
  }
}

function renderRounds() {
  const box = $("rounds");
  if (!view.duplicate || !view.rounds || !view.rounds.length) { box.hidden = true; return; }
  box.hidden = false; box.replaceChildren();
  for (const round of view.rounds.slice(0, 1)) {
    box.append(el("h2", {}, T("Round {n}: the same dice", { n: round.round })));
    const ul = el("ul");
    for (const e of round.players) {
      ul.append(el("li", {}, `${view.players[e.seat].name}: ${e.rolls.map((r) => r.join("")).join(" → ")} ⇒ ${boxLabel(e.box)} ${e.written}`));
    }
    box.append(ul);
  }
}

document.addEventListener("keydown", (e) => {
  if (e.target.matches("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  const n = view.rules.dice;
  if (/^[1-6]$/.test(e.key) && Number(e.key) <= n) { toggle(Number(e.key) - 1); e.preventDefault(); return; }
  if (e.key === "r" || e.key === "R") { if (!$("roll").disabled) act("roll"); e.preventDefault(); return; }
  if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"].includes(e.key)) {
    const buttons = [...document.querySelectorAll("#sheet button.preview")];
    if (!buttons.length) return;
    const i = buttons.indexOf(document.activeElement);
    const step = e.key === "ArrowUp" || e.key === "ArrowLeft" ? -1 : 1;
    const next = i < 0 ? (step > 0 ? 0 : buttons.length - 1) : (i + step + buttons.length) % buttons.length;
    buttons[next].focus(); e.preventDefault();
  }
});

render();
connect();
