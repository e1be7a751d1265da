// @ts-check
// The table page: one WebSocket, the view and events the server sends, nothing computed here but
// layout. What a box would score, why it cannot be filled, what an entry would do: the engine's
// outlook, as the server sends it. Strings come translated (boot.strings); names via textContent.
import { boot, T, colon, C, N, rowLabel, colLabel, $, el, setText, setAttr, target,
  settings, saveSetting, wireSettings, say, toast, clearToast, remembered, noteTable, duration, num, pct, playerName } from "./page.js";
import { DiceTray, miniDice } from "./dice.js";
import { celebrate as cheer, feel } from "./feel.js";
import { REACTIONS, isMuted, picture, setMuted } from "./reactions.js";
import { GameSheet, PlayerStrip, SessionSocket, boxLabel, onePerPlayer, nCols, playableCell, reason } from "./game.js";
import { subscribePush } from "./push.js";

/** @typedef {import("./protocol").TableView} TableView */
/** @typedef {import("./protocol").TableEvent} TableEvent */
/** The view with its open seats named in this page's language. @param {TableView} v */
function seatNames(v) {
  for (const p of v.players) p.name = playerName(p);
  return v;
}

/** @type {TableView} the view of the table the server sent last (its types: protocol.d.ts) */
let view = seatNames(boot.view);
let mine = boot.seats;
let version = view.v;
let connected = false;
/** @type {number | null} */ let tab = null;
/** @type {number | null} */ let lastActor = null;
/** @type {number | null} */ let handedTo = null;
let strikeMode = false;
/** @type {{ref: string, at: number, msg: object} | null} an action on its way; further taps wait */
let pending = null;
// data-in-flight tells a waiting script (and the tests) that a tap now would be dropped as a second tap
/** @param {{ref: string, at: number, msg: object} | null} p */
function setPending(p) { pending = p; document.body.dataset.inFlight = p ? "1" : "0"; }
// Refs name an action for the table's whole life (the server stores them with its events): a random
// prefix per page load, so that one sent again after a reconnect is found, never taken for another.
const refPrefix = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
let refCount = 0;
const nextRef = () => `${refPrefix}-${++refCount}`;
let rollLockUntil = 0;         // a second tap on Roll right after a roll is a slip, not a roll
/** @type {{box: string, strike: boolean, until: number} | null} a 0 or a strike waiting for its second tap */
let armed = null;
/** @type {import("./protocol").CoachAdvice | null} */
let advice = null;
/** @type {string | null} */ let adviceKey = null;
let adviceLoading = false, coachOpen = false;
let receivedAt = Date.now();
/** @type {string | null} */
let lastEvent = null;
let wasFinished = view.finished;
let tumbleTimer = 0;
const nonceSent = new Set();     // seats whose fair-dice nonce is on its way
/** @param {string} box */
const named = (box) => boxLabel(view, box);
/** @returns {number[]} */
const localSeats = () => mine.filter((/** @type {number} */ s) => view.players[s] && view.players[s].kind === "human");
/** A player's turn in progress as this device sees it (none while hidden: another player's, duplicate).
 * @param {import("./protocol").TablePlayer | undefined} p @returns {import("./protocol").TurnView | null} */
const shownTurn = (p) => { const t = p && p.turn; return t && !t.hidden ? /** @type {import("./protocol").TurnView} */ (t) : null; };

const tray = new DiceTray($("dice"), {
  labels: (i, value, held) => value ? `${T("Die {n}: {value}", { n: i + 1, value })}, ${held ? T("held") : T("not held")}` : T("Die {n}", { n: i + 1 }),
  onToggle: (i) => toggle(i),
});
const gameSheet = new GameSheet($("sheet"), { onAction: (action) => chooseBox(action) });
const strip = new PlayerStrip($("chips"), { roleHost: $("strip"), onTab: (i) => { tab = i; draw(); } });

// --- the socket ------------------------------------------------------------------------------
/** @type {SessionSocket<import("./protocol").Protocol["table_server"]>} */
const socket = new SessionSocket(`/ws/${boot.table}`, {
  onWelcome: (msg) => {
    mine = msg.seats; connected = true; nonceSent.clear(); noteTable(boot.table, mine, !view.finished);
    // an action whose answer the lost socket never brought: sent again under its ref (the server answers
    // with the event it made if it was done, and does it once if it was not)
    if (pending && pending.msg && Date.now() - pending.at < 8000) send(pending.msg);
  },
  onStatus: (up) => {
    if (up) return;
    const was = connected; connected = false; draw();  // a pending action stays: it is sent again on welcome
    if (was && !socket.stopped) toast(T("Connection lost, reconnecting…"));
  },
  onView: (msg) => {
    // the table as it is now, at the version we have (somebody came or went): nothing of ours settles
    if (msg.type === "state" && msg.v === version && connected) { view = seatNames(msg.view); draw(); return; }
    const before = view;
    view = seatNames(/** @type {TableView} */ (msg.view)); version = msg.v;  // events bring one (SessionSocket)
    if (msg.type === "event") {
      settle(msg.event); tell(msg.event); draw(msg.event);
      const event = msg.event;  // heard and felt after the frame that shows it: a tap's answer is never later for it
      requestAnimationFrame(() => setTimeout(() => react(event, before), 0));
      return;
    }
    settle();
    if (msg.type === "events" && msg.events.length === 1) tell(msg.events[0].event);
    draw();
  },
  onRefused: (msg) => refused(msg),
  onMessage: (msg) => {
    if (msg.type === "advice") {
      adviceLoading = false;
      if (msg.v === version) { advice = msg.advice; adviceKey = `${msg.seat}:${msg.v}`; }
      renderCoach(); drawSheet();
    } else if (msg.type === "rematch") { socket.close(); location.href = "/t/" + msg.table; }
    else if (msg.type === "reaction") showReaction(msg.seat, msg.reaction);
    else if (msg.type === "ack" && pending && msg.ref === pending.ref) { setPending(null); draw(); }  // done before
  },
});
/** @param {object} msg */
const send = (msg) => socket.send(msg);

/** @param {TableEvent} [event] */
function settle(event) {
  if (armed) clearToast();  // "tap again to score 0" no longer stands
  setPending(null); receivedAt = Date.now(); armed = null;
  // a second tap on Roll right after our roll is a slip; anything else in between and Roll is meant
  lockRoll(event && event.type === "rolled" && mine.includes(event.player) ? 450 : 0);
  if (event && (event.type === "scored" || event.type === "undone")) clearToast();
}

// data-roll-lock tells a waiting script (and the tests) that a tap on Roll now would be dropped
/** @param {number} ms */
function lockRoll(ms) {
  rollLockUntil = ms ? Date.now() + ms : 0;
  if (ms) { document.body.dataset.rollLock = "1"; setTimeout(() => { if (Date.now() >= rollLockUntil) delete document.body.dataset.rollLock; }, ms); }
  else delete document.body.dataset.rollLock;
}

/** @param {import("./protocol").ErrorMessage} msg */
function refused(msg) {
  if (msg.code && msg.code.startsWith("fair/")) return;  // a nonce too late or given already: nothing for the player to do
  if (msg.code === "advice/replaced") return;  // a newer request of ours is on its way
  if (pending && (msg.ref == null || msg.ref === pending.ref)) setPending(null);
  if (msg.code === "advice/unavailable") { adviceLoading = false; renderCoach(); }
  toast(msg.message);
  if (msg.code && msg.code.startsWith("stale")) send({ type: "hello", since: version });
  draw();
}

