"""An independent implementation of docs/rules.md, hard-coded per preset, for differential tests.

Written from docs/rules.md alone, without reading the engine: rows, columns and bonuses are
spelled out per preset here on purpose, so that a mistake in the data-driven engine
(or in this file) shows up as a disagreement. Used by test_differential.py.
"""

import itertools
from collections import Counter

U = ["ones", "twos", "threes", "fours", "fives", "sixes"]
ROWS = {
    "yams": U + ["three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yam", "chance"],
    "yatzy": U
    + [
        "one_pair",
        "two_pairs",
        "three_kind",
        "four_kind",
        "small_straight",
        "large_straight",
        "full_house",
        "chance",
        "yam",
    ],
    "yams-fr": U
    + [
        "max",
        "min",
        "three_kind",
        "four_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "yam",
        "chance",
    ],
    "yams-de": U + ["full_house", "straight", "min", "max", "yam"],
    "yammen": U + ["full_house", "straight", "plus", "min", "yam"],
    "yamb": U + ["min", "max", "two_pairs", "straight", "full_house", "four_kind", "yam"],
}
BONUS = {
    "yams": (63, 35),
    "yatzy": (63, 50),
    "yams-fr": (63, 35),
    "yams-de": (60, 20),
    "yammen": (63, 30),
    "yamb": (63, 30),
}


class Illegal(Exception):
    pass


def norm_rules(r):
    if isinstance(r, str):
        r = {"preset": r}
    p = r["preset"]
    o = dict(r.get("options", {}))
    m = list(r.get("modifiers", []))
    if p == "yamb-6":
        p = "yamb"
        o["extra"] = ["updown", "middle"]
    return p, o, m


def columns(p, o):
    # returns list of (id, order, rolls, announce)
    if p in ("yams", "yatzy"):
        return [("free", "free", None, False)]
    if p == "yams-fr":
        n = o.get("columns", 4)
        c = {1: ["free"], 3: ["down", "free", "up"], 4: ["down", "free", "up", "dry"]}[n]
        return [(x, "free" if x == "dry" else x, 1 if x == "dry" else None, False) for x in c]
    if p == "yams-de":
        return [
            ("normal", "free", None, False),
            ("down", "down", None, False),
            ("up", "up", None, False),
            ("oblige", "free", None, True),
        ]
    if p == "yammen":
        return [
            ("down", "down", None, False),
            ("free", "free", None, False),
            ("up", "up", None, False),
            ("poot", "free", 1, False),
            ("en_deux", "free", 2, False),
            ("annonce", "free", None, True),
        ]
    if p == "yamb":
        c = [
            ("down", "down", None, False),
            ("up", "up", None, False),
            ("free", "free", None, False),
            ("announce", "free", None, True),
        ]
        for x in ["updown", "middle", "hand"]:
            if x in o.get("extra", []):
                c.append((x, "free" if x == "hand" else x, 1 if x == "hand" else None, False))
        return c


def rows(p, o):
    r = list(ROWS[p])
    if p == "yams-fr" and o.get("max_min", True) is False:
        r = [x for x in r if x not in ("max", "min")]
    return r


