"""SQLAlchemy 2 table definitions (the Alembic migrations create the same schema)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class GameSession(Base):
    """A game session: a live table (the server rolls, people and bots sit at seats) or a kept sheet
    (people type the dice they rolled at home). Both are a snapshot of the game record beside an
    event log (`Event`); a sheet also has a short join code."""

    __tablename__ = "game_tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), default="table", server_default="table")  # table | sheet
    name: Mapped[str] = mapped_column(String(80))
    rules: Mapped[object] = mapped_column(JSON)  # the record's `rules` spec
    listed: Mapped[bool] = mapped_column(Boolean, default=True)
    duplicate: Mapped[bool] = mapped_column(Boolean, default=False)
    seed: Mapped[str | None] = mapped_column(String(64), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=0)  # the version `record` was taken at
    finished: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    record: Mapped[object] = mapped_column(JSON)  # a snapshot: the game record (with `pending`) at `version`
    fairness: Mapped[object | None] = mapped_column(JSON, nullable=True)  # dice commitment; its seed stays here
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    settings: Mapped[object | None] = mapped_column(JSON, nullable=True)  # hints, clock, undo
    code: Mapped[str | None] = mapped_column(String(8), nullable=True, unique=True, index=True)  # a sheet's join code
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class SheetToken(Base):
    """A kept sheet's write token (its SHA-256 hash): `owner` (the phone that made the sheet) or `code`
    (a phone that joined with the join code; renewing the code deletes these). The sheet's id only reads."""

    __tablename__ = "sheet_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    sheet_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))  # owner | code
    created_at: Mapped[datetime] = mapped_column(DateTime)


class Seat(Base):
    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))  # human | bot | open
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    bot: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # the player's profile (a person's seat, claimed from a device that has one); gone with the profile
    profile_id: Mapped[str | None] = mapped_column(
        ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True, index=True
    )
    assisted: Mapped[bool] = mapped_column(Boolean, default=False)  # asked the coach, or a bot played a turn
    # the profile key (its hash) of the device the seat's token was given to: signed out, the token goes
    device: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)


class Event(Base):
    """A session's log: each accepted action (a table's engine event, a sheet's entry) with the version it
    made, the seat it was for (-1: none, such as a sheet's undo) and the client's id for it (`ref`): an
    action sent again under the same ref is answered with the version it made, never applied twice."""

    __tablename__ = "events"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(16))
    data: Mapped[str] = mapped_column(Text)  # the event (or entry), JSON
    ref: Mapped[str | None] = mapped_column(String(40), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_events_ref", "table_id", "ref", unique=True),)


class Profile(Base):
    """A player remembered without a password: a display name, and device keys (`ProfileKey`)."""

    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)  # public: shared pages name it
    name: Mapped[str] = mapped_column(String(40))
    shared: Mapped[bool] = mapped_column(Boolean, default=False)  # its pages readable by anyone with the link
    # a deleted profile's nameless stand-in: it keeps the places on boards that never change (no keys, no pages)
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class ProfileKey(Base):
    """What proves a profile: a device's cookie token, or a one-time link to move it to another device
    (with an expiry). Only hashes are stored."""

    __tablename__ = "profile_keys"

    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))  # device | link
    expires_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    label: Mapped[str | None] = mapped_column(String(80), nullable=True)  # a device: its browser and system
    used_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # a device: last seen (to the day)


