// @ts-check
// "Your turn": the tables where it is this profile's turn (the server's list, its own turns only), at the
// top of the lobby and on "My games". Shown only when there is one; read again when the page comes back
// into view (a game over days moves on while the tab sleeps).
import { T, $, el, api, duration } from "./page.js";

/** The list, in the section `id`; resolves to the tables it shows first.
 * @param {string} id @returns {Promise<string[]>} */
export function yourTurns(id) {
  const box = $(id);
  if (!box) return Promise.resolve([]);
  const show = async () => {
    const [ok, data] = await api("GET", "/api/me/turns");
    const turns = ok && Array.isArray(data.turns) ? data.turns : [];  // no profile: nothing to show
    /** @type {{url: string, name: string, rules_name: string, left: number | null, table: string}[]} */
    const list = turns;
    const cards = list.map((t) => {
      const card = el("a", { class: "resume-card yours", href: t.url });
      const what = el("span", { class: "what" });
      what.append(el("strong", {}, t.name), el("span", { class: "who" }, t.rules_name));
      // the time left on a line of its own: a long ruleset name never cuts it off on a phone
      if (t.left != null) what.append(el("span", { class: "who" }, T("{time} left", { time: duration(t.left) })));
      card.append(what, el("span", { class: "go" }, T("Your turn")));
      return card;
    });
    box.replaceChildren(...(cards.length ? [el("h2", {}, T("Your turn in these games")), ...cards] : []));
    box.hidden = !cards.length;
    return list.map((t) => t.table);
  };
  document.addEventListener("visibilitychange", () => { if (!document.hidden) show(); });
  return show();
}
