"""`yambak fairplay list|clear PROFILE`: the server operator's list of profiles whose ranked games stay at
the solver's own accuracy (assisted play, maybe), read from the database `yambak serve` uses. Never shown
to players: the operator looks at the games and clears a profile that plays that well by itself."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ...commandline import UserError

if TYPE_CHECKING:
    from ...store import Store

HELP = "the operator's fair-play list: profiles whose ranked games stay at the solver's accuracy"


def _store(db: str | None) -> Store:
    from ...store import Store
    from ..commands import _check_database_url
    from ..settings import Settings

    try:
        url = db if db is not None else Settings().database_url
    except ValueError as exc:
        raise UserError(f"a YAMBAK_* setting in the environment is not a number ({exc})") from None
    _check_database_url(url)
    return Store(url)


def _fairplay(args: argparse.Namespace) -> int:
    from .fairplay import ASSISTED_GAMES, ASSISTED_LOSS, assisted_line, assisted_lines

    store = _store(args.db)
    args.profile = args.profile_option or args.profile
    try:
        if args.action == "clear":
            if not args.profile:
                raise UserError("fairplay clear: name the profile (its id, as `yambak fairplay list` shows it)")
            if not store.clear_fairplay(args.profile, datetime.now(UTC).replace(tzinfo=None)):
                raise UserError(f"fairplay clear: there is no profile {args.profile!r}")
            print(f"cleared {args.profile}: only its ranked games from now on can list it again")
            return 0
        if args.profile:
            raise UserError("fairplay list takes no profile")
        # each preset's line in its grades' unit: the store reads up to the highest, each row is held to its own
        rows = [
            r
            for r in store.assisted(ASSISTED_GAMES, max(assisted_lines().values()))
            if r.accuracy <= assisted_line(r.preset)
        ]
        if not rows:
            print(
                f"no profile has {ASSISTED_GAMES} graded ranked games of a preset at the solver's accuracy "
                f"(at most {ASSISTED_LOSS} points lost per decision; where the coach counts other points, as in "
                "Balut, the same share of the medium bot's loss)"
            )
            return 0
        print(f"{'profile':<24}  {'name':<20}  {'preset':<12}  {'games':>5}  {'lost/decision':>13}  last game")
        for r in rows:
            print(
                f"{r.profile_id:<24}  {r.name[:20]:<20}  {r.preset:<12}  {r.games:>5}  {r.accuracy:>13.3f}  "
                f"{r.last:%Y-%m-%d %H:%M}"
            )
        return 0
    finally:
        store.close()


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("fairplay", help=HELP)
    p.add_argument("action", choices=["list", "clear"], help="list the profiles, or clear one from the list")
    p.add_argument("profile", nargs="?", metavar="PROFILE", help="clear: the profile's id")
    # an id may begin with "-" (one in 64), which a command line reads as an option: --profile=ID takes it
    p.add_argument("--profile", dest="profile_option", metavar="ID", help="clear: the profile's id, however it begins")
    p.add_argument("--db", default=None, help="database URL (default $YAMBAK_DATABASE_URL, as `yambak serve`)")
    p.set_defaults(func=_fairplay)