class Result(Base):
    """One finished game in a profile's history: a table it sat at, or a kept sheet it imported. The
    numbers are the engine's, read once at the end; `accuracy` (points lost per decision) comes later,
    from the coach."""

    __tablename__ = "results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    public_id: Mapped[str] = mapped_column(String(24), index=True, unique=True)  # in addresses: random, not a count
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))  # table | kept | daily | club
    ref: Mapped[str] = mapped_column(String(64))  # the table id or the kept sheet's id
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: a kept sheet without this player
    preset: Mapped[str] = mapped_column(String(40))  # the preset, or "custom"
    rules_id: Mapped[str] = mapped_column(String(120))
    finished_at: Mapped[datetime] = mapped_column(DateTime)
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    won: Mapped[bool] = mapped_column(Boolean, default=False)
    players: Mapped[int] = mapped_column(Integer)
    counted: Mapped[bool] = mapped_column(Boolean, default=False)  # server-rolled, no hint, no bot turn
    bonus_columns: Mapped[int] = mapped_column(Integer, default=0)
    columns: Mapped[int] = mapped_column(Integer, default=0)
    yams: Mapped[int] = mapped_column(Integer, default=0)
    yam_boxes: Mapped[int] = mapped_column(Integer, default=0)
    accuracy: Mapped[float | None] = mapped_column(Float, nullable=True)
    decisions: Mapped[int | None] = mapped_column(Integer, nullable=True)
    best: Mapped[bool] = mapped_column(Boolean, default=False)  # beat every earlier counted score of the preset
    record: Mapped[object | None] = mapped_column(JSON, nullable=True)  # kept sheets: their record
    # a deal's game (daily or club): private to its player until the deal closes
    deal_id: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    # the turn of its own the seat won the game outright on (docs/rules.md §7), None where it did not
    outright_turn: Mapped[int | None] = mapped_column(Integer, nullable=True)

    __table_args__ = (
        Index("ix_results_profile_time", "profile_id", "finished_at"),
        Index("ix_results_profile_preset", "profile_id", "preset", "finished_at"),
        Index("ix_results_once", "profile_id", "kind", "ref", unique=True),
    )


_LOSSES_INDEX = ("rules_id", "kind", "box", "unit", "source", "counted", "deal_id", "loss", "result_id")


class GradedDecision(Base):
    """One decision of a graded game (a result's seat), as the coach's review graded it: what was chosen, what
    was best and what the choice lost. Written with the result's grade; gone with its result or its profile.
    The strategy page's "where players lose points" and the fair-play review read these rows."""

    __tablename__ = "graded_decisions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    result_id: Mapped[int | None] = mapped_column(ForeignKey("results.id", ondelete="CASCADE"), nullable=True)
    # the player's profile (None: a game without one); deleting the profile deletes its rows
    profile_id: Mapped[str | None] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), nullable=True)
    table_id: Mapped[str] = mapped_column(String(64))  # the game: a table's id, or a kept sheet's
    seat: Mapped[int] = mapped_column(Integer)
    preset: Mapped[str] = mapped_column(String(40))  # the preset, or "custom"
    rules_id: Mapped[str] = mapped_column(String(120))  # `Ruleset.variant_key(duplicate=False)`: which game
    source: Mapped[str] = mapped_column(String(8))  # the result's kind: table | kept | daily | club
    ranked: Mapped[bool] = mapped_column(Boolean, default=False)  # a ranked table's game
    duplicate: Mapped[bool] = mapped_column(Boolean, default=False)  # duplicate dice (deals' games among them)
    counted: Mapped[bool] = mapped_column(Boolean, default=False)  # the result's: server-rolled, no hint, no bot
    deal_id: Mapped[str | None] = mapped_column(String(64), nullable=True)  # private until the deal closes
    finished_at: Mapped[datetime] = mapped_column(DateTime)
    turn: Mapped[int] = mapped_column(Integer)  # the player's own turn, 1-based
    roll: Mapped[int] = mapped_column(Integer)  # rolls made when the decision was taken
    kind: Mapped[str] = mapped_column(String(8))  # keep | box | strike | announce: the choice made
    box: Mapped[str] = mapped_column(String(40))  # the box the turn ended in
    dice: Mapped[object] = mapped_column(JSON)  # the dice the decision was taken on
    chosen: Mapped[object] = mapped_column(JSON)  # the choice made, as the review writes an option
    best: Mapped[object] = mapped_column(JSON)  # the coach's best choice there
    options: Mapped[int] = mapped_column(Integer)  # how many choices there were
    loss: Mapped[float] = mapped_column(Float)  # best's value less the choice's, in `unit`
    unit: Mapped[str] = mapped_column(String(16))  # score (expected points) | match_points
    exact: Mapped[bool] = mapped_column(Boolean, default=False)  # from the solver's table, not an estimate

    __table_args__ = (
        Index("ix_graded_decisions_result", "result_id"),
        Index("ix_graded_decisions_profile", "profile_id", "finished_at"),
        # the strategy page's aggregate reads a ruleset's rows from this index alone, in its grouping's order
        Index("ix_graded_decisions_rules", *_LOSSES_INDEX),
        Index("ix_graded_decisions_deal", "deal_id"),
    )