// --- acting ----------------------------------------------------------------------------------
// The seat this device acts for now (pass and play: whoever's turn it is, if it is one of ours).
function actor() {
  if (view.finished) return null;
  const ours = view.to_act.filter((s) => mine.includes(s));
  if (!ours.length) return null;
  if (!view.duplicate) return ours[0];
  return ours.reduce((a, b) => (view.players[b].turns_done < view.players[a].turns_done ? b : a));
}

/** @param {string} type */
function act(type, fields = {}) {
  const seat = actor();
  if (seat == null) { toast(whyNot()); return false; }
  if (!connected) { toast(T("Not connected: the move was not sent.")); return false; }
  if (pending && Date.now() - pending.at < 8000) return false;  // a second tap while the first is on its way
  const ref = nextRef();
  const msg = { type, seat, v: version, ref, ...fields };
  setPending({ ref, at: Date.now(), msg });
  return send(msg);
}

function whyNot() {
  if (view.finished) return T("The game is over.");
  if (!mine.length) return T("You are watching this table.");
  const cur = view.players[view.current];
  if (cur.kind === "open") return T("Waiting for a player to take the open seat.");
  return T("It is {name}'s turn.", { name: cur.name });
}

/** @param {number} i */
function toggle(i) {
  const me = actor();
  const turn = me != null ? shownTurn(view.players[me]) : null;
  if (!turn || !turn.dice || turn.rolls_left <= 0) { if (me == null) toast(whyNot()); return; }
  disarm();
  lockRoll(0);  // a hold in between: the next tap on Roll is meant
  act(turn.held.includes(i) ? "release" : "hold", { dice: [i] });
}

function roll() {
  if (Date.now() < rollLockUntil) return;
  const me = actor();
  const turn = me != null ? shownTurn(view.players[me]) : null;
  if (me != null && turn && !turn.can_roll) { toast(reason(turn.roll_code || "")); return; }
  disarm();
  act("roll");
}

// A tap on a box: score it; a 0 or a strike asks for a second tap on the same box (a setting).
/** @param {{kind: string, box: string, strike?: boolean, written?: number | null}} action */
function chooseBox(action) {
  const { box, kind, strike, written } = action;
  if (kind === "announce") { disarm(); act("announce", { box }); return; }
  const zero = strike || written === 0;
  if (zero && settings().confirmZero && !(armed && armed.box === box && armed.strike === strike && Date.now() < armed.until)) {
    armed = { box, strike: !!strike, until: Date.now() + 5000 };
    toast(strike ? T("Tap again to strike {box} for 0.", { box: named(box) }) : T("Tap again to score 0 in {box}.", { box: named(box) }));
    say(strike ? T("Strike {box} for 0?", { box: named(box) }) : T("Score 0 in {box}?", { box: named(box) }));
    drawSheet();
    return;
  }
  if (act("score", strike ? { box, strike: true } : { box })) { strikeMode = false; armed = null; }
}
function disarm() { if (armed) { armed = null; clearToast(); drawSheet(); } }

$("roll").onclick = () => roll();
$("strike-mode").onclick = () => { strikeMode = !strikeMode; disarm(); draw(); };
$("undo").onclick = () => {  // the entry to take back is the last one, whoever of ours wrote it
  const seat = (view.can_undo || []).find((s) => mine.includes(s));
  if (seat == null || !connected || pending) return;
  const ref = nextRef();
  const msg = { type: "undo", seat, v: version, ref };
  setPending({ ref, at: Date.now(), msg });
  send(msg);
};
$("hint-toggle").onclick = () => { saveSetting("hints", !settings().hints); draw(); };
$("withdraw").onclick = () => act("withdraw");
$("handoff-go").onclick = () => { handedTo = actor(); $("handoff").hidden = true; draw(); $("roll").focus(); };
$("handoff-undo").onclick = () => { $("handoff").hidden = true; handedTo = null; $("undo").click(); };
for (const id of ["copy-invite", "copy-invite-top"]) {
  const b = $(id); if (!b) continue;
  b.onclick = async () => {
    const url = location.origin + "/t/" + boot.table;
    if (navigator.share && id === "copy-invite-top") { try { await navigator.share({ title: document.title, url }); return; } catch { /* fall back to copying */ } }
    try { await navigator.clipboard.writeText(url); } catch { $("invite").select(); }
    toast(T("Invite link copied."));
  };
}
$("invite").value = location.origin + "/t/" + boot.table;

// --- what happened, said once (and shown on the ticker) -----------------------------------------
/** @param {TableEvent} [event] */
function tell(event) {
  if (!event || !view.players[event.player]) return;
  const who = view.players[event.player].name;
  let text = null;
  if (event.type === "rolled" && event.dice) text = T("{name} rolled {dice}", { name: who, dice: event.dice.join(" ") });
  else if ((event.type === "held" || event.type === "released") && event.dice) {  // what is held now
    const dice = event.dice;
    const kept = (event.held || []).map((i) => dice[i]);
    text = kept.length ? T("{name} holds {dice}", { name: who, dice: kept.join(" ") }) : T("{name} holds no dice", { name: who });
  }
  else if (event.type === "scored" && event.box) {
    text = event.strike ? T("{name} struck {box}", { name: who, box: named(event.box) })
      : T("{name} scored {value} in {box}", { name: who, value: event.written, box: named(event.box) });
    if (event.extra_bonus) text += `. ${T("Extra bonus: +{n}", { n: event.extra_bonus })}`;
    const [col, row] = event.box.split(".");  // a points-by-roll entry, as the sheet now says it
    const cell = (view.players[event.player].columns[col] || { boxes: {} }).boxes[row];
    if (!event.strike && cell && cell.roll != null) text += ` (${T("the points of roll {n}", { n: cell.roll })})`;
    lastEvent = text;
  } else if (event.type === "announced" && event.box) {
    text = T("{name} announced {box}", { name: who, box: named(event.box) });
    lastEvent = text;
  } else if (event.type === "undone") {
    text = T("{name} took back the last entry", { name: who });
    lastEvent = text;
  }
  if (text) say(text);
}

// Our own moments, felt: a roll, a hold, an entry; a yam or a bonus (as the server's view says) celebrated.
/** @param {string} box */
const rowKind = (box) => { const r = view.rules.rows.find((row) => row.id === String(box).split(".").pop()); return r ? r.kind : null; };
/** @param {TableEvent} event @param {TableView} before */
function react(event, before) {
  if (!localSeats().includes(event.player)) return;
  if (event.type === "rolled") { feel("roll"); return; }
  if (event.type === "held" || event.type === "released") { feel("hold"); return; }
  if (event.type !== "scored") return;
  const who = view.players[event.player];
  const was = before && before.players[event.player];
  const bonus = was && Object.entries(who.columns).some(([c, col]) => (col.bonus || 0) > 0 && !((was.columns[c]?.bonus ?? 0) > 0));
  if (!event.strike && (event.extra_bonus || (rowKind(event.box || "") === "yam" && (event.written ?? 0) > 0))) {
    feel("yam"); cheer(document.body, "yam", event.extra_bonus ? `+${event.extra_bonus}` : T("Yam!"));
  } else if (bonus) {
    feel("bonus"); cheer(document.body, "bonus", T("Bonus!"));
  } else feel("score");
}