def score(p, o, row, d, nroll):
    c = Counter(d)
    s = sum(d)
    st = set(d)
    if row in U:
        v = U.index(row) + 1
        return v * c[v]
    if row in ("chance", "max", "min", "plus"):
        return s
    flat = o.get("flat_bonus", False)
    if row in ("three_kind", "four_kind"):
        n = 3 if row == "three_kind" else 4
        vs = [v for v in c if c[v] >= n]
        if not vs:
            return 0
        v = vs[0]
        if p == "yams":
            return s
        if p in ("yams-fr", "yatzy"):
            return n * v
        if p == "yamb":
            return (s if o.get("four_kind", "all") == "all" else 4 * v) + 40
    if row == "one_pair":
        vs = [v for v in c if c[v] >= 2]
        return 2 * max(vs) if vs else 0
    if row == "two_pairs":
        vs = sorted([v for v in c if c[v] >= 2], reverse=True)
        if len(vs) < 2:
            return 0
        return 2 * vs[0] + 2 * vs[1] + (10 if p == "yamb" else 0)
    if row == "full_house":
        if sorted(c.values()) != [2, 3]:
            return 0
        return {
            "yams": 25,
            "yams-fr": 25,
            "yatzy": s,
            "yams-de": 20 if flat else s + 20,
            "yammen": 20,
            "yamb": s + 30,
        }[p]
    small = st >= {1, 2, 3, 4, 5}
    large = st >= {2, 3, 4, 5, 6}
    if row == "small_straight":
        if p == "yams":
            return 30 if any(st >= set(range(a, a + 4)) for a in (1, 2, 3)) else 0
        return ({"yatzy": 15, "yams-fr": 30}[p]) if small else 0
    if row == "large_straight":
        if p == "yams":
            return 40 if (small or large) else 0
        return ({"yatzy": 20, "yams-fr": 40}[p]) if large else 0
    if row == "straight":
        if not (small or large):
            return 0
        if p == "yams-de":
            return 30 if flat else s + 30
        if p == "yammen":
            return 30
        if p == "yamb":
            return {1: 66, 2: 56, 3: 46}[nroll]
    if row == "yam":
        if len(c) != 1:
            return 0
        return {
            "yams": 50,
            "yatzy": 50,
            "yams-fr": 50,
            "yams-de": 40 if flat else s + 40,
            "yammen": 40,
            "yamb": s + 50,
        }[p]
    raise ValueError(row)


