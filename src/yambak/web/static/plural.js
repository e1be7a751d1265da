// @ts-check
// Plural forms as gettext catalogs state them (the Plural-Forms header, C syntax: ternaries, comparisons,
// &&, ||, %): read here without eval, which the pages' content security policy forbids. Pure: the
// pages import it through page.js, tests run it under Node against Python's own gettext.
/** @typedef {(n: number) => number} Rule a count's plural form (its index) */
/** @param {string} expr @returns {Rule} */
export function pluralRule(expr) {
  const tokens = String(expr).match(/\d+|n|&&|\|\||[=!<>]=|[-+*/%?:()<>!]/g) || [];
  let i = 0;
  /** @type {Record<string, number>} */
  const BIN = { "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6 };
  /** @type {Record<string, (a: number, b: number) => number>} */
  const OPS = {
    "||": (a, b) => +(a || b), "&&": (a, b) => +(a && b), "==": (a, b) => +(a === b), "!=": (a, b) => +(a !== b),
    "<": (a, b) => +(a < b), "<=": (a, b) => +(a <= b), ">": (a, b) => +(a > b), ">=": (a, b) => +(a >= b),
    "+": (a, b) => a + b, "-": (a, b) => a - b, "*": (a, b) => a * b, "/": (a, b) => Math.trunc(a / b), "%": (a, b) => a % b,
  };
  /** @returns {Rule} */
  const unary = () => {
    const t = tokens[i++];
    if (t === "(") { const e = ternary(); i++; return e; }
    if (t === "!") { const e = unary(); return (n) => +!e(n); }
    if (t === "n") return (n) => n;
    const v = Number(t);
    return () => v;
  };
  /** @param {number} min @returns {Rule} */
  const binary = (min) => {
    /** @type {Rule} */
    let left = unary();
    while (BIN[tokens[i]] >= min) {
      const op = tokens[i++], right = binary(BIN[op] + 1), l = left;
      left = (n) => OPS[op](l(n), right(n));
    }
    return left;
  };
  /** @returns {Rule} */
  const ternary = () => {
    /** @type {Rule} */
    const test = binary(1);
    if (tokens[i] !== "?") return test;
    i++;
    const yes = ternary();
    i++;  // ":"
    const no = ternary();
    return (n) => (test(n) ? yes(n) : no(n));
  };
  return ternary();
}