// --- reactions: a fixed set, to everybody at the table; each player's muted on this device if wished ------
const reactor = () => localSeats()[0];
const othersHere = () => view.players.filter((p) => p.kind === "human" && !mine.includes(p.seat));
function renderReactions() {
  const toggle = $("react-toggle"), panel = $("react-panel");
  const can = reactor() != null && othersHere().length > 0;
  toggle.hidden = !can;
  if (!can) { panel.hidden = true; setAttr(toggle, "aria-expanded", "false"); return; }
  const key = JSON.stringify(othersHere().map((p) => [p.seat, p.name, isMuted(boot.table, p.seat)]));
  if (panel.dataset.key === key) return;
  panel.dataset.key = key;
  const send = el("div", { class: "react-choices", role: "group", "aria-label": T("React") });
  for (const id of Object.keys(REACTIONS)) {
    const b = el("button", { type: "button", class: "react-choice", "data-reaction": id });
    b.append(picture(id), el("span", {}, REACTIONS[id].text()));
    b.onclick = () => { if (connected) socket.send({ type: "react", seat: reactor(), reaction: id }); closeReactions(); };
    send.append(b);
  }
  const mute = el("div", { class: "react-mute", role: "group", "aria-label": T("Show reactions from") });
  mute.append(el("span", { class: "muted" }, T("Show reactions from")));
  for (const p of othersHere()) {
    const shown = !isMuted(boot.table, p.seat);
    const b = el("button", { type: "button", class: "ghost toggle", "aria-pressed": String(shown), "data-mute": String(p.seat) }, p.name);
    b.onclick = () => { setMuted(boot.table, p.seat, shown); panel.dataset.key = ""; renderReactions(); };
    mute.append(b);
  }
  panel.replaceChildren(send, mute);
}
function closeReactions() { $("react-panel").hidden = true; setAttr($("react-toggle"), "aria-expanded", "false"); }
$("react-toggle").onclick = () => {
  const open = $("react-panel").hidden;
  $("react-panel").hidden = !open;
  setAttr($("react-toggle"), "aria-expanded", String(open));
  if (open) /** @type {HTMLElement | null} */ (document.querySelector("#react-panel .react-choice"))?.focus();
};
/** @param {number} seat @param {string} id */
function showReaction(seat, id) {
  const p = view.players[seat];
  if (!p || !REACTIONS[id] || isMuted(boot.table, seat)) return;
  const text = T("{name}: {reaction}", { name: p.name, reaction: REACTIONS[id].text() });
  const bubble = el("div", { class: "bubble", "data-seat": String(seat) });
  bubble.append(picture(id), el("span", {}, text));
  $("bubbles").append(bubble);
  setTimeout(() => bubble.remove(), 3500);
  say(text);
}

// Fair dice (docs/fairness.md): before the first roll, each of our players mixes 16 random bytes
// into the dice, so that not even the server chose them. One at a time: each is an event.
function contribute() {
  const fair = view.fairness;
  const given = new Set(fair ? fair.nonces.map((n) => n.seat) : []);
  const open = !!(fair && fair.open && window.crypto);
  document.body.dataset.nonces = open && localSeats().some((s) => !given.has(s)) ? "pending" : "done";
  if (!open || !connected) return;
  const seat = localSeats().find((s) => !given.has(s) && !nonceSent.has(s));
  if (seat == null || [...nonceSent].some((s) => !given.has(s))) return;
  nonceSent.add(seat);
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  send({ type: "nonce", seat, v: version, nonce: Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("") });
}

// --- drawing -----------------------------------------------------------------------------------
/** @param {TableEvent} [event] */
function draw(event) {
  const me = actor();
  if (me !== lastActor && me != null) { tab = me; strikeMode = false; armed = null; }
  // pass and play: hand the device over before the next player sees their dice
  if (me != null && lastActor != null && me !== lastActor && localSeats().length > 1 && !view.duplicate && handedTo !== me) {
    setText($("handoff-text"), T("Pass the device to {name}.", { name: view.players[me].name }));
    setText($("handoff-go"), T("I am {name}: play", { name: view.players[me].name }));
    $("handoff").hidden = false;
    $("handoff-go").focus();
  }
  $("handoff-undo").hidden = !(view.can_undo || []).some((s) => mine.includes(s));
  lastActor = me;
  document.body.dataset.v = String(version);
  document.body.dataset.ready = connected ? "1" : "0";
  document.body.classList.toggle("finished", !!view.finished);
  if (tab == null || tab >= view.players.length) tab = me ?? (view.duplicate ? (mine[0] ?? 0) : view.current);
  drawStrip(me); renderReactions(); renderTray(me, event); renderCoach(); drawSheet(); renderResults(); renderRounds(); renderTableInfo();
  if (view.finished && !wasFinished) {  // the end: the result in view, not the last box
    $("results").scrollIntoView({ block: "start", behavior: "smooth" });
    $("results-title").focus({ preventScroll: true });
  }
  wasFinished = view.finished;
  contribute();
  signalTurn(me);
}

// Your turn, where you look: the tab's title and icon, the app badge, and a notification while the page is
// hidden (once allowed: the button asks). Nothing when it is nobody's turn here.
const baseTitle = document.title;
const baseIcon = /** @type {HTMLLinkElement | null} */ (document.querySelector("link[rel=icon]"));
const iconHref = baseIcon ? baseIcon.href : "";
const BADGED = "data:image/svg+xml," + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
  + '<rect x="2" y="6" width="22" height="22" rx="5" fill="#fff" stroke="#1d6b47" stroke-width="2.5"/><circle cx="8.5" cy="12.5" r="2" fill="#1d6b47"/>'
  + '<circle cx="17.5" cy="21.5" r="2" fill="#1d6b47"/><circle cx="25" cy="7" r="6.5" fill="#dc2626" stroke="#fff" stroke-width="1.5"/></svg>');
let turnSignalled = false;
/** @param {number | null} me */
function signalTurn(me) {
  const mine = me != null && !view.finished && othersHere().length > 0;  // alone or pass and play: always yours
  if (mine === turnSignalled) { renderNotify(); return; }
  turnSignalled = mine;
  document.title = mine ? `● ${T("Your turn")} — ${baseTitle}` : baseTitle;
  if (baseIcon) baseIcon.href = mine ? BADGED : iconHref;
  const nav = /** @type {any} */ (navigator);
  try { if (mine && nav.setAppBadge) nav.setAppBadge(1); else if (!mine && nav.clearAppBadge) nav.clearAppBadge(); } catch { /* not installed */ }
  if (mine && document.hidden && window.Notification && Notification.permission === "granted") {
    try { new Notification(T("Your turn"), { body: baseTitle, tag: `turn-${boot.table}` }); } catch { /* a phone wants the service worker's */ }
  }
  renderNotify();
}
function renderNotify() {
  const b = $("notify-me");
  // asked where someone else is here to wait for, or at a game over days (the others come and go)
  b.hidden = !(window.Notification && Notification.permission === "default" && localSeats().length && (othersHere().length || overDays()) && !view.finished);
  // a game over days: with notifications allowed, the server pushes the player's turns to this browser
  const pushing = overDays() && localSeats().length && !view.finished && window.Notification && Notification.permission === "granted";
  // what the page decided, for whoever waits on it (tests): "no", then "subscribing" -> "subscribed" / "failed"
  if (!pushing) { if (!document.body.dataset.push) document.body.dataset.push = "no"; return; }
  if (document.body.dataset.push !== "subscribing" && document.body.dataset.push !== "subscribed") {
    document.body.dataset.push = "subscribing";
    subscribePush().then((ok) => { document.body.dataset.push = ok ? "subscribed" : "failed"; });
  }
}
/** An asynchronous table (its turns last hours or days). */
function overDays() { return !!(view.settings && view.settings.asynchronous); }
$("notify-me").onclick = async () => { try { await Notification.requestPermission(); } catch { /* refused */ } renderNotify(); };