class Deal(Base):
    """One deal of duplicate dice that every entrant plays solo: a day's challenge of a preset, or a round
    of a club tournament. Its seed is committed (`commitment` published) when the deal is made and shown
    once it closes."""

    __tablename__ = "deals"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # daily:YYYY-MM-DD:preset | club:ID:N
    kind: Mapped[str] = mapped_column(String(8))  # daily | club
    preset: Mapped[str] = mapped_column(String(40))
    seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    opens_at: Mapped[datetime] = mapped_column(DateTime)
    closes_at: Mapped[datetime] = mapped_column(DateTime, index=True)
    tournament_id: Mapped[str | None] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=True, index=True
    )
    round: Mapped[int | None] = mapped_column(Integer, nullable=True)
    par_score: Mapped[int | None] = mapped_column(Integer, nullable=True)  # a bot's score on the same dice
    par_bot: Mapped[str | None] = mapped_column(String(16), nullable=True)  # optimal | strong
    par_table: Mapped[str | None] = mapped_column(String(32), nullable=True)  # the bot's game, a finished table
    par_outright: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the turn the bot won at once on
    paused_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)  # its clock stands still since
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)  # counts for nobody; its seed is published


class DealEntry(Base):
    """A profile's counted attempt at a deal: the first table it started there (later ones are practice)."""

    __tablename__ = "deal_entries"

    deal_id: Mapped[str] = mapped_column(ForeignKey("deals.id", ondelete="CASCADE"), primary_key=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[datetime] = mapped_column(DateTime)


class Tournament(Base):
    """A club's tournament: invited players, `rounds` duplicate deals, each open `window_minutes`."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    preset: Mapped[str] = mapped_column(String(40))
    organiser_id: Mapped[str | None] = mapped_column(ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True)
    invite: Mapped[str] = mapped_column(String(64))  # the invite link's code
    rounds: Mapped[int] = mapped_column(Integer)
    window_minutes: Mapped[int] = mapped_column(Integer)
    starts_at: Mapped[datetime] = mapped_column(DateTime)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    approval: Mapped[bool] = mapped_column(Boolean, default=False)  # joiners wait for the organiser's approval
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)  # the organiser cancelled what was left


class TournamentLog(Base):
    """One of a tournament organiser's actions, shown on its page: what, when, by whom, about whom."""

    __tablename__ = "tournament_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(DateTime)
    action: Mapped[str] = mapped_column(String(16))
    round: Mapped[int | None] = mapped_column(Integer, nullable=True)
    minutes: Mapped[int | None] = mapped_column(Integer, nullable=True)  # a round extended by
    started: Mapped[bool] = mapped_column(Boolean, default=False)  # a round cancelled after it opened
    by_id: Mapped[str | None] = mapped_column(ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True)

    __table_args__ = (Index("ix_tournament_log_tournament", "tournament_id", "at"),)


class TournamentPlayer(Base):
    __tablename__ = "tournament_players"

    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(8), default="player")  # player | pending | removed


class Rating(Base):
    """A profile's rating in ranked games of one preset (OpenSkill's Plackett-Luce: mu and sigma), and how
    many rated games made it."""

    __tablename__ = "ratings"

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    preset: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_ratings_preset", "preset"),)


class RatingChange(Base):
    """What a finished ranked game did to each of its players' ratings (or why it did not rate them):
    the results page shows it, and it counts the games two profiles rated together on a day."""

    __tablename__ = "rating_changes"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    # the player's profile; gone with it (the change stays, nameless, like the seat)
    profile_id: Mapped[str | None] = mapped_column(
        ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True, index=True
    )
    preset: Mapped[str] = mapped_column(String(40))
    place: Mapped[int] = mapped_column(Integer)  # 1 for the winners; a player who left is placed last
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    reason: Mapped[str | None] = mapped_column(String(16), nullable=True)  # why not: new | pair | alone
    left_early: Mapped[bool] = mapped_column(Boolean, default=False)  # left: not there when the clock ran out twice
    mu_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    sigma_before: Mapped[float | None] = mapped_column(Float, nullable=True)
    mu_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    sigma_after: Mapped[float | None] = mapped_column(Float, nullable=True)
    at: Mapped[datetime] = mapped_column(DateTime, index=True)


class Turn(Base):
    """A seat of a live table whose turn it is now (written with the event that starts the turn): since when,
    an asynchronous table's deadline and reminder as wall-clock times (fired by whichever process owns the
    table, after restarts too), and whether the reminder went. The "your turn" lists read it."""

    __tablename__ = "turns"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)  # whose: the seat's row says (`Seat.profile_id`)
    since_at: Mapped[datetime] = mapped_column(DateTime)
    due_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, index=True)
    remind_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True, index=True)
    reminded: Mapped[bool] = mapped_column(Boolean, default=False)


