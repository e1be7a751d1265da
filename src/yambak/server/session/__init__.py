"""The game-session core that a live table and a kept sheet both are (`core.py`), and how several
processes share one (`replica.py`)."""

from .core import Loaded, Session, SessionManager
from .protocol import Hello, Ping, event_message, events_message, state_message, welcome
from .replica import Moved, Replica

__all__ = [
    "Hello",
    "Loaded",
    "Moved",
    "Ping",
    "Replica",
    "Session",
    "SessionManager",
    "event_message",
    "events_message",
    "state_message",
    "welcome",
]
