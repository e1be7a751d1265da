"""Limits: token buckets (per socket, and per client address on the create/join routes; see `deps.check_rate`),
and the caps on open sockets (per address and table or sheet, per address, per table or sheet)."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass


class Bucket:
    """Token bucket: `rate` tokens a second, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class ClientLimiter:
    """One bucket per client address, at most `max_clients` of them (the least recently seen go first:
    a forgotten client starts again with a full bucket, which only ever helps an honest one)."""

    def __init__(self, rate: float, burst: int, max_clients: int = 10000) -> None:
        self.rate, self.burst, self.max_clients = rate, burst, max_clients
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, client: str) -> bool:
        bucket = self.buckets.get(client)
        if bucket is None:
            bucket = self.buckets[client] = Bucket(self.rate, self.burst)
            while len(self.buckets) > self.max_clients:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(client)
        return bucket.take()


@dataclass(frozen=True)
class Ticket:
    """One open game socket, as the caps count it."""

    address: str
    session: str  # "table:ID", "sheet:ID"
    member: str  # its name among the counted sockets (unique in the cluster)


class SocketCaps:
    """Open game sockets counted in this process: at most `per_session` per address on one table or sheet,
    `per_address` per address, `total` per table or sheet. `cluster.SharedSocketCaps` counts the same
    across processes in Redis (and falls back to these counts while Redis does not answer)."""

    def __init__(self, per_session: int, per_address: int, total: int) -> None:
        self.limits = {"session": per_session, "address": per_address, "total": total}
        self.counts: dict[str, int] = {}
        self.open: dict[str, Ticket] = {}
        self._n = 0

    @staticmethod
    def keys(address: str, session: str) -> dict[str, str]:
        """The counters a socket adds to, by cap (Redis keys in `SharedSocketCaps`)."""
        return {
            "session": f"yambak:socks:as:{address}:{session}",
            "address": f"yambak:socks:a:{address}",
            "total": f"yambak:socks:s:{session}",
        }

    def excess(self, address: str, session: str) -> str | None:
        keys = self.keys(address, session)
        return next((name for name, key in keys.items() if self.counts.get(key, 0) >= self.limits[name]), None)

    def tally(self, ticket: Ticket, step: int) -> None:
        for key in self.keys(ticket.address, ticket.session).values():
            left = self.counts.get(key, 0) + step
            if left > 0:
                self.counts[key] = left
            else:
                self.counts.pop(key, None)
        if step > 0:
            self.open[ticket.member] = ticket
        else:
            self.open.pop(ticket.member, None)

    def _ticket(self, address: str, session: str) -> Ticket:
        self._n += 1
        return Ticket(address, session, f"{id(self):x}:{self._n}")

    async def enter(self, address: str, session: str) -> Ticket | str:
        """Count one more socket: its ticket, or the name of the cap it would pass ("session",
        "address", "total")."""
        over = self.excess(address, session)
        if over is not None:
            return over
        ticket = self._ticket(address, session)
        self.tally(ticket, 1)
        return ticket

    def leave(self, ticket: Ticket) -> None:
        if ticket.member in self.open:
            self.tally(ticket, -1)