/** @param {number | null} me */
function drawStrip(me) {
  const here = localSeats().length === 1;
  const online = new Set(view.online || []);
  if (tab == null || tab >= view.players.length) tab = me ?? view.current;
  strip.render(view, {
    tab,
    toAct: (p) => view.to_act.includes(p.seat),
    about: (/** @type {import("./protocol").TablePlayer} */ p) => {
      const toAct = !view.finished && view.to_act.includes(p.seat);
      const away = p.kind === "human" && !mine.includes(p.seat) && !online.has(p.seat);
      return { me: here && mine.includes(p.seat), away, clock: clockText(p),
        state: toAct ? (p.kind === "bot" ? T("thinking") : away ? T("away") : T("to play")) : away ? T("away") : "" };
    },
  });
  setText($("ticker"), lastEvent || "");
  const panel = $("sheet-panel");
  const asTabs = !onePerPlayer(view);
  setAttr(panel, "role", asTabs ? "tabpanel" : null);
  setAttr(panel, "aria-labelledby", asTabs ? `chip-${tab}` : null);
  // the sticky band is the players' strip and the ticker under it: what the sheet's header sits below
  document.documentElement.style.setProperty("--strip", `${$("strip").closest(".strip-wrap").offsetHeight}px`);
  fitDock();
}

/** A phone's docked tray: the page leaves room for its real height (a status on two lines, six dice). */
function fitDock() {
  const trayEl = $("tray");
  if (getComputedStyle(trayEl).position === "fixed") document.documentElement.style.setProperty("--dock", `${trayEl.offsetHeight}px`);
  else document.documentElement.style.removeProperty("--dock");
}

