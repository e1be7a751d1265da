// @ts-check
// A game, not a form: the sounds of a roll, a hold, an entry, a bonus and a yam, made here with Web Audio
// (no sound files), a short vibration for each on phones, and a moment of celebration for a yam or a
// bonus. Two switches in the menu (remembered on this device): sounds and vibration, which reduced
// motion leaves alone (a player who asks for less motion may still want to hear the dice), and the
// celebrations, never under reduced motion. It only shows what happened: what counts as a yam or a bonus is the server's view.
import { settings } from "./page.js";

/** @typedef {"roll" | "hold" | "score" | "bonus" | "yam"} Moment */

const reducedMotion = () => !!window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
/** Are the sounds and vibrations on? */
export const heard = () => settings().sound !== false;
/** Are the celebrations on? */
export const lively = () => settings().celebrations !== false && !reducedMotion();

/** @type {AudioContext | null} */
let audio = null;
function context() {
  // made on the first moment: a page may only start sound after the player touched it, as a roll is
  const Ctx = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
  if (!Ctx) return null;
  if (!audio) { try { audio = new Ctx(); } catch { return null; } }
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

// One note: a frequency from `at` seconds on, fading out over `length` seconds.
/** @param {AudioContext} ac @param {AudioNode} out @param {number} freq @param {number} at @param {number} length */
function note(ac, out, freq, at, length, type = "sine", level = 0.16) {
  const osc = ac.createOscillator(), gain = ac.createGain();
  osc.type = /** @type {OscillatorType} */ (type);
  osc.frequency.setValueAtTime(freq, at);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(level, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(out);
  osc.start(at); osc.stop(at + length + 0.02);
}

// Dice on a table: a few short bursts of filtered noise, each a die landing.
/** @param {AudioContext} ac @param {AudioNode} out @param {number} at */
function rattle(ac, out, at) {
  const length = 0.05, buffer = ac.createBuffer(1, Math.round(ac.sampleRate * length), ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 2;
  for (let k = 0; k < 5; k++) {
    const src = ac.createBufferSource(), filter = ac.createBiquadFilter(), gain = ac.createGain();
    src.buffer = buffer;
    filter.type = "bandpass"; filter.frequency.value = 1800 + Math.random() * 1600; filter.Q.value = 2.5;
    gain.gain.value = 0.35 - k * 0.05;
    src.connect(filter).connect(gain).connect(out);
    src.start(at + k * 0.045 + Math.random() * 0.02);
  }
}

/** @type {Record<Moment, (ac: AudioContext, out: AudioNode, t: number) => void>} */
const SOUNDS = {
  roll: (ac, out, t) => rattle(ac, out, t),
  hold: (ac, out, t) => note(ac, out, 660, t, 0.07, "triangle", 0.12),
  score: (ac, out, t) => { note(ac, out, 523.25, t, 0.14); note(ac, out, 783.99, t + 0.08, 0.2); },
  bonus: (ac, out, t) => [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => note(ac, out, f, t + i * 0.09, 0.3, "triangle")),
  yam: (ac, out, t) => {
    [392, 523.25, 659.25, 783.99, 1046.5].forEach((f, i) => note(ac, out, f, t + i * 0.08, 0.35, "square", 0.07));
    note(ac, out, 1046.5, t + 0.45, 0.6, "triangle", 0.14);
  },
};
/** @type {Record<Moment, number[]>} milliseconds on, off, on... (navigator.vibrate) */
const BUZZ = { roll: [12, 40, 12], hold: [8], score: [18], bonus: [20, 50, 20, 50, 40], yam: [30, 50, 30, 50, 30, 50, 80] };

/** Play a moment of the game: its sound and its vibration.
 * @param {Moment} moment */
export function feel(moment) {
  if (!heard()) return;
  const ac = context();
  if (ac) {
    const out = ac.createGain();
    out.gain.value = 0.8;
    out.connect(ac.destination);
    SOUNDS[moment](ac, out, ac.currentTime + 0.01);
    document.body.dataset.audio = ac.state;
  }
  if (navigator.vibrate) { try { navigator.vibrate(BUZZ[moment]); } catch { /* not allowed here */ } }
  document.body.dataset.felt = moment;  // what the page last played (the tests read it)
}

/** A short celebration over `host`: dice and sparks that burst and fall, gone in a second and a half.
 * @param {HTMLElement} host @param {"bonus" | "yam"} moment @param {string} text said in the burst */
export function celebrate(host, moment, text) {
  if (!lively()) return;
  const burst = document.createElement("div");
  burst.className = `celebration ${moment}`;
  burst.setAttribute("aria-hidden", "true");  // the announcer says it; this is only to see
  const word = document.createElement("strong");
  word.textContent = text;
  burst.append(word);
  const n = moment === "yam" ? 26 : 14;
  for (let i = 0; i < n; i++) {
    const bit = document.createElement("i");
    bit.style.setProperty("--x", `${Math.round(Math.cos((i / n) * 2 * Math.PI) * (60 + Math.random() * 90))}px`);
    bit.style.setProperty("--y", `${Math.round(Math.sin((i / n) * 2 * Math.PI) * (40 + Math.random() * 70) - 30)}px`);
    bit.style.setProperty("--r", `${Math.round(Math.random() * 540 - 270)}deg`);
    bit.style.setProperty("--d", `${(Math.random() * 0.15).toFixed(2)}s`);
    bit.className = i % 3 ? "spark" : "pip";
    burst.append(bit);
  }
  host.append(burst);
  setTimeout(() => burst.remove(), 1600);
}
