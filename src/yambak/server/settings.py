"""Server settings, from the environment (YAMBAK_*) or given directly."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime


def _env(name: str, default: str) -> str:
    return os.environ.get(f"YAMBAK_{name}", default)


# The push services of the browsers that offer Web Push (Chrome and its kin, Firefox, Edge, Safari).
PUSH_HOSTS = "fcm.googleapis.com,push.services.mozilla.com,notify.windows.com,push.apple.com"


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class Settings:
    database_url: str = field(default_factory=lambda: _env("DATABASE_URL", "sqlite:///var/yambak.db"))
    max_seats: int = field(default_factory=lambda: int(_env("MAX_SEATS", "16")))
    bot_delay: float = field(default_factory=lambda: float(_env("BOT_DELAY", "0.6")))  # seconds, visible
    max_message_bytes: int = 4096  # one WebSocket message
    max_body_bytes: int = 16384  # one HTTP request body
    max_record_bytes: int = 262144  # one game record sent whole (a kept sheet into a profile's games)
    rate_per_second: float = field(default_factory=lambda: float(_env("RATE", "20")))
    rate_burst: int = field(default_factory=lambda: int(_env("RATE_BURST", "40")))
    # create/join routes (HTML forms and JSON API), per client address
    http_rate: float = field(default_factory=lambda: float(_env("HTTP_RATE", "1")))
    http_burst: int = field(default_factory=lambda: int(_env("HTTP_BURST", "20")))
    # live tables / score sheets held in memory (finished ones are dropped first, and reload on demand)
    max_tables: int = field(default_factory=lambda: int(_env("MAX_TABLES", "2000")))
    max_sheets: int = field(default_factory=lambda: int(_env("MAX_SHEETS", "2000")))
    # compute (or load) the hard bots' strategy tables in a background thread at startup
    warm_strategies: bool = field(
        default_factory=lambda: _env("WARM_STRATEGIES", "1").lower() not in ("0", "false", "no", "off")
    )
    rate_strikes: int = 20  # refused messages over the limit before the socket is closed
    # open game sockets, per client address on one table or sheet, per address, per table or sheet (with
    # several processes, counted across them in Redis); a 16-player club behind one NAT stays far below
    sockets_per_address_session: int = field(default_factory=lambda: int(_env("SOCKETS_PER_ADDRESS_TABLE", "10")))
    sockets_per_address: int = field(default_factory=lambda: int(_env("SOCKETS_PER_ADDRESS", "100")))
    sockets_per_session: int = field(default_factory=lambda: int(_env("SOCKETS_PER_TABLE", "300")))
    # a socket's `hello`: a burst, then one every 1 / rate seconds (each may carry a whole view)
    hello_rate: float = field(default_factory=lambda: float(_env("HELLO_RATE", "0.5")))
    hello_burst: int = field(default_factory=lambda: int(_env("HELLO_BURST", "5")))
    # the addresses of proxies whose X-Forwarded-For names the client (uvicorn's `forwarded_allow_ips`):
    # the limits above count real clients behind them; "*" trusts every peer (only behind a proxy!)
    forwarded_allow_ips: str = field(
        default_factory=lambda: _env("FORWARDED_ALLOW_IPS", os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1"))
    )
    # a listed table with no action this long and nobody connected leaves the lobby (still reachable by link)
    idle_after: float = field(default_factory=lambda: float(_env("IDLE_AFTER", "1800")))
    # seconds bots wait after a person's entry at tables that allow taking it back
    undo_grace: float = field(default_factory=lambda: float(_env("UNDO_GRACE", "2.5")))
    # seconds an away player's turn waits before the stand-in plays it, where somebody else is here
    away_turn: float = field(default_factory=lambda: float(_env("AWAY_TURN", "15")))
    # ... and once the stand-in has played a whole turn for them since they last played (they are gone, not slow)
    away_missed: float = field(default_factory=lambda: float(_env("AWAY_MISSED", "3")))
    history: int = 200  # events kept per table for reconnecting clients
    # several processes: Redis carries actions to a table's owner and its events to every process
    redis_url: str = field(default_factory=lambda: _env("REDIS_URL", ""))
    lease_seconds: float = field(default_factory=lambda: float(_env("LEASE_SECONDS", "3")))  # a dead owner's tables
    snapshot_every: int = field(default_factory=lambda: int(_env("SNAPSHOT_EVERY", "50")))  # events between records
    # PostgreSQL: "off" acknowledges an action before its commit is flushed to disk (docs/deployment.md: a
    # crash of the database's machine may lose the last fraction of a second; a restart of ours loses nothing)
    synchronous_commit: bool = field(
        default_factory=lambda: _env("SYNCHRONOUS_COMMIT", "on").lower() not in ("0", "off", "false", "no")
    )
    # Python's full garbage collection on a timer (seconds; 0: Python's own schedule), see lifespan.tune_gc;
    # `yambak serve` makes it 300 unless the environment says otherwise
    gc_full_seconds: float = field(default_factory=lambda: float(_env("GC_FULL_SECONDS", "0")))
    # behind HTTPS (a TLS-terminating proxy): HSTS on every response and Secure cookies (docs/deployment.md)
    https: bool = field(default_factory=lambda: _env("HTTPS", "0").lower() in ("1", "true", "yes", "on"))
    # the coach's grades and reviews of finished games in a process of its own (tests: in a thread)
    coach_process: bool = field(
        default_factory=lambda: _env("COACH_PROCESS", "1").lower() not in ("0", "false", "no", "off")
    )
    # the share of a core the coach's grades of finished games may take (the grades' process waits after
    # each grade; 1: no wait): at Linux's idle priority alone, the busy core still slowed the players' moves
    # on a virtual machine (bench/load.py: 500 games ending together took that minute's p99 from 48-73 to 119-254 ms)
    grade_share: float = field(default_factory=lambda: float(_env("GRADE_SHARE", "0.25")))
    # games behind the strategy figures of a ruleset without shipped ones (server/strategy; empty: the
    # figures' own defaults, 100,000 optimal or 2,000 strong games; tests make them few)
    strategy_games: int | None = field(default_factory=lambda: int(_env("STRATEGY_GAMES", "0")) or None)
    # where those figures are kept (empty: `strategy/` in the solver's cache folder, beside its tables)
    strategy_dir: str = field(default_factory=lambda: _env("STRATEGY_DIR", ""))
    # new profiles per client address: a burst, then one every 1 / rate seconds (a throwaway profile
    # could scout the daily deal for another: see the daily challenge). The burst is a family's or a
    # class's behind one router; a profile made that day is not ranked anyway
    profile_rate: float = field(default_factory=lambda: float(_env("PROFILE_RATE", str(1 / 600))))
    profile_burst: int = field(default_factory=lambda: int(_env("PROFILE_BURST", "30")))
    link_minutes: int = 15  # a link that moves a profile to another device works this long, once
    # Web Push (server/push): who runs this server, for the push services (a mailto: or https: URL, in
    # every message's signature); the hosts of the push services endpoints may be at (a host or a domain
    # of hosts; "*": any HTTPS host); and, for tests only, endpoints at http://127.0.0.1 or localhost
    push_contact: str = field(default_factory=lambda: _env("PUSH_CONTACT", "mailto:yambak@localhost"))
    push_hosts: str = field(default_factory=lambda: _env("PUSH_HOSTS", PUSH_HOSTS))
    push_local: bool = field(default_factory=lambda: _env("PUSH_LOCAL", "0").lower() in ("1", "true", "yes", "on"))
    push_timeout: float = 10.0  # seconds one push may take, connecting and answered
    # the server's clock (aware, UTC): the daily challenge's day, results' times; tests inject their own
    clock: Callable[[], datetime] = utc_now

    @property
    def secure_cookies(self) -> bool:
        return self.https