// A turn clock, or the time an away player's turn still waits for them (the clock's glyph is the CSS's).
/** @param {import("./protocol").TablePlayer} p */
function clockText(p) {
  const clocks = view.clocks || {};
  const away = standInLeft(p.seat);
  if ((clocks[p.seat] == null && away == null) || view.finished) return "";
  const clock = clocks[p.seat] == null ? Infinity : Math.max(0, Math.round(clocks[p.seat] - (Date.now() - receivedAt) / 1000));
  const left = Math.min(clock, away ?? Infinity);
  if (left >= 3600) return duration(left);  // a game over days: hours left, not minutes
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

/** @param {number | null} me @param {TableEvent} [event] */
function renderTray(me, event) {
  const seat = me ?? (view.duplicate ? (mine[0] ?? tab) : view.current);
  const p = view.players[seat];
  const turn = shownTurn(p);
  const mineNow = me != null;
  tray.colours = view.rules.colours || [];  // coloured pips (Kismet)
  tray.render(view.rules.rolled_dice, turn ? turn.dice : [], turn ? turn.held : [], !!(mineNow && turn && turn.rolls_left > 0));
  if (event && event.type === "rolled" && event.player === seat) {
    const ms = tray.animate([...Array(view.rules.rolled_dice).keys()].filter((i) => !(event.held || []).includes(i)));
    // what each box would score shows when the dice have landed, not while they tumble
    const sheet = $("sheet");
    clearTimeout(tumbleTimer);
    sheet.classList.toggle("tumbling", ms > 0);
    if (ms) tumbleTimer = setTimeout(() => sheet.classList.remove("tumbling"), ms);
  }
  // the status line, and the engine's notes for this turn
  let status;
  const texts = [];
  if (view.finished) { status = T("Game over"); if (!event || event.game_over) noteTable(boot.table, mine, false); }
  else if (view.deal && view.deal.cancelled) status = T("The organiser cancelled this round: it counts for nobody.");
  else if (dealClosed()) status = T("This deal has closed: the game stays unfinished and does not count.");
  else if (view.deal && view.deal.paused) status = T("The organiser paused the tournament: wait for it to go on.");
  else if ((view.settings || {}).ranked && (view.open_seats || []).length) status = N("A ranked game starts when every seat is taken: {n} more player to come.", "A ranked game starts when every seat is taken: {n} more players to come.", view.open_seats.length);
  else if (!mineNow) {
    const cur = view.players[view.current];
    if (view.duplicate) status = mine.length ? T("Waiting for the others to finish the round") : T("Watching: everyone plays the same dice");
    else if (cur.kind === "bot") status = T("{name} is thinking…", { name: cur.name });
    else if (standInLeft(cur.seat) != null) status = T("{name} is away: the bot plays for them.", { name: cur.name });
    else if (cur.kind === "open") status = mine.length ? T("Waiting for a player to take the open seat: share the invite link.")
      : T("A seat is open: write your name and take it.");
    else status = mine.length ? T("{name} is playing", { name: cur.name }) : T("Watching: {name} is playing", { name: cur.name });
  } else {
    const who = localSeats().length > 1 ? `${p.name}: ` : "";
    if (!turn) status = who + T("Your turn: roll the dice.");
    else if (strikeMode) status = who + T("Tap a box to strike it for 0.");
    else if (turn.announced) status = who + T("Announced: {box}. Roll again, or fill it.", { box: named(turn.announced) });
    else if (turn.must_announce) status = who + T("Only announce boxes are left: tap one to announce it.");
    else if (turn.announce.length) status = who + T("Roll again, fill a box, or tap an announce box to announce it.");
    else if (turn.can_roll) status = who + T("Hold dice and roll again, or choose a box.");
    else status = who + T("Choose a box.");
    if (turn) {
      for (const column of turn.closing) texts.push(["", T("{column} boxes can only be filled right now (after roll {roll}).", { column: colLabel(column), roll: turn.rolls })]);
      for (const [box, o] of Object.entries(turn.boxes || {})) {
        if (o.zeroes_pair) texts.push(["warn", T("{box} would zero both {high} and {low}.", { box: named(box), high: rowLabel((o.pair || [])[0]), low: rowLabel((o.pair || [])[1]) })]);
        if (o.voids_entry) texts.push(["warn", T("{box} would score 0: min must stay below max.", { box: named(box) })]);
      }
    }
  }
  setText($("status"), status);
  renderPlayedFor(); renderSeating();
  const notes = $("notes");
  const key = JSON.stringify(texts);
  if (notes.dataset.key !== key) {
    notes.dataset.key = key;
    notes.replaceChildren(...texts.map(([cls, text]) => el("p", { class: `note ${cls}` }, text)));
  }
  // the roll button: "Roll" and the rolls left
  const rollBtn = $("roll");
  // before the first roll: this turn's rolls, the saved ones too (save_rolls)
  const left = turn ? turn.rolls_left : view.rules.rolls_per_turn + (p.saved_rolls || 0);
  setText(rollBtn.querySelector(".label"), T("Roll"));
  setText(rollBtn.querySelector(".count"), String(left));
  // named by what it shows ("Roll 3"), as speech input says it; what the count means is its description
  setText($("roll-left"), turn ? T("Roll: {n} left", { n: left }) : T("Roll the dice"));
  const waiting = (view.settings || {}).ranked && (view.open_seats || []).length;
  const canRoll = connected && mineNow && !waiting && !dealClosed() && !(view.deal && view.deal.paused) && (!turn || turn.can_roll);
  setAttr(rollBtn, "aria-disabled", canRoll ? null : "true");
  rollBtn.disabled = !mineNow || view.finished;
  setAttr(rollBtn, "title", mineNow && turn && !turn.can_roll ? reason(turn.roll_code || "") : null);
  // strike mode: only where a legal box may be struck
  const strikable = mineNow && turn && Object.values(turn.boxes || {}).some((o) => o.strike);
  if (!strikable) strikeMode = false;
  $("strike-mode").hidden = !strikable;
  setAttr($("strike-mode"), "aria-pressed", String(strikeMode));
  // hints, undo, withdrawing an announcement
  $("hint-toggle").hidden = !(view.settings && view.settings.hints) || !mine.length || view.finished;
  setAttr($("hint-toggle"), "aria-pressed", String(!!settings().hints));
  $("undo").hidden = !(view.can_undo || []).some((s) => mine.includes(s));
  $("withdraw").hidden = !(mineNow && turn && turn.can_withdraw);
}

// Seconds until the stand-in plays an away player's turn (null: it does not), counted down here.
/** @param {number} seat */
function standInLeft(seat) {
  const s = (view.stand_in || {})[seat];
  return s == null || view.finished ? null : Math.max(0, Math.ceil(s - (Date.now() - receivedAt) / 1000));
}

// Back after being away: what the stand-in wrote for us. The server names it until we play ourselves; this
// device keeps it until we dismiss it (a box is filled once a game, so it names each entry).
const keptKey = `yambak.playedFor.${boot.table}`;
/** @returns {Record<string, {entries: import("./protocol").PlayedFor[], dismissed: string[]}>} */
function keptPlayedFor() {
  try { return JSON.parse(localStorage.getItem(keptKey) || "{}") || {}; } catch { return {}; }
}
/** @param {ReturnType<typeof keptPlayedFor>} kept */
function keepPlayedFor(kept) { try { localStorage.setItem(keptKey, JSON.stringify(kept)); } catch { /* no room: shown until reload */ } }

function dismissPlayedFor() {
  const kept = keptPlayedFor();
  for (const k of Object.values(kept)) { k.dismissed.push(...k.entries.map((e) => String(e.box))); k.entries = []; }
  keepPlayedFor(kept);
  renderPlayedFor();
}

function renderPlayedFor() {
  const box = $("played-for");
  const kept = keptPlayedFor();
  let changed = false;
  const lines = localSeats().map((s) => {
    const k = kept[s] || (kept[s] = { entries: [], dismissed: [] });
    for (const e of (view.played_for || {})[s] || []) {
      if (k.dismissed.includes(String(e.box)) || k.entries.some((x) => x.box === e.box)) continue;
      k.entries.push(e); changed = true;
    }
    if (!k.entries.length) return null;
    const list = k.entries.map((e) => (e.strike ? T("{box} struck", { box: named(e.box) }) : `${named(e.box)} ${e.written}`)).join(", ");
    const text = T("While you were away, the bot played for you: {entries}.", { entries: list });
    return localSeats().length > 1 ? colon(view.players[s].name, text) : text;
  }).filter(Boolean);
  if (changed) keepPlayedFor(kept);
  const text = lines.join(" ");
  if (box.dataset.text === text) return;
  box.dataset.text = text;
  const dismiss = el("button", { type: "button", class: "ghost dismiss" }, T("Dismiss"));
  dismiss.onclick = dismissPlayedFor;
  box.replaceChildren(...(text ? [el("span", {}, text), " ", dismiss] : []));
  box.hidden = !text;
  if (text) say(text);
}

// The host's open seats: removed before the first roll, or given to a bot.
function renderSeating() {
  const box = $("seat-actions");
  const s = view.seating || { host: null, remove: false, bot: false };
  const mineHost = s.host != null && mine.includes(s.host);
  const key = mineHost ? JSON.stringify([s, view.open_seats, version]) : "";
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const buttons = [];
  if (mineHost) for (const seat of view.open_seats || []) {
    const close = (/** @type {boolean} */ bot) => { if (connected) send({ type: "close_seat", seat: s.host, v: version, target: seat, bot }); };
    if (s.remove) { const b = el("button", { type: "button", class: "ghost", "data-remove": String(seat) }, T("Remove open seat {n}", { n: seat + 1 })); b.onclick = () => close(false); buttons.push(b); }
    if (s.bot) { const b = el("button", { type: "button", class: "ghost", "data-bot": String(seat) }, T("Give open seat {n} to a bot", { n: seat + 1 })); b.onclick = () => close(true); buttons.push(b); }
  }
  box.replaceChildren(...buttons);
  box.hidden = !buttons.length;
}

// The sheet: the shared component; an open box is what the engine's outlook says of the dice rolled.
function drawSheet() {
  const me = actor();
  // the coach's star: on the box it would fill, or on the flag of the box it would announce
  const best = hintsOn() && advice ? advice.best : null;
  const bestBox = best && best.kind === "announce" ? best.box : advice && best && advice.boxes.length ? advice.boxes[0].box : null;
  gameSheet.render(view, {
    tab, grand: $("grand"), legendHost: $("legend"),
    columnClass: (c, perPlayer) => (perPlayer && c.seat === (me ?? view.current) ? "me-col" : ""),
    cellClass: (c, box, cell) => (cell && cell.score != null && view.players[c.seat].last_box === box ? "last" : ""),
    openCell: (c, box, name, /** @type {import("./protocol").TablePlayer} */ p) => openBox(box, name, p, c.seat, me, bestBox),
  });
}

/** @param {string} box @param {string} name @param {import("./protocol").TablePlayer} p @param {number} seat
 * @param {number | null} me @param {string | null | undefined} bestBox @returns {import("./game.js").CellInfo} */
function openBox(box, name, p, seat, me, bestBox) {
  const turn = shownTurn(p);
  const o = turn && turn.boxes ? turn.boxes[box] : null;
  if (me == null || seat !== me) {
    const why = me != null ? T("That is {name}'s column.", { name: view.players[seat].name }) : whyNot();
    return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why };
  }
  const announced = turn && turn.announced === box ? " announced" : "";
  if (turn && turn.announce.includes(box) && !strikeMode) {
    return { text: "⚑", cls: `announce${bestBox === box ? " best" : ""}`, label: T("Announce {box}", { box: announcedName(box) }), box, action: { kind: "announce", box }, data: { action: "announce" } };
  }
  if (o && o.legal) {
    const isArmed = armed && armed.box === box;
    if (strikeMode && o.strike) {
      return { text: isArmed ? "×?" : "×", cls: `strike${isArmed ? " armed" : ""}`, label: T("Strike {box} for 0", { box: name }), box,
        action: { kind: "score", box, strike: true, written: 0 }, data: { action: "strike" } };
    }
    const info = playableCell(box, name, o, { action: { kind: "score", box, strike: false, written: o.written }, data: { action: "score" },
      cls: [bestBox === box ? "best" : "", isArmed ? "armed" : ""].filter(Boolean).join(" ") + announced });
    if (isArmed) info.text = `${o.written}?`;
    return info;
  }
  if (o && o.code) { const why = reason(o.code); return { text: "", cls: "blocked" + announced, disabled: true, label: colon(name, why), box, why }; }
  return { text: "", cls: "blocked", disabled: true, label: colon(name, C("box", "open")), box, why: T("Roll the dice before choosing a box.") };
}