class PushSubscription(Base):
    """A browser's Web Push subscription for a profile: where to send, and the keys to encrypt for it."""

    __tablename__ = "push_subscriptions"

    endpoint_hash: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256 of the endpoint
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(Text)
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(64))
    lang: Mapped[str | None] = mapped_column(String(8), nullable=True)  # the language of its messages
    # the device (its profile key) that subscribed: signing it out ends its pushes
    device: Mapped[str | None] = mapped_column(ForeignKey("profile_keys.hash", ondelete="CASCADE"), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    failures: Mapped[int] = mapped_column(Integer, default=0)


class ServerKey(Base):
    """A key the server makes once and every process shares (`vapid`: the key that signs Web Push)."""

    __tablename__ = "server_keys"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class TrainerPosition(Base):
    """A trainer position's puzzle rating (OpenSkill: the player's opponent), and how often it was answered
    and solved. A seeded position is generated from its pool's seed (`trainer/pool.py`): only its id here;
    a position rebuilt from a stored mistake keeps its puzzle's JSON (`puzzle`), so every process knows it."""

    __tablename__ = "trainer_positions"

    position_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    preset: Mapped[str] = mapped_column(String(40), index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    answers: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime)
    puzzle: Mapped[str | None] = mapped_column(Text, nullable=True)


class TrainerRating(Base):
    """A profile's puzzle rating in the trainer of one preset, its answers, and its streak of solved ones."""

    __tablename__ = "trainer_ratings"

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    preset: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    answers: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)  # solved in a row, up to the last answer
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class TrainerAnswer(Base):
    """One answer of a profile in the trainer: the position, the choice, its loss, and the rating after it."""

    __tablename__ = "trainer_answers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    preset: Mapped[str] = mapped_column(String(40))
    position_id: Mapped[str] = mapped_column(String(32))
    choice: Mapped[str] = mapped_column(Text)  # the choice as JSON (`trainer.Choice.to_dict`)
    loss: Mapped[float] = mapped_column(Float)
    solved: Mapped[bool] = mapped_column(Boolean)
    daily: Mapped[bool] = mapped_column(Boolean, default=False)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_trainer_answers_profile", "profile_id", "preset", "at"),)


class FairplayClear(Base):
    """When the server's operator last cleared a profile from the fair-play list (`yambak fairplay clear`):
    only its ranked games graded after that can list it again. Gone with the profile."""

    __tablename__ = "fairplay_clears"

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    cleared_at: Mapped[datetime] = mapped_column(DateTime)


class ProfileMark(Base):
    """A keyed hash of what ties a profile's device key to other profiles (a client address it played
    ranked from, a device that carried another profile first), with when it was last seen: profiles that
    share a mark seen in the last 30 days never rate each other (`server/ranked`)."""

    __tablename__ = "profile_marks"

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)  # the device key's hash
    mark: Mapped[str] = mapped_column(String(64), primary_key=True)  # HMAC-SHA256, hex
    seen_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_profile_marks_mark", "mark"), Index("ix_profile_marks_seen_at", "seen_at"))


class RankedWait(Base):
    """When a ranked table began to wait for players, by the server's clock: the rating window of "Play
    ranked" widens with the wait."""

    __tablename__ = "ranked_waits"

    table_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    since: Mapped[datetime] = mapped_column(DateTime)


class SheetGroup(Base):
    """A group of kept sheets (a club or a family): its season is read from its sheets' records. Joined by
    a code like a sheet's; the code hands each phone a token (`SheetGroupToken`) that adds its sheets."""

    __tablename__ = "sheet_groups"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    code: Mapped[str] = mapped_column(String(8), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class SheetGroupToken(Base):
    """A phone's token for a group (its SHA-256 hash): handed out by the group's code; adds sheets."""

    __tablename__ = "sheet_group_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    group_id: Mapped[str] = mapped_column(ForeignKey("sheet_groups.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class SheetGroupSheet(Base):
    """A kept sheet in a group (a sheet may be in several); gone with the group or the sheet."""

    __tablename__ = "sheet_group_sheets"

    group_id: Mapped[str] = mapped_column(ForeignKey("sheet_groups.id", ondelete="CASCADE"), primary_key=True)
    sheet_id: Mapped[str] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True)
    added_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (Index("ix_sheet_group_sheets_sheet", "sheet_id"),)
