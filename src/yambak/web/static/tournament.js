// A club tournament's page: the settings menu, and the invite link to copy.
import { $, T, toast, wireSettings } from "./page.js";

wireSettings();
const url = $("invite-url");
if (url) url.addEventListener("focus", () => url.select());
const copy = $("copy-invite");
if (copy) copy.onclick = async () => {
  try { await navigator.clipboard.writeText(url.value); toast(T("Copied.")); } catch { url.select(); }
};