// --- the coach ---------------------------------------------------------------------------------
function hintsOn() { return !!(view.settings && view.settings.hints && settings().hints && actor() != null); }

function renderCoach() {
  const box = $("coach");
  const me = actor();
  if (!hintsOn() || me == null) { box.hidden = true; return; }  // hints on: a seat of ours acts
  box.hidden = false;
  const turn = shownTurn(view.players[me]);
  const key = `${me}:${version}`;
  const head = el("h2", {}, T("Hints"));
  if (!turn || !turn.dice || !turn.dice.length) { box.replaceChildren(head, el("p", { class: "muted" }, T("Roll the dice: the coach answers after each roll."))); return; }
  if (adviceKey !== key) {
    if (!adviceLoading || adviceKey !== key) { adviceLoading = true; adviceKey = key; advice = null; send({ type: "advise", seat: me, v: version }); }
    box.replaceChildren(head, el("p", { class: "muted" }, T("Thinking…")));
    return;
  }
  const best = advice && advice.best;
  if (!advice || !best) { box.replaceChildren(head, el("p", { class: "muted" }, T("No advice for this position."))); return; }
  const mp = advice.measure === "match_points", cp = advice.measure === "category_points";
  const unit = mp ? T("match points") : cp ? T("category points") : T("points");
  const lossText = (/** @type {import("./protocol").CoachOption} */ o) => o.loss < 1e-9 ? T("best") : `−${num(o.loss, 1)}`;
  const lossLabel = (/** @type {import("./protocol").CoachOption} */ o) => o.loss < 1e-9 ? T("best") : T("{n} {unit} less", { n: num(o.loss, 1), unit });
  const parts = [head, el("p", { class: "estimate" }, advice.exact
    ? T("Exact: the expected final score with perfect play from here.") : T("Estimate: the strong bot's evaluation of each choice."))];
  const expect = { value: num(best.value, 1) };  // the label and its colon in one message: French puts a space before it
  parts.push(el("p", { class: "expect" }, best.wins ? `${choiceText(best)}` // a win at once is the result, not a score
    : mp ? T("Expected match points: {value}", expect) : cp ? T("Expected category points: {value}", expect)
      : T("Expected final score: {value}", expect)));
  if (advice.exact && view.rules.win_points != null) {  // the values are the solver's: a win at once counts as this
    parts.push(el("p", { class: "muted" }, T("These values count an outright win as {n} points; the sheet does not.", { n: view.rules.win_points })));
  }
  // win, tie and loss apart: a shared win is not a win alone (the records count it as won)
  if (best.win != null) parts.push(el("p", { class: "win" }, T("Chances: win {win}, tie {tie}, lose {lose}", chances(best))));
  if (advice.best_win) {  // the last turn: playing for the win is not playing for points
    parts.push(el("p", { class: "win best-win" }, T("Least likely to lose: {choice} (win {win}, tie {tie}, lose {lose})",
      { choice: choiceText(advice.best_win), ...chances(advice.best_win) })));
  }
  const keeps = (advice.keeps || []).slice(0, coachOpen ? 3 : 1);
  if (keeps.length) {
    const list = el("div", { class: "keeps", role: "group", "aria-label": T("Best keeps") });
    keeps.forEach((k) => {
      const keep = k.keep || [];
      const b = el("button", { type: "button", class: "choice" + (k.loss < 1e-9 ? " best" : ""), "data-keep": keep.join("") });
      if (keep.length) b.append(el("span", { class: "verb" }, T("Keep")));  // a tap holds these dice
      // its name is what it shows, then what the dice drawn say: "Keep −0,7: 5 5, 0,7 points less"
      const dice = keep.length ? miniDice(keep) : el("span", {}, T("Reroll all"));
      if (keep.length) setAttr(dice, "aria-hidden", "true");
      b.append(dice, el("span", { class: "loss" }, lossText(k)),
        el("span", { class: "sr-only" }, `: ${keep.length ? `${keep.join(" ")}, ` : ""}${lossLabel(k)}`));
      b.onclick = () => holdKeep(k.action.held || []);
      list.append(b);
    });
    parts.push(list);
  }
  // announcements: a tap announces, as the sheet's flag does
  const announces = (advice.announces || []).slice(0, coachOpen ? 3 : 1);
  if (announces.length) {
    const list = el("div", { class: "announces", role: "group", "aria-label": T("Best announcements") });
    for (const a of announces) {
      const b = el("button", { type: "button", class: "choice" + (a.loss < 1e-9 ? " best" : ""), "data-announce": a.box });
      b.append(el("span", {}, choiceText(a)), el("span", { class: "loss" }, lossText(a)), el("span", { class: "sr-only" }, `: ${lossLabel(a)}`));
      b.onclick = () => act("announce", { box: a.action.box });
      list.append(b);
    }
    parts.push(list);
  }
  const boxes = (advice.boxes || []).slice(0, coachOpen ? 99 : 1);
  if (boxes.length) {
    const ol = el("ol", { class: "boxes", "aria-label": T("Boxes, best first") });
    for (const c of boxes) ol.append(el("li", { class: c.loss < 1e-9 ? "best" : "", "data-box": c.box }, `${choiceText(c)} ${lossText(c)}`));
    parts.push(ol);
    if (best.kind === "keep") parts.push(el("p", { class: "muted" }, T("Rolling again is better than any box now.")));
    if (best.kind === "announce") parts.push(el("p", { class: "muted" }, T("Announcing is better than any box now.")));
  }
  const more = el("button", { type: "button", class: "ghost more", "aria-expanded": String(coachOpen) }, coachOpen ? T("Less") : T("More"));
  more.onclick = () => { coachOpen = !coachOpen; renderCoach(); };
  parts.push(more);
  box.replaceChildren(...parts);
}

// A chance: one decimal under 10 %, where a whole percent says too little.
/** @param {number} p */
const chance = (p) => pct(p, p > 0 && p < 0.1 ? 1 : 0);
// An option's three chances as the coach sent them (the loss is what is neither)
/** @param {import("./protocol").CoachOption} o */
const chances = (o) => ({ win: chance(o.win ?? 0), tie: chance(o.tie ?? 0), lose: chance(o.lose ?? Math.max(0, 1 - (o.win ?? 0) - (o.tie ?? 0))) });

// A coach option in words: the dice kept, the box announced, the box and what it writes.
/** @param {import("./protocol").CoachOption} o */
function choiceText(o) {
  if (o.kind === "keep") return o.keep && o.keep.length ? T("Keep {dice}", { dice: o.keep.join(" ") }) : T("Reroll all");
  if (o.kind === "announce") return T("Announce {box}", { box: announcedName(o.box || "") });
  if (o.wins) return `${named(o.box || "")} (${o.points}) · ${T("wins outright")}`;  // docs/rules.md §7
  return o.strike ? T("Strike {box} for 0", { box: named(o.box || "") }) : `${named(o.box || "")} (${o.points})`;
}

// A box to announce by its row alone where one column takes announcements ("Announce Straight", not
// "Announce Announce · Straight"); with several, the column too.
/** @param {string} box */
function announcedName(box) {
  return view.rules.columns.filter((c) => c.announce).length > 1 ? named(box) : rowLabel(box.split(".")[1] || box);
}

