"""A second, independent implementation of the family's new games, hard-coded per game from the
public rules (the sources named in the how-to pages), for differential tests.

Written without reading the engine: Kniffel, Yacht, Generala, Maxi Yatzy, Kismet and yams with the
free-choice joker are spelled out here box by box, so that a mistake in the data-driven rule kinds
(or here) shows up as a disagreement. One free column each; `replay(record)` gives the replay
summary (or the first illegal turn's code for the few refusals it knows).
"""

from __future__ import annotations

from collections import Counter

U = ["ones", "twos", "threes", "fours", "fives", "sixes"]
ROWS = {
    "kniffel": U + ["three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yam", "chance"],
    "yams": U + ["three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yam", "chance"],
    "yacht": U + ["full_house", "four_kind", "small_straight", "large_straight", "chance", "yam"],
    "generala": U + ["straight", "full_house", "four_kind", "yam", "double_yam"],
    "maxi-yatzy": U
    + [
        "one_pair",
        "two_pairs",
        "three_pairs",
        "three_kind",
        "four_kind",
        "five_kind",
        "small_straight",
        "large_straight",
        "full_straight",
        "full_house",
        "castle",
        "tower",
        "chance",
        "yam",
    ],
    "kismet": U
    + [
        "two_pairs_colour",
        "three_kind",
        "straight",
        "flush",
        "full_house",
        "full_house_colour",
        "four_kind",
        "chance",
        "yam",
    ],
}
# Kismet's pips: 1 and 6 black, 2 and 5 red, 3 and 4 green.
COLOUR = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}


class Illegal(Exception):
    pass


def _pairs(c: Counter) -> list[int]:
    return sorted((v for v in c if c[v] >= 2), reverse=True)


def _best_house(c: Counter, a: int, b: int) -> int | None:
    best = None
    for x in c:
        for y in c:
            if x != y and c[x] >= a and c[y] >= b:
                best = max(best or 0, a * x + b * y)
    return best


def score(game: str, options: dict, row: str, dice: list[int], roll: int, filled: dict) -> int:
    """What `dice` write in `row` after roll number `roll` (the box's own value, before any joker)."""
    c = Counter(dice)
    s = sum(dice)
    faces = set(dice)
    if row in U:
        v = U.index(row) + 1
        return v * c[v]
    if row == "chance":
        return s
    top = max(c.values())
    if game in ("kniffel", "yams"):
        if row == "three_kind":
            return s if top >= 3 else 0
        if row == "four_kind":
            return s if top >= 4 else 0
        if row == "full_house":
            return 25 if sorted(c.values()) == [2, 3] else 0
        if row == "small_straight":
            return 30 if any({a, a + 1, a + 2, a + 3} <= faces for a in (1, 2, 3)) else 0
        if row == "large_straight":
            return 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
        if row == "yam":
            return 50 if top == 5 else 0
    if game == "yacht":
        if row == "full_house":
            return s if sorted(c.values()) == [2, 3] else 0
        if row == "four_kind":
            return next((4 * v for v in c if c[v] >= 4), 0)
        if row == "small_straight":
            return 30 if faces == {1, 2, 3, 4, 5} else 0
        if row == "large_straight":
            return 30 if faces == {2, 3, 4, 5, 6} else 0
        if row == "yam":
            return 50 if top == 5 else 0
    if game == "generala":
        served = roll == 1
        if row == "straight":
            runs = [{1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}]
            if options.get("wrap_straight"):
                runs.append({3, 4, 5, 6, 1})
            return (25 if served else 20) if faces in runs else 0
        if row == "full_house":
            return (35 if served else 30) if sorted(c.values()) == [2, 3] else 0
        if row == "four_kind":
            return (45 if served else 40) if 4 in c.values() else 0
        if row == "yam":
            return 50 if top == 5 else 0
        if row == "double_yam":
            return 100 if top == 5 and filled.get("yam") else 0
    if game == "maxi-yatzy":
        pairs = _pairs(c)
        if row == "one_pair":
            return 2 * pairs[0] if pairs else 0
        if row == "two_pairs":
            return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0
        if row == "three_pairs":
            return 2 * sum(pairs[:3]) if len(pairs) >= 3 else 0
        for name, n in (("three_kind", 3), ("four_kind", 4), ("five_kind", 5)):
            if row == name:
                return max((n * v for v in c if c[v] >= n), default=0)
        if row == "small_straight":
            return 15 if {1, 2, 3, 4, 5} <= faces else 0
        if row == "large_straight":
            return 20 if {2, 3, 4, 5, 6} <= faces else 0
        if row == "full_straight":
            return 21 if faces == {1, 2, 3, 4, 5, 6} else 0
        sizes = {"full_house": (3, 2), "castle": (3, 3), "tower": (4, 2)}
        if row in sizes:
            return _best_house(c, *sizes[row]) or 0
        if row == "yam":
            return 100 if top == 6 else 0
    if game == "kismet":
        colours = {COLOUR[d] for d in dice}
        full = sorted(c.values()) == [2, 3]
        if row == "two_pairs_colour":
            pairs = _pairs(c)
            ok = any(COLOUR[a] == COLOUR[b] for a in pairs for b in pairs if a != b)
            return s if ok else 0
        if row == "three_kind":
            return s if top >= 3 else 0
        if row == "straight":
            return 30 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
        if row == "flush":
            return 35 if len(colours) == 1 else 0
        if row == "full_house":
            return s + 15 if full else 0
        if row == "full_house_colour":
            return s + 20 if full and len(colours) == 1 else 0
        if row == "four_kind":
            return s + 25 if top >= 4 else 0
        if row == "yam":
            return s + 50 if top == 5 else 0
    raise ValueError((game, row))