class Sheet:
    def __init__(s, p, o):
        s.p, s.o = p, o
        s.cols = columns(p, o)
        s.rows = rows(p, o)
        s.w = {c[0]: {r: None for r in s.rows} for c in s.cols}  # written
        s.sc = {c[0]: {r: None for r in s.rows} for c in s.cols}  # score
        s.extra = 0

    def colinfo(s, c):
        for x in s.cols:
            if x[0] == c:
                return x

    def order_ok(s, c, r):
        kind = s.colinfo(c)[1]
        rs = s.rows
        col = s.w[c]
        open_ = [x for x in rs if col[x] is None]
        if kind == "free":
            return True
        if kind == "down":
            return r == open_[0]
        if kind == "up":
            return r == open_[-1]
        if kind == "updown":
            return r in (open_[0], open_[-1])
        if kind == "middle":
            filled = [i for i, x in enumerate(rs) if col[x] is not None]
            i = rs.index(r)
            if not filled:
                return r in ("min", "max")
            return i == min(filled) - 1 or i == max(filled) + 1

    def fillable(s, c, r, nroll, announced):
        if s.w[c][r] is not None:
            return False
        if not s.order_ok(c, r):
            return False
        _, _, rl, ann = s.colinfo(c)
        if rl is not None and nroll != rl:
            return False
        if announced is not None:
            return f"{c}.{r}" == announced
        if ann and nroll > 1:
            return False
        return True

    def all_fillable(s, nroll, announced):
        return [(c, r) for c in s.w for r in s.rows if s.fillable(c, r, nroll, announced)]

    def done(s):
        return all(v is not None for c in s.w for v in s.w[c].values())

    def totals(s):
        out = {}
        gt = 0
        th, bv = BONUS[s.p]
        for c, _, _, _ in s.cols:
            sc = s.sc[c]
            up = sum(sc[r] or 0 for r in U)
            b = bv if up >= th else 0
            tot = up + b + sum(sc[r] or 0 for r in s.rows if r not in U)
            d = {"boxes": dict(sc), "upper": up, "bonus": b}
            if s.p == "yamb":
                w = s.w[c]
                mm = None
                if w["ones"] is not None and w["min"] is not None and w["max"] is not None:
                    mm = (w["max"] - w["min"]) * w["ones"]
                    tot += mm
                d["minimax"] = mm
            d["total"] = tot
            # order keys: boxes, upper, bonus, total, minimax
            out[c] = d
            gt += tot
        return out, gt + s.extra

    def enter(s, c, r, dice, nroll, strike):
        """returns nothing; applies entry with relations. dice: final 5."""
        p, o = s.p, s.o
        val = score(p, o, r, dice, nroll)
        extra = 0
        if p == "yams" and len(set(dice)) == 1 and s.w["free"]["yam"] is not None:
            face = U[dice[0] - 1]
            if s.w["free"]["yam"] == 50:
                extra = 100
            lower = [x for x in s.rows if x not in U]
            if s.w["free"][face] is None:
                if r != face:
                    raise Illegal("illegal/joker")
            elif any(s.w["free"][x] is None for x in lower):
                if r not in lower:
                    raise Illegal("illegal/joker")
                val = {"full_house": 25, "small_straight": 30, "large_straight": 40}.get(r, val)
            # else any upper: val is 0 naturally
        if strike:
            val = 0
        w = s.w[c]
        sc = s.sc[c]
        score_v = val
        if p == "yams-de" and r in ("min", "max"):
            other = "max" if r == "min" else "min"
            if sc[other] is not None and sc[other] != 0:
                mn, mx = (val, sc[other]) if r == "min" else (sc[other], val)
                if not mn < mx:
                    score_v = 0
            if o.get("strict") and score_v != 0:
                for cc in s.w:
                    if r == "min" and s.sc[cc]["max"] not in (None, 0) and not val < s.sc[cc]["max"]:
                        score_v = 0
                    if r == "max" and s.sc[cc]["min"] not in (None, 0) and not val > s.sc[cc]["min"]:
                        score_v = 0
        w[r] = val
        sc[r] = score_v
        if p == "yamb" and r in ("min", "max"):
            sc[r] = 0
        if p == "yams-fr" and o.get("max_gt_min", True) and "max" in s.rows:
            if w["max"] is not None and w["min"] is not None and w["max"] <= w["min"]:
                sc["max"] = 0
                sc["min"] = 0
        if p == "yammen" and w["plus"] is not None and w["min"] is not None and w["plus"] <= w["min"]:
            sc["plus"] = 0
            sc["min"] = 0
        s.extra += extra


