"""`yambak verify RECORD`: check a finished game's dice against the commitment made when it began.

The scheme is documented in `engine/fairness.py` and docs/fairness.md: the seed must hash to the
commitment, and every roll of every turn (and every roll-off) must come from the seed and the
players' nonces. Exit status 0 when everything checks out, 1 when a die or the seed does not
(tampered), 2 when the file is not a game record or the record is not a legal game, 3 when the record
cannot be checked yet: its seed is not revealed (a game not over, a deal not closed) or it has no
fairness block at all.
"""

from __future__ import annotations

import argparse
import sys

UNVERIFIABLE = 3  # the exit status of a record whose seed is not revealed yet (not "tampered": 1)


def _cmd_verify(args: argparse.Namespace) -> int:
    from .commandline import read_text
    from .engine import GameRecord, replay, verify_record
    from .engine.fairness import nonces_of

    record = GameRecord.loads(read_text(args.file, "game record (JSON)"))
    state = replay(record)  # every turn legal first (RecordError: exit 2)
    if record.fairness is None or record.fairness.get("seed") is None:
        why = "it has no fairness block" if record.fairness is None else "its seed is not revealed yet"
        print(f"NOT VERIFIABLE YET: {why} (a game not over, or a deal not closed: try again then)")
        return UNVERIFIABLE
    problems, checked = verify_record(record, state.rules.rolled_dice, state.rules.rolloff_dice)
    if problems:
        for problem in problems:
            print(f"yambak verify: {problem}", file=sys.stderr)
        print(f"NOT VERIFIED: {len(problems)} problem(s)")
        return 1
    nonces = len(nonces_of(record.fairness)) if record.fairness else 0
    print(
        f"verified: the seed matches the commitment; {checked} rolls of {len(record.turns)} turns "
        f"re-derived from the seed and {nonces} player nonce(s)"
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verify", help="check a finished game's dice against the table's commitment (fair dice)")
    p.add_argument("file", help="a game record (JSON) with a revealed fairness seed, or - for standard input")
    p.set_defaults(func=_cmd_verify)