def bonus(game: str, upper: int) -> int:
    if game in ("kniffel", "yams"):
        return 35 if upper >= 63 else 0
    if game == "maxi-yatzy":
        return 50 if upper >= 84 else 0
    if game == "kismet":
        return 75 if upper >= 78 else 55 if upper >= 71 else 35 if upper >= 63 else 0
    return 0  # yacht, generala


def _game(rules: object) -> tuple[str, dict]:
    if isinstance(rules, str):
        return rules, {}
    assert isinstance(rules, dict)
    return rules["preset"], dict(rules.get("options", {}))


def replay(record: dict) -> dict:
    """The summary of a record of one of these games, or {"error": {"turn", "code"}}."""
    game, options = _game(record["rules"])
    rows = ROWS[game]
    joker = None  # (bonus, placement)
    if game == "yams":
        joker = (100, options.get("joker", "forced"))
    if game == "kniffel" and options.get("extra_kniffels"):
        joker = (100, "forced")
    n_dice = 6 if game == "maxi-yatzy" else 5
    names = record["players"]
    sheets = [dict.fromkeys(rows) for _ in names]
    extra = [0] * len(names)
    saved = [0] * len(names)
    outright = None
    for t, turn in enumerate(record["turns"], 1):
        try:
            seat = (t - 1) % len(names)
            if outright is not None or all(v is not None for v in sheets[-1].values()):
                raise Illegal("illegal/game-over")
            sheet = sheets[seat]
            rolls = turn["rolls"]
            allowed = 3 + saved[seat]
            if len(rolls) > allowed:
                raise Illegal("illegal/no-rolls-left")
            for roll in rolls:
                if len(roll) != n_dice or not all(1 <= d <= 6 for d in roll):
                    raise Illegal("illegal/bad-dice")
            row = turn["box"].split(".")[-1]
            if row not in sheet:
                raise Illegal("illegal/box-unknown")
            if sheet[row] is not None:
                raise Illegal("illegal/box-closed")
            if game == "generala" and row == "double_yam" and sheet["yam"] is None:
                raise Illegal("illegal/needs")
            dice = rolls[-1]
            n = len(rolls)
            value = score(game, options, row, dice, n, sheet)
            if joker is not None and len(set(dice)) == 1 and sheet["yam"] is not None:
                if sheet["yam"] == 50:
                    extra[seat] += joker[0]
                face = U[dice[0] - 1]
                lower = [r for r in rows if r not in U]
                if joker[1] == "forced":
                    if sheet[face] is None:
                        if row != face:
                            raise Illegal("illegal/joker")
                    elif any(sheet[r] is None for r in lower) and row not in lower:
                        raise Illegal("illegal/joker")
                # the free joker scores as a joker only once the face's upper box is filled
                if row not in U and (joker[1] == "forced" or sheet[face] is not None):
                    value = {"full_house": 25, "small_straight": 30, "large_straight": 40}.get(row, value)
            sheet[row] = value
            if game == "maxi-yatzy":
                saved[seat] += 3 - n
            if game == "generala" and row == "yam" and n == 1 and value and options.get("served", "wins") == "wins":
                outright = {"seats": [seat], "turn": (t - 1) // len(names) + 1, "box": "free.yam"}
        except Illegal as exc:
            return {"error": {"turn": t, "code": str(exc)}}
    players = []
    for seat, (name, sheet) in enumerate(zip(names, sheets, strict=True)):
        upper = sum(sheet[r] or 0 for r in U)
        b = bonus(game, upper)
        total = upper + b + sum(sheet[r] or 0 for r in rows if r not in U)
        entry: dict = {
            "name": name,
            "total": total + extra[seat],
            "match_points": None,
            "columns": {"free": {"boxes": dict(sheet), "upper": upper, "bonus": b, "total": total}},
        }
        if joker is not None:
            entry["extra_bonus"] = extra[seat]
        if game == "maxi-yatzy":
            entry["saved_rolls"] = saved[seat]
        players.append(entry)
    finished = outright is not None or all(v is not None for s in sheets for v in s.values())
    out: dict = {"finished": finished, "players": players}
    if game == "generala" and options.get("served", "wins") == "wins":
        out["outright"] = outright
    return out