// Hold exactly the dice of a suggested keep, the positions the engine's action names (one message per change).
/** @param {number[]} want */
function holdKeep(want) {
  const me = actor(); if (me == null) return;
  const turn = shownTurn(view.players[me]); if (!turn) return;
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
  const winners = view.winners || [];
  const names = winners.map((s) => view.players[s].name);
  const top = view.players[winners[0]];
  const title = el("h2", { id: "results-title", tabindex: "-1" }, T("Game over"));
  let line;
  const won = view.outright;  // docs/rules.md §7: a win at once, said as a win, never as the total
  if (won) line = names.length > 1 ? T("{names} share the win", { names: names.join(", ") }) : T("{name} wins", { name: names[0] });
  else if (view.players.length === 1) line = T("Final score: {total}", { total: top.total });
  else if (names.length > 1) line = T("{names} share the win", { names: names.join(", ") });
  else line = T("{name} wins with {total}", { name: names[0], total: top.total });
  const parts = [title, el("p", { class: "winner" }, line)];
  if (won) {
    const how = { box: named(won.box), n: won.by_roll };
    parts.push(el("p", { class: "outright" }, won.by_roll === 1 ? T("Won outright: served {box}.", how) : T("Won outright: {box} by roll {n}.", how)));
  }
  const mineHere = localSeats();
  if (mineHere.length === 1 && view.players.length > 1 && !won) {  // how it went for me
    const me = view.players[mineHere[0]];
    const best = Math.max(...view.players.filter((q) => q.seat !== me.seat).map((q) => q.total ?? 0));
    if (winners.includes(me.seat) && names.length === 1) parts.push(el("p", {}, T("You won by {n}.", { n: (me.total ?? 0) - best })));
    else if (!winners.includes(me.seat)) parts.push(el("p", {}, T("You lost by {n}.", { n: Math.max(...winners.map((s) => view.players[s].total ?? 0)) - (me.total ?? 0) })));
  }
  const multi = nCols(view) > 1;
  if (multi || view.players.some((p) => p.match_points != null || p.extra_bonus)) {
    const t = el("table");
    const head = el("tr"); head.append(el("th", { scope: "col" }, ""));
    for (const p of view.players) head.append(el("th", { scope: "col" }, p.name));
    t.append(head);
    /** @param {string} label @param {string[]} values @param {number[] | null} [winners] */
    const addRow = (label, values, winners) => {
      const tr = el("tr"); tr.append(el("th", { scope: "row" }, label));
      view.players.forEach((p, i) => tr.append(el("td", { class: winners && winners.includes(p.seat) ? "win" : "" }, values[i])));
      t.append(tr);
    };
    if (multi) for (const c of view.rules.columns) {
      const pts = c.points && view.rules.match === "column_points" ? ` (${N("{n} pt", "{n} pts", c.points)})` : "";
      addRow(colLabel(c.id) + pts, view.players.map((p) => String(p.columns[c.id].total)), (view.column_winners || {})[c.id]);
    }
    if (view.players.some((p) => p.extra_bonus)) addRow(T("Yams bonus"), view.players.map((q) => `+${q.extra_bonus || 0}`));
    addRow(T("Total"), view.players.map((p) => String(p.total)), (view.column_winners || {}).total);
    const cats = view.players.map((p) => p.category_points);
    if (cats.every((c) => c)) {  // Balut: what each category and the total earned, as the engine counted them
      for (const id of Object.keys(cats[0]?.rows || {})) addRow(rowLabel(id), cats.map((c) => String(c?.rows[id] ?? "–")));
      addRow(T("Points for the total"), cats.map((c) => String(c?.total ?? "–")));
    }
    if (view.players.some((p) => p.match_points != null)) addRow(T("Match points"), view.players.map((p) => String(p.match_points)), view.winners);
    parts.push(t);
  }
  // what each number means
  const ex = [];
  const ub = view.rules.upper_bonus;
  if (ub) {
    const got = view.players.map((p) => Object.values(p.columns).filter((c) => (c.bonus ?? 0) > 0).length);
    const who = view.players.map((p, i) => colon(p.name, multi ? `${got[i]}×` : got[i] ? "✓" : "–")).join(", ");
    ex.push((multi ? T("Upper bonus: +{points} for every column whose upper section reaches {threshold}.", { points: ub.points, threshold: ub.threshold })
      : T("Upper bonus: +{points} for {threshold} or more in the upper section.", { points: ub.points, threshold: ub.threshold })) + " " + who);
  }
  if (view.rules.joker_bonus && view.players.some((p) => p.extra_bonus)) ex.push(T("Yams bonus: +{n} for every further yam while the yam box holds a yam, not a 0.", { n: view.rules.joker_bonus }));
  if (view.rules.match === "category_points") ex.push(T("Category points: each category's boxes together and the grand total earn the points the rules list; the most points wins."));
  if (view.rules.match === "column_points") ex.push(T("Column points: each column's best total wins its points, the best grand total wins {n}; ties rolled off or shared.", { n: view.rules.total_points ?? "" }));
  for (const [target, rounds] of Object.entries(view.rolloffs || {})) {
    const where = target === "total" ? T("Total") : colLabel(target);
    ex.push(T("Roll-off for {column}: {rounds}", { column: where, rounds: rounds.map((rr) => Object.entries(rr).map(([s, d]) => `${view.players[Number(s)].name} ${d.dice.join("")} (${d.pips})`).join(" / ")).join("; ") }));
  }
  for (const text of ex) parts.push(el("p", { class: "explain" }, text));
  const actions = el("div", { class: "actions" });
  const deal = (view.settings || {}).deal;  // a deal of the daily challenge or of a tournament: its board, no rematch
  if (deal) {
    const [kind, a, b] = deal.split(":");
    const href = kind === "daily" ? `/daily?preset=${encodeURIComponent(b)}&day=${a}` : `/c/${encodeURIComponent(a)}`;
    actions.append(el("a", { class: "button primary", href, id: "board-link" }, T("See the leaderboard")));
  } else if (mine.length) {
    const f = el("form", { method: "post", action: `/t/${boot.table}/rematch` });
    f.append(el("button", { type: "submit", class: "primary", id: "rematch" }, T("Rematch")));
    actions.append(f);
  }
  actions.append(el("a", { class: "button", href: `/t/${boot.table}/review`, id: "review-link" }, T("Review the game")));
  actions.append(el("a", { class: "button", href: `/t/${boot.table}/strategy`, id: "strategy-link" }, T("Strategy and odds")));
  actions.append(el("a", { class: "button", href: `/t/${boot.table}/record.json`, download: "" }, T("Download the game record")));
  actions.append(el("a", { class: "button", href: "/" }, T("New game")));
  parts.push(actions);
  parts.splice(2, 0, bestNote());
  if ((view.settings || {}).ranked) parts.splice(3, 0, el("div", { id: "ratings", class: "ratings" }));
  r.replaceChildren(...parts);
  if (mine.length) celebrate();
  if ((view.settings || {}).ranked) showRatings();
}

// A ranked game's end: what it did to each player's rating (stored with its last event).
/** @type {Record<string, () => string>} */
const WHY = { new: () => T("not rated: a profile rates from its second day"), pair: () => T("not rated: a fourth game today between the same two players"),
  alone: () => T("not rated: nobody else to rate against"),
  review: () => T("not rated: nobody gains from a game played below the easy bot's level (fair-play review)"),
  related: () => T("not rated: players sharing a device or an address never rate each other") };
