// @ts-check
// A club tournament's pages: times in the reader's own zone and language, the round's countdown, the
// organiser's invite link to copy, a question before what cannot be undone, and (the form that makes
// a tournament) its start written in UTC from the reader's local time.
import { $, T, countdowns, localTimes, toast, wireSettings } from "./page.js";

wireSettings();
localTimes();
countdowns();

const copy = $("copy-invite");
if (copy) copy.onclick = async () => {
  try { await navigator.clipboard.writeText($("invite-url").value); toast(T("Copied.")); } catch { $("invite-url").select(); }
};
const invite = $("invite-url");
if (invite) invite.addEventListener("focus", () => invite.select());

for (const form of /** @type {NodeListOf<HTMLFormElement>} */ (document.querySelectorAll("form[data-confirm]"))) {
  form.addEventListener("submit", (e) => { if (!confirm(form.dataset.confirm)) e.preventDefault(); });
}

// <input type="datetime-local" id="starts-local">: the reader's clock; the form sends it as UTC.
const local = $("starts-local");
if (local) {
  local.form.addEventListener("submit", () => {
    const when = local.value ? new Date(local.value) : null;
    $("starts").value = when && !Number.isNaN(when.getTime()) ? when.toISOString() : "";
  });
}
