"""Limits: token buckets (per socket, and per client address on the create/join routes; see `deps.check_rate`)."""

from __future__ import annotations

import time
from collections import OrderedDict


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