def replay(rec):
    p, o, mods = norm_rules(rec["rules"])
    six = "six_dice" in mods
    ndice = 6 if six else 5
    sheets = [Sheet(p, o) for _ in rec["players"]]
    np_ = len(sheets)
    for ti, t in enumerate(rec["turns"], 1):
        try:
            seat = (ti - 1) % np_
            if all(sh.done() for sh in sheets):
                raise Illegal("illegal/game-over")
            if "player" in t and t["player"] != seat:
                raise Illegal("illegal/not-your-turn")
            sh = sheets[seat]
            rolls = t["rolls"]
            if len(rolls) > 3:
                raise Illegal("illegal/no-rolls-left")
            ann = t.get("announce")
            for k, roll in enumerate(rolls, 1):
                if len(roll) != ndice or any(not (1 <= x <= 6) for x in roll):
                    raise Illegal("illegal/bad-dice")
                if k >= 2:
                    if ann is not None:
                        c0, r0 = ann.split(".")
                        if c0 not in sh.w or r0 not in sh.rows:
                            raise Illegal("illegal/box-unknown")
                        if not sh.colinfo(c0)[3]:
                            raise Illegal("illegal/announce-column")
                        if sh.w[c0][r0] is not None:  # an announced box must be one that may be filled
                            raise Illegal("illegal/box-closed")
                        if not sh.order_ok(c0, r0):
                            raise Illegal("illegal/box-order")
                    # dead end: after this roll, can anything be filled (now or later)?
                    ok = any(sh.fillable(c, r, kk, ann) for kk in range(k, 4) for c in sh.w for r in sh.rows)
                    if not ok:
                        raise Illegal("illegal/dead-end")
            box = t["box"]
            if "." not in box:
                if len(sh.cols) != 1:
                    raise Illegal("illegal/box-unknown")
                box = sh.cols[0][0] + "." + box
            c, r = box.split(".")
            if c not in sh.w or r not in sh.rows:
                raise Illegal("illegal/box-unknown")
            n = len(rolls)
            if sh.w[c][r] is not None:
                raise Illegal("illegal/box-closed")
            if ann is not None and ann != box:
                raise Illegal("illegal/announced-elsewhere")
            if not sh.order_ok(c, r):
                raise Illegal("illegal/box-order")
            ci = sh.colinfo(c)
            if ci[2] is not None and n != ci[2]:
                raise Illegal("illegal/box-rolls")
            if ann is None and ci[3] and n > 1:
                raise Illegal("illegal/not-announced")
            if ann is not None and not ci[3]:
                raise Illegal("illegal/announce-column")
            if t.get("strike") and p != "yams-fr":
                raise Illegal("illegal/strike")
            final = rolls[-1]
            if six:
                if "use" in t:
                    u = t["use"]
                    if len(u) != 5 or Counter(u) - Counter(final):
                        raise Illegal("illegal/use")
                    dice = list(u)
                else:
                    best = None
                    for comb in set(tuple(sorted(x)) for x in itertools.combinations(final, 5)):
                        import copy

                        s2 = copy.deepcopy(sh)
                        try:
                            s2.enter(c, r, list(comb), n, t.get("strike"))
                        except Illegal:
                            continue
                        g = s2.totals()[1]
                        if best is None or g > best[0]:
                            best = (g, list(comb))
                    dice = best[1]
            else:
                dice = final
            # last resort (yammen)
            if p == "yammen" and r in ("plus", "min"):
                other = "min" if r == "plus" else "plus"
                if sh.w[c][other] is not None:
                    val = sum(dice)
                    pl, mn = (val, sh.w[c][other]) if r == "plus" else (sh.w[c][other], val)
                    if pl <= mn:

                        def zeroes(box, sh=sh, dice=dice):
                            c2, r2 = box
                            if r2 not in ("plus", "min"):
                                return False
                            o2 = sh.w[c2]["min" if r2 == "plus" else "plus"]
                            if o2 is None:
                                return False
                            return (sum(dice) <= o2) if r2 == "plus" else (o2 <= sum(dice))

                        # refused while a box that does not zero a pair can take the dice
                        others = [x for x in sh.all_fillable(n, ann) if x != (c, r) and not zeroes(x)]
                        if others:
                            raise Illegal("illegal/last-resort")
            sh.enter(c, r, dice, n, t.get("strike"))
        except Illegal as e:
            return {"error": {"turn": ti, "code": str(e)}}
    finished = all(sh.done() for sh in sheets)
    players = []
    for name, sh in zip(rec["players"], sheets, strict=False):
        cols, gt = sh.totals()
        pl = {"name": name, "total": gt, "match_points": None, "columns": cols}
        if p == "yams":
            pl["extra_bonus"] = sh.extra
        players.append(pl)
    if finished and p == "yammen" and np_ >= 2:
        pts = {"down": 3, "free": 2, "up": 4, "poot": 3, "en_deux": 3, "annonce": 5}
        mp = [0.0] * np_

        def award(vals, pts_):
            m = max(vals)
            win = [i for i, v in enumerate(vals) if v == m]
            for i in win:
                mp[i] += pts_ / len(win)

        for c, v in pts.items():
            award([pl["columns"][c]["total"] for pl in players], v)
        award([pl["total"] for pl in players], 5)
        for pl, m in zip(players, mp, strict=False):
            pl["match_points"] = m
    return {"finished": finished, "players": players}
