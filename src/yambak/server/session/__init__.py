"""The game-session core that a live table and a kept sheet both are (`core.py`, told what differs by a
`SessionKind`: `kind.py`), and how several processes share one (`replica.py`)."""

from .core import SessionManager
from .front import SessionFront
from .kind import SessionKind
from .model import Loaded, Session
from .protocol import Hello, Ping, event_message, events_message, state_message, welcome
from .replica import Moved, Replica

__all__ = [
    "Hello",
    "Loaded",
    "Moved",
    "Ping",
    "Replica",
    "Session",
    "SessionFront",
    "SessionKind",
    "SessionManager",
    "event_message",
    "events_message",
    "state_message",
    "welcome",
]
