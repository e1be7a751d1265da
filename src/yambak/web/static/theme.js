// @ts-check
// The chosen theme before the first paint (a blocking script in <head>, so no flash of the other one).
try {
  const theme = JSON.parse(localStorage.getItem("yambak.settings") || "{}").theme;
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
} catch { /* no storage: the system's theme */ }
