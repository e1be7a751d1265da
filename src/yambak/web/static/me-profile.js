// @ts-check
// The profile page: rename, share, a one-time link to another device, delete. Every change goes to
// the server for this device's own profile (its cookie); the page only shows what came back.
import { T, $, api, localTimes, toast, wireSettings } from "./page.js";

wireSettings();
localTimes();

$("rename").addEventListener("submit", async (/** @type {Event} */ e) => {
  e.preventDefault();
  const [ok, data] = await api("PATCH", "/api/me", { name: $("name").value });
  if (!ok) { toast(data.message || T("Not saved: try again.")); return; }
  $("name").value = data.profile.name;
  /** @type {HTMLElement} */ (document.querySelector(".me-name h1")).textContent = data.profile.name;
  toast(T("Saved."));
});

$("shared").addEventListener("change", async () => {
  const want = $("shared").checked;
  const [ok, data] = await api("PATCH", "/api/me", { shared: want });
  if (!ok) { $("shared").checked = !want; toast(data.message || T("Not saved: try again.")); return; }
  $("share-line").hidden = !data.profile.shared;
});

$("make-link").onclick = async () => {
  const [ok, data] = await api("POST", "/api/me/link");
  if (!ok) { toast(data.message || T("Not saved: try again.")); return; }
  $("link-qr").src = data.qr;
  $("link-url").value = data.url;
  $("link-box").hidden = false;
  $("make-link").textContent = T("Make a new link");
};

$("copy-link").onclick = async () => {
  const url = $("link-url").value;
  try { await navigator.clipboard.writeText(url); toast(T("Copied.")); }
  catch { $("link-url").select(); }
};

const dialog = $("delete-dialog");
$("delete").onclick = () => dialog.showModal();
dialog.addEventListener("close", async () => {
  if (dialog.returnValue !== "delete") return;
  const [ok, data] = await api("DELETE", "/api/me");
  if (!ok) { toast(data.message || T("Not saved: try again.")); return; }
  location.href = "/";
});
