"""Club tournaments: made by an organiser (any profile), joined by an invite link, run by the organiser.

A tournament is `rounds` deals of duplicate dice, round k open from `starts + (k - 1) windows` for one
window, every seed committed when it is made. Its organiser may pause it (the open round's clock stands
still, later rounds wait) and let it go on, extend a round (later rounds move with it; seeds and
commitments never change), cancel a round (it counts for nobody and its seed is published) or all that
is left of the tournament, remove a player, let joiners in only once approved, and renew the invite
code. Anyone else is refused (403). A deleted organiser's tournament goes on, closed to new players.
Every one of the organiser's actions is logged (what, when, by whom) and shown on the tournament's page.

A round's tables keep the close they go by beside their sealed seed (`dice.py`): each change of times
is stored with it in one transaction, and the tables in memory, here and in other processes, reload it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from ...engine.fairness import commitment
from ...rules.registry import club_presets
from ...store import DealRow, ProfileRow, TournamentRow
from ..common.dice import naive
from ..common.names import clean_name
from .manager import DealError, DealManager

__all__ = ["ClubManager", "club_presets", "member_key", "parse_start", "table_close"]

ROUNDS = (1, 20)
WINDOW_MINUTES = (15, 7 * 24 * 60)  # docs/daily.md: "15 minutes to a week"
EXTEND_MINUTES = (5, 7 * 24 * 60)
START_AHEAD = timedelta(days=90)
TOURNAMENT_NAME_MAX = 60


def member_key(tournament_id: str, profile_id: str) -> str:
    """What the organiser's page names a member by (never the profile id, which opens shared pages)."""
    return hashlib.sha256(f"{tournament_id}:{profile_id}".encode()).hexdigest()[:16]


def table_close(deal: DealRow, now: datetime) -> datetime | None:
    """The close a round's tables go by: none while it is paused; now, for a round cancelled while open."""
    if deal.cancelled:
        return min(deal.closes_at, now)
    return None if deal.paused_at is not None else deal.closes_at


def parse_start(raw: object, now: datetime) -> datetime:
    """A tournament's start: ISO 8601 (a time without a zone is UTC), from now to 90 days ahead."""
    if raw is None or raw == "":
        return now
    try:
        start = naive(datetime.fromisoformat(str(raw)[:40]))
    except ValueError:
        raise DealError("input/invalid", "a start is a date and time (ISO 8601)", 422) from None
    start = start.replace(second=0, microsecond=0)
    if start < now - timedelta(minutes=1) or start > now + START_AHEAD:
        raise DealError("input/invalid", "a tournament starts from now to 90 days ahead", 422)
    return max(start, now)