async function showRatings(tries = 3) {
  let changes = null;
  try {
    const r = await fetch(`/api/ranked/tables/${boot.table}`);
    if (r.ok) changes = (await r.json()).changes;
  } catch { /* no network: the results stand without it */ }
  if (!changes || !changes.length) { if (tries > 1) setTimeout(() => showRatings(tries - 1), 800); return; }
  const list = el("ul", { class: "rating-list" });
  for (const c of changes) {
    const li = el("li", { "data-seat": String(c.seat) });
    li.append(el("span", { class: "who" }, `${c.place}. ${c.name}${c.left ? ` (${T("left")})` : ""}`));
    if (c.rated) {
      const delta = c.after - c.before;
      li.append(" ", el("span", { class: "num" }, `${num(c.before)} → ${num(c.after)}`), " ",
        el("strong", { class: `num delta ${delta >= 0 ? "up" : "down"}` }, `${delta >= 0 ? "+" : "−"}${num(Math.abs(delta))}`));
    } else li.append(" ", el("span", { class: "muted" }, (WHY[c.why] || (() => T("not rated")))()));
    list.append(li);
  }
  const box = $("ratings");
  if (box) box.replaceChildren(el("h3", {}, T("Ratings")), list);
}

// This device's profile's result of the game (fetched once: the server stored it with the game's
// last event): a link to it in "My games", and a banner when it is a new personal best.
/** @type {{best?: boolean, beat?: number | null, score: number, [field: string]: any} | null | undefined} undefined: not asked yet; null: none (no profile, or no seat of its own) */
let myResult;
function bestNote() {
  const note = el("div", { id: "best-note", class: "best-banner", role: "status", hidden: !(myResult && myResult.best) });
  if (myResult && myResult.best) {
    note.append(el("strong", {}, T("★ New personal best!")), " ",
      el("span", {}, myResult.beat != null ? T("{score}, {n} more than your best before.", { score: myResult.score, n: myResult.score - myResult.beat })
        : String(myResult.score)));
  }
  return note;
}
async function celebrate() {
  if (myResult !== undefined) { addReplayLink(); return; }
  myResult = null;
  if (!boot.profile) return;  // no profile on this device: no result of its own to ask for
  try {
    const r = await fetch(`/api/me/tables/${boot.table}`);
    if (r.ok) myResult = await r.json();
  } catch { /* no network: the results stand without it */ }
  if (!myResult) return;
  const old = $("best-note");
  if (old) old.replaceWith(bestNote());
  addReplayLink();
  if (myResult.best) say($("best-note").textContent);
}
function addReplayLink() {
  const actions = document.querySelector("#results .actions");
  if (!myResult || !actions || $("my-game-link")) return;
  actions.append(el("a", { class: "button", href: `/replay/${myResult.id}`, id: "my-game-link" }, T("In my games")));
}

function renderRounds() {
  const box = $("rounds");
  if (!view.duplicate || !view.rounds || !view.rounds.length) { box.hidden = true; return; }
  box.hidden = false;
  const round = view.rounds[0];
  const ul = el("ul");
  for (const e of round.players) ul.append(el("li", {}, `${view.players[e.seat].name}: ${e.rolls.map((r) => r.join("")).join(" → ")} ⇒ ${named(e.box)} ${e.written}`));
  box.replaceChildren(el("h3", {}, T("Round {n}: the same dice", { n: round.round })), ul);
}

// A deal's table takes no action once the deal has closed (the server refuses them and says why).
let shownClosed = false;
const dealLeft = () => (view.deal && view.deal.left != null ? view.deal.left - (Date.now() - receivedAt) / 1000 : null);
function dealClosed() {
  const d = view.deal, left = dealLeft();
  return !!d && (d.closed || (left != null && left <= 0));
}

function renderTableInfo() {
  const s = view.settings;
  const parts = [];
  if (s.deal) parts.push(s.deal.startsWith("club:") ? T("Club tournament") : T("Daily challenge"));
  if (s.ranked) parts.push(T("Ranked: the game rates its players"));
  if (view.deal && !view.finished) {
    if (dealClosed()) parts.push(T("The deal has closed."));
    else if (view.deal.paused) parts.push(T("The tournament is paused."));
    else if (dealLeft() != null) parts.push(T("The deal closes in {time}", { time: duration(dealLeft() ?? 0) }));
  }
  if (view.duplicate) parts.push(T("Duplicate: everyone gets the same dice."));
  parts.push(s.hints ? T("Hints allowed") : T("No hints at this table"));
  if (s.asynchronous) parts.push(T("A game over days: {time} per turn", { time: duration(s.clock ?? 0) }));
  else if (s.clock) parts.push(T("Turn clock: {n} s", { n: s.clock }));
  setText($("table-settings"), parts.join(" · "));
  // a bot on a first estimate (no fitted model for these rules yet) or on a fit that missed its check
  const notes = view.players.filter((p) => p.bot_model).map((p) => (p.bot_model === "prior"
    ? T("{name} plays on a first estimate for these rules (no fitted model yet), so it plays weaker.", { name: p.name })
    : T("{name} plays on a model that missed its accuracy check for these rules: it may play weaker.", { name: p.name })));
  setText($("bot-model"), notes.join(" "));
  $("bot-model").hidden = !notes.length;
  const fair = view.fairness;
  $("fair").hidden = !fair;
  if (fair) {
    setText($("fair"), fair.seed ? T("Fair dice: the seed is revealed; the game record verifies with “yambak verify”.")
      : T("Fair dice: committed before the game to {hash}…", { hash: fair.commitment.slice(0, 12) }));
    setAttr($("fair"), "title", fair.seed ? colon(T("Seed"), fair.seed) : `SHA-256: ${fair.commitment}`);
  }
  const open = !!(view.open_seats && view.open_seats.length);
  $("invite-row").hidden = !open;
  $("invite-top").hidden = !open || !mine.length || view.finished;
  $("record-link").hidden = !!view.finished;  // the results have it
}

// --- keys --------------------------------------------------------------------------------------
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && armed) { disarm(); return; }
  if (!settings().shortcuts) return;
  const t = target(e);
  if (t.matches("input, select, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (t.closest && t.closest("details.menu, dialog")) return;
  const n = view.rules.rolled_dice;
  if (/^[1-6]$/.test(e.key) && Number(e.key) <= n) { toggle(Number(e.key) - 1); e.preventDefault(); return; }
  if (e.key === "r" || e.key === "R") { roll(); e.preventDefault(); return; }
  if ((e.key === "s" || e.key === "S") && !$("strike-mode").hidden) { strikeMode = !strikeMode; draw(); e.preventDefault(); return; }
  if ((e.key === "h" || e.key === "H") && !$("hint-toggle").hidden) { $("hint-toggle").click(); e.preventDefault(); }
});

// The join form: the name this device used before.
if ($("join-name") && !$("join-name").value) $("join-name").value = remembered().name || "";

setInterval(() => {
  if (view.clocks && Object.keys(view.clocks).length && !view.finished) drawStrip(actor());
  if (view.stand_in && Object.keys(view.stand_in).length && !view.finished) drawStrip(actor());
  if (view.deal && !view.finished) {  // the deal's countdown; at its close the controls go
    renderTableInfo();
    if (dealClosed() !== shownClosed) { shownClosed = dealClosed(); draw(); }
  }
}, 1000);
wireSettings(() => draw());
window.addEventListener("resize", fitDock);  // a phone turned, a window resized: the dock's room follows
noteTable(boot.table, mine, !view.finished);
draw();
socket.connect();
