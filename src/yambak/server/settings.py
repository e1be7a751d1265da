"""Server settings, from the environment (YAMBAK_*) or given directly."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _env(name: str, default: str) -> str:
    return os.environ.get(f"YAMBAK_{name}", default)


@dataclass
class Settings:
    database_url: str = field(default_factory=lambda: _env("DATABASE_URL", "sqlite:///var/yambak.db"))
    max_seats: int = field(default_factory=lambda: int(_env("MAX_SEATS", "16")))
    bot_delay: float = field(default_factory=lambda: float(_env("BOT_DELAY", "0.6")))  # seconds, visible
    max_message_bytes: int = 4096  # one WebSocket message
    max_body_bytes: int = 16384  # one HTTP request body
    rate_per_second: float = field(default_factory=lambda: float(_env("RATE", "20")))
    rate_burst: int = field(default_factory=lambda: int(_env("RATE_BURST", "40")))
    rate_strikes: int = 20  # refused messages over the limit before the socket is closed
    history: int = 200  # events kept per table for reconnecting clients
    secure_cookies: bool = False