class ClubManager:
    def __init__(self, deals: DealManager) -> None:
        self.deals = deals
        self.store = deals.store
        self.tables = deals.tables

    def now(self) -> datetime:
        return self.deals.now()

    # --- making and joining ----------------------------------------------------------------------------

    def check_new(self, name: object, preset: object, rounds: object, window: object, starts: object = None) -> str:
        """A tournament asked for, checked before anything is made for it (its organiser's profile): the
        name as it will be shown. `create` checks again."""
        shown = clean_name(name, "tournament name", TOURNAMENT_NAME_MAX)
        if not isinstance(preset, str) or preset not in club_presets():
            raise DealError("input/rules", "choose a ruleset")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not ROUNDS[0] <= rounds <= ROUNDS[1]:
            raise DealError("input/invalid", f"a tournament has {ROUNDS[0]} to {ROUNDS[1]} rounds")
        if (
            not isinstance(window, int)
            or isinstance(window, bool)
            or not WINDOW_MINUTES[0] <= window <= WINDOW_MINUTES[1]
        ):
            raise DealError("input/invalid", "a round is open from 15 minutes to 7 days")
        parse_start(starts, self.now().replace(microsecond=0))
        return shown

    def create(
        self,
        name: object,
        preset: object,
        rounds: object,
        window: object,
        organiser: ProfileRow,
        starts: object = None,
        approval: object = False,
    ) -> tuple[TournamentRow, str]:
        """A tournament and all its rounds' deals (their seeds committed now). Returns it and its invite
        code (blocking)."""
        name = self.check_new(name, preset, rounds, window, starts)
        assert isinstance(preset, str) and isinstance(rounds, int) and isinstance(window, int)  # checked just now
        now = self.now().replace(microsecond=0)
        start = parse_start(starts, now)
        tid, code = secrets.token_urlsafe(9), secrets.token_urlsafe(12)
        t = TournamentRow(tid, name, preset, organiser.id, code, rounds, window, start, now, approval=approval is True)
        deals = []
        for k in range(1, rounds + 1):
            seed = secrets.token_hex(32)
            opens = start + timedelta(minutes=window * (k - 1))
            closes = opens + timedelta(minutes=window)
            deals.append(DealRow(f"club:{tid}:{k}", "club", preset, seed, commitment(seed), opens, closes, tid, k))
        self.store.create_tournament(t, deals)
        self.store.log_organiser(tid, now, "created", organiser.id)
        return t, code

    def check_join(self, t: TournamentRow, code: object) -> None:
        """A request to join, checked before anything is made for it (the joiner's profile; blocking)."""
        if not isinstance(code, str) or not secrets.compare_digest(
            hashlib.sha256(code.encode()).digest(), hashlib.sha256(t.invite.encode()).digest()
        ):
            raise DealError("deal/invite", "this invite link is not valid", 403)
        if t.cancelled or all(d.closed(self.now()) for d in self.store.tournament_deals(t.id)):
            raise DealError("deal/over", "this tournament is over", 409)
        if t.organiser_id is None:
            raise DealError("deal/organiser-gone", "its organiser has left: it goes on, closed to new players", 403)

    def join(self, t: TournamentRow, code: object, profile: ProfileRow) -> str:
        """A profile joins by the invite code (blocking): its place then, "player", or "pending" where
        the organiser approves joiners."""
        self.check_join(t, code)
        now = self.now()
        status = self.store.join_tournament(t.id, profile.id, now, "pending" if t.approval else "player")
        if status == "removed":
            raise DealError("deal/removed", "the organiser removed you from this tournament", 403)
        return status

    # --- the organiser's controls -------------------------------------------------------------------------

    @staticmethod
    def _organiser(t: TournamentRow, profile: ProfileRow | None) -> None:
        if profile is None or t.organiser_id is None or profile.id != t.organiser_id:
            raise DealError("deal/not-organiser", "only the tournament's organiser may do that", 403)

    async def _log(self, t: TournamentRow, profile: ProfileRow | None, action: str, **more: Any) -> None:
        """The organiser's action, for the tournament's page (`_organiser` checked who asks)."""
        by = profile.id if profile is not None else None
        await self.store.read(functools.partial(self.store.log_organiser, t.id, self.now(), action, by, **more))

    def _rounds(self, t: TournamentRow) -> list[DealRow]:
        return self.store.tournament_deals(t.id)

    async def _reschedule(self, changed: list[DealRow]) -> None:
        now = self.now()
        ids = await self.store.read(self.store.reschedule, [(d, table_close(d, now)) for d in changed])
        await self.tables.reload_names(ids)  # the tables in memory, here and elsewhere, take their new close

    async def pause(self, t: TournamentRow, profile: ProfileRow | None) -> None:
        """The clock stands still: the open round's tables take no action and later rounds wait."""
        self._organiser(t, profile)
        now = self.now()
        rounds = [d for d in await self.store.read(self._rounds, t) if not d.closed(now)]
        if not rounds:
            raise DealError("deal/over", "this tournament is over", 409)
        if any(d.paused_at is not None for d in rounds):
            return
        await self._reschedule([dataclasses.replace(d, paused_at=now) for d in rounds])
        await self._log(t, profile, "pause")

    async def resume(self, t: TournamentRow, profile: ProfileRow | None) -> None:
        """The tournament goes on: every round not closed moves by the length of the pause (an open one
        keeps the time it had left)."""
        self._organiser(t, profile)
        now = self.now()
        changed = []
        for d in await self.store.read(self._rounds, t):
            if d.paused_at is None or d.cancelled:
                continue
            gone = now - d.paused_at
            opens = d.opens_at + gone if d.opens_at > d.paused_at else d.opens_at
            changed.append(dataclasses.replace(d, opens_at=opens, closes_at=d.closes_at + gone, paused_at=None))
        if changed:
            await self._reschedule(changed)
            await self._log(t, profile, "resume")

    async def extend(self, t: TournamentRow, profile: ProfileRow | None, n: object, minutes: object) -> None:
        """Round n closes `minutes` later and every later round moves with it (seeds, commitments as they were)."""
        self._organiser(t, profile)
        if (
            not isinstance(minutes, int)
            or isinstance(minutes, bool)
            or not EXTEND_MINUTES[0] <= minutes <= EXTEND_MINUTES[1]
        ):
            raise DealError("input/invalid", "a round is extended by 5 minutes to 7 days", 422)
        now, more = self.now(), timedelta(minutes=minutes)
        rounds = await self.store.read(self._rounds, t)
        target = next((d for d in rounds if d.round == n), None)
        if target is None:
            raise DealError("deal/unknown", "there is no such round", 404)
        if target.closed(now):
            raise DealError("deal/over", "this round is over", 409)
        changed = [dataclasses.replace(target, closes_at=target.closes_at + more)]
        changed += [
            dataclasses.replace(d, opens_at=d.opens_at + more, closes_at=d.closes_at + more)
            for d in rounds
            if (d.round or 0) > (target.round or 0) and not d.closed(now)
        ]
        await self._reschedule(changed)
        await self._log(t, profile, "extend", round=target.round, minutes=minutes)

    async def cancel(self, t: TournamentRow, profile: ProfileRow | None, n: object = None) -> None:
        """Cancel round n (it counts for nobody, its seed is published), or (n None) every round not over."""
        self._organiser(t, profile)
        now = self.now()
        rounds = [
            d for d in await self.store.read(self._rounds, t) if not d.closed(now) and (n is None or d.round == n)
        ]
        if not rounds:
            raise DealError("deal/over", "nothing left to cancel", 409)
        await self._reschedule([dataclasses.replace(d, cancelled=True) for d in rounds])
        if n is None:
            await self.store.read(lambda: self.store.update_tournament(t.id, cancelled=True))
        started = any(d.opens_at <= now for d in rounds)  # its players were told at their tables
        await self._log(t, profile, "cancel" if n is None else "cancel-round", round=n, started=started)

    def renew_invite(self, t: TournamentRow, profile: ProfileRow | None) -> str:
        """A new invite code: the link before it stops working (those who joined stay)."""
        self._organiser(t, profile)
        code = secrets.token_urlsafe(12)
        self.store.update_tournament(t.id, invite=code)
        self.store.log_organiser(t.id, self.now(), "invite", t.organiser_id)
        return code

    def set_approval(self, t: TournamentRow, profile: ProfileRow | None, on: object) -> None:
        self._organiser(t, profile)
        if t.approval != (on is True):
            self.store.update_tournament(t.id, approval=on is True)
            self.store.log_organiser(t.id, self.now(), "approval-on" if on is True else "approval-off", t.organiser_id)

    def member(self, t: TournamentRow, profile: ProfileRow | None, key: object, action: object) -> None:
        """Approve a joiner waiting for it, or remove a player (their games in rounds not closed yet go
        from the boards; closed rounds never change)."""
        self._organiser(t, profile)
        found = next((m for m in self.store.tournament_players(t.id) if member_key(t.id, m.profile_id) == key), None)
        if found is None:
            raise DealError("deal/unknown", "there is no such player in this tournament", 404)
        if action == "approve" and found.status == "pending":
            self.store.set_member(t.id, found.profile_id, "player", self.now())
        elif action == "remove" and found.profile_id != t.organiser_id:
            self.store.set_member(t.id, found.profile_id, "removed", self.now())
        else:
            raise DealError("input/invalid", "a player is approved (when waiting) or removed (not the organiser)", 422)
        self.store.log_organiser(t.id, self.now(), action, t.organiser_id, player_id=found.profile_id)
